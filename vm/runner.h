// `kith run` and `kith disasm` behind the command line: picks the heap policy and
// collector, builds the VM and its built-ins, compiles, runs, reports errors with
// LANGUAGE.md's exit codes, and prints statistics (CLI.md's JSON).
#pragma once

#include <cstddef>
#include <string>
#include <vector>

namespace kith::vm {

enum class StatsFormat { none, table, json };

struct RunOptions {
  std::string heapPolicy = "estranged";
  std::size_t heapSize = std::size_t{64} << 20;
  std::string collector = "occasional";  // today every name runs as `none`
  std::size_t maxDepth = 10000;
  StatsFormat stats = StatsFormat::none;
  std::string statsFile;  // also write the JSON here
  std::string tracePath;  // record every allocation and free here
  std::string script;
  std::vector<std::string> args;  // System.args
};

// Exit codes (sysexits): 0 ok, 65 compile error, 66 unreadable script,
// 70 uncaught runtime error, or the code given to System.exit.
int runScriptFile(const RunOptions& options);
int disassembleFile(const std::string& path);

// Collector names `--gc` accepts.
const std::vector<std::string>& collectorNames();

}  // namespace kith::vm
