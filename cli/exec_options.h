// `kith exec`'s options (docs/CLI.md, docs/EXEC.md), one row each (option_table.h):
// what every process COMMAND starts builds as its malloc, and what it reports.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "cli/option_table.h"
#include "preload/preload_environment.h"

namespace kith::cli {

struct ExecOptions {
  std::string policy = preload::kDefaultPolicy;
  std::size_t heapBytes = preload::kDefaultHeapBytes;
  std::string stats;      // "", "table" or "json"
  std::string statsFile;  // as given; absolute once checked (exec_command.cpp)
  std::string trace;      // as given; absolute once checked
  bool check = false;
  std::vector<std::string> command;

  bool operator==(const ExecOptions&) const = default;
};

// The options `kith exec` takes before COMMAND, in the order of its --help.
OptionTable<ExecOptions> execOptionTable();
// What the command-line parser needs of them.
const std::vector<OptionSpec>& execOptionSpecs();
// "options of exec ...:", an entry for each and what COMMAND is, as `kith exec --help` shows them.
std::string execOptionsHelp();

// Reads exec's options and COMMAND: nullopt when `options` is complete (its outputs
// not yet checked), else the usage error's exit code.
std::optional<int> parseExecOptions(const std::vector<std::string_view>& args, ExecOptions& options);

}  // namespace kith::cli
