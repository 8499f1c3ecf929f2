// The options of `kith bench contrived` and `kith bench defrag` (docs/CLI.md), one
// row each (option_table.h). Their --help is the command's usage line in `kith
// --help` (cli/main.cpp), which names every option and its default, so the rows
// carry no entries of their own.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "cli/contrived_bench.h"
#include "cli/defrag_bench.h"
#include "cli/option_table.h"

namespace kith::cli {

struct ContrivedBenchOptions {
  bool json = false;
  std::size_t heapBytes = std::size_t{64} << 20;
  int repetitions = 21;
  double fill = kDefaultContrivedFill;

  bool operator==(const ContrivedBenchOptions&) const = default;
};

struct DefragBenchOptions {
  bool json = false;
  std::string policy = "estranged";
  std::size_t seeds = kDefragSeeds;

  bool operator==(const DefragBenchOptions&) const = default;
};

OptionTable<ContrivedBenchOptions> contrivedBenchOptionTable();
const std::vector<OptionSpec>& contrivedBenchOptionSpecs();
OptionTable<DefragBenchOptions> defragBenchOptionTable();
const std::vector<OptionSpec>& defragBenchOptionSpecs();

// Reads a benchmark's options (it takes no operands): nullopt when `options` is
// complete, else the usage error's exit code.
std::optional<int> parseContrivedBenchOptions(const std::vector<std::string_view>& args,
                                              ContrivedBenchOptions& options);
std::optional<int> parseDefragBenchOptions(const std::vector<std::string_view>& args, DefragBenchOptions& options);

}  // namespace kith::cli
