#include "cli/exec_options.h"

#include "cli/byte_size.h"
#include "cli/option_parser.h"
#include "cli/suggestion.h"
#include "cli/usage_error.h"
#include "heap/heap.h"
#include "preload/policy_choice.h"

namespace kith::cli {

namespace {

using Row = OptionRow<ExecOptions>;
using enum OptionArgument;

// "did you mean ...?" over every name --heap knows, the refused ones too.
std::string policySuggestion(std::string_view word) {
  std::vector<std::string_view> names;
  for (const auto* list : {&heap::policyList(), &heap::referenceList(), &heap::baselineList(),
                           &heap::replayBaselineList()})
    for (const heap::PolicyInfo& p : *list) names.push_back(p.name);
  return didYouMean(word, names);
}

std::optional<int> readHeap(const GivenOption& given, ExecOptions& o) {
  o.policy = *given.value;
  if (auto problem = preload::programMallocProblem(o.policy)) {
    if (heap::isPolicy(o.policy) || heap::isReplayBaseline(o.policy))
      return usageError("--heap=" + o.policy + " cannot be a program's malloc: " + *problem);
    return usageError("unknown heap policy '" + o.policy + "': " + *problem, policySuggestion(o.policy));
  }
  return std::nullopt;
}

std::optional<int> readHeapSize(const GivenOption& given, ExecOptions& o) {
  const std::string& value = *given.value;
  auto size = parseByteSize(value);
  if (!size) return usageError("--heap-size wants a size like 512K, 64M, 2G or 1T; got '" + value + "'");
  if (*size < preload::kMinHeapBytes)
    return usageError("--heap-size must be at least " + byteSizeName(preload::kMinHeapBytes) + "; got '" + value +
                      "'");
  o.heapBytes = *size;
  return std::nullopt;
}

std::optional<int> readStats(const GivenOption& given, ExecOptions& o) {
  if (given.value && *given.value != "json")
    return usageError("--stats takes =json or nothing; got '" + given.spelling() + "'");
  o.stats = given.value ? "json" : "table";
  return std::nullopt;
}

// A path an option names (checked before COMMAND starts, exec_command.cpp).
template <std::string ExecOptions::*member>
constexpr auto path = readText<ExecOptions, member>;

// Rows in the order of `kith exec --help`.
constexpr Row kExecOptionRows[] = {
    {{"--heap", required}, readHeap,
     {{{"--heap=POLICY",
        "the policy every process uses as its malloc (default\n"
        "{default}): any of kith policies but boehm; malloc is\n"
        "glibc's own allocator, kingsley-bsd the hand-written\n"
        "Kingsley kingsley is measured against (for comparison)"}}},
     shownText<ExecOptions, &ExecOptions::policy>},
    {{"--heap-size", required, OptionValue::size}, readHeapSize,
     {{{"--heap-size=SIZE",
        "the arena each process reserves (default {default}, at least 16K);\n"
        "reserved, not populated: a process's memory is what it\n"
        "touches. A request it cannot meet is NULL with ENOMEM"}}},
     [](const ExecOptions& o) { return byteSizeName(o.heapBytes); }},
    {{"--stats", optional}, readStats,
     {{{"--stats", "each process's heap statistics as a table on stderr at exit"},
       {"--stats=json", "... as one JSON object (per process) on stderr"}}}},
    {{"--stats-file", required}, path<&ExecOptions::statsFile>,
     {{{"--stats-file=PATH",
        "... as JSON in PATH (COMMAND's own), PATH.PID (every\n"
        "other process)"}}}},
    {{"--trace", required}, path<&ExecOptions::trace>,
     {{{"--trace=PATH",
        "record every request in Kith's trace format (binary unless\n"
        "PATH ends in .txt), PATH and PATH.PID as for --stats-file,\n"
        "for kith replay --heap=P PATH (a PATH of - is refused:\n"
        "standard output is COMMAND's); a realloc is recorded as\n"
        "a resize in place or a move"}}}},
    {{"--check", none}, readFlag<ExecOptions, &ExecOptions::check>,
     {{{"--check",
        "DebugHeap in the chain: a double free, a foreign or\n"
        "interior pointer, or a write past a block's end is one line\n"
        "on stderr, a backtrace, and abort"}}}},
};

}  // namespace

OptionTable<ExecOptions> execOptionTable() { return kExecOptionRows; }

const std::vector<OptionSpec>& execOptionSpecs() {
  static const std::vector<OptionSpec> specs = optionSpecs(execOptionTable());
  return specs;
}

std::string execOptionsHelp() {
  return "options of exec (each process COMMAND starts inherits them):\n" + optionsHelp(execOptionTable()) +
         "COMMAND is found on PATH as a shell finds it. Exit status: COMMAND's; 128+N when\n"
         "signal N ended it; 127 when it cannot be found, 126 when it cannot be run.\n"
         "The same without kith: LD_PRELOAD=libkith_malloc.so KITH_HEAP=POLICY COMMAND\n"
         "(docs/EXEC.md names every variable).\n"
         "\n";
}

std::optional<int> parseExecOptions(const std::vector<std::string_view>& args, ExecOptions& o) {
  CommandLine line;
  if (auto exit = readCommandLine("exec", execOptionSpecs(), args, OperandPlacement::endsOptions, line)) return exit;
  if (auto exit = readOptions(execOptionTable(), line.options, o)) return exit;
  if (line.operands.empty())
    return usageError("'exec' needs a command to run: kith exec [OPTIONS] -- COMMAND [ARGS...]");
  for (std::string_view word : line.operands) o.command.emplace_back(word);
  return std::nullopt;
}

}  // namespace kith::cli
