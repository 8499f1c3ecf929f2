#include "cli/run_options.h"

#include <cstdio>

#include "cli/byte_size.h"
#include "cli/option_parser.h"
#include "cli/option_table.h"
#include "cli/option_value.h"
#include "cli/suggestion.h"
#include "cli/usage_error.h"
#include "heap/heap.h"
#include "heap/trace/trace.h"

namespace kith::cli {

std::optional<CollectorChoice> collectorNamed(std::string_view name) {
  for (CollectorChoice c : {CollectorChoice::occasional, CollectorChoice::continuous, CollectorChoice::none})
    if (collectorName(c) == name) return c;
  return std::nullopt;
}

std::string_view collectorName(CollectorChoice collector) {
  switch (collector) {
    case CollectorChoice::occasional: return "occasional";
    case CollectorChoice::continuous: return "continuous";
    case CollectorChoice::none: return "none";
  }
  return "?";
}

std::string_view pacingName(gc::GcPacing pacing) { return pacing == gc::GcPacing::work ? "work" : "time"; }

std::string policySuggestion(std::string_view word, bool withReplayBaselines) {
  std::vector<std::string_view> names;
  for (const auto* list :
       {&heap::policyList(), &heap::baselineList(), &heap::referenceList(), &heap::replayBaselineList()}) {
    if (list == &heap::replayBaselineList() && !withReplayBaselines) continue;
    for (const heap::PolicyInfo& p : *list) names.push_back(p.name);
  }
  return didYouMean(word, names);
}

std::string collectorSuggestion(std::string_view word) {
  return didYouMean(word, {"occasional", "continuous", "none"});
}

bool RunOptions::collectorOptionsGiven() const {
  return collector != CollectorChoice::occasional || gcStress || gcLog || gcThreshold > 0 || gcStep > 0 ||
         gcPacing != gc::GcPacing::time;
}

int compilerHeapError(std::string_view name) {
  return usageError("--compiler-heap wants " + std::string(vm::kCompilerHeapNames) + "; got '" +
                    std::string(name) + "'");
}

namespace {

using Row = OptionRow<RunOptions>;
using enum OptionArgument;
using enum OptionValue;

template <bool RunOptions::*member>
constexpr auto flag = readFlag<RunOptions, member>;
template <std::string RunOptions::*member>
constexpr auto path = readText<RunOptions, member>;  // checked when the run starts (output_conflicts.h)

// --fail-alloc and --fail-alloc-every: a count of at least 1.
template <std::uint64_t RunOptions::*member>
std::optional<int> readCount(const GivenOption& given, RunOptions& o) {
  std::optional<std::uint64_t> n = parseCount(*given.value);
  if (!n) return usageError(std::string(given.name) + " wants a count of at least 1; got '" + *given.value + "'");
  o.*member = *n;
  return std::nullopt;
}

std::optional<int> readHeap(const GivenOption& given, RunOptions& o) {
  o.heapPolicy = *given.value;
  if (heap::isReplayBaseline(o.heapPolicy))
    return usageError("--heap=" + o.heapPolicy +
                      " is a replay baseline with no memory behind its blocks: only 'kith replay' takes it");
  if (!heap::isPolicy(o.heapPolicy))
    return usageError("unknown heap policy '" + o.heapPolicy + "'; valid: " + heap::policyNames(),
                      policySuggestion(o.heapPolicy));
  return std::nullopt;
}

std::optional<int> readHeapSize(const GivenOption& given, RunOptions& o) {
  return readSizeOption(given.name, *given.value, kMinimumHeapSize, o.heapSize);
}

std::optional<int> readCollector(const GivenOption& given, RunOptions& o) {
  std::optional<CollectorChoice> collector = collectorNamed(*given.value);
  if (!collector)
    return usageError("unknown collector '" + *given.value + "'; valid: occasional, continuous, none",
                      collectorSuggestion(*given.value));
  o.collector = *collector;
  return std::nullopt;
}

std::optional<int> readThreshold(const GivenOption& given, RunOptions& o) {
  std::optional<double> f = parseReal(*given.value);
  if (!f || !(*f > 0 && *f <= 1))
    return usageError("--gc-threshold wants a fraction in (0, 1], like 0.75; got '" + *given.value + "'");
  o.gcThreshold = *f;
  return std::nullopt;
}

std::optional<int> readPacing(const GivenOption& given, RunOptions& o) {
  const std::string& pacing = *given.value;
  if (pacing != "time" && pacing != "work") return usageError("--gc-pacing wants time or work; got '" + pacing + "'");
  o.gcPacing = pacing == "work" ? gc::GcPacing::work : gc::GcPacing::time;
  return std::nullopt;
}

std::optional<int> readOverheadLimit(const GivenOption& given, RunOptions& o) {
  const std::string& v = *given.value;
  std::optional<double> pct = v == "off" ? 0.0 : parseReal(v);
  if (v != "off" && !(pct && *pct > 0 && *pct <= 100))
    return usageError("--gc-overhead-limit wants a percentage in (0, 100] or off; got '" + v + "'");
  o.gcOverheadLimit = *pct / 100;
  return std::nullopt;
}

std::string shownOverheadLimit(const RunOptions& o) {
  if (o.gcOverheadLimit == 0) return "off";
  char percent[32];
  std::snprintf(percent, sizeof percent, "%g", o.gcOverheadLimit * 100);
  return percent;
}

std::optional<int> readGcStress(const GivenOption& given, RunOptions& o) {
  if (given.value && *given.value != "move")
    return usageError("--gc-stress takes no value or =move; got '" + given.spelling() + "'");
  o.gcStress = true;
  if (given.value) o.moveObjects = true;
  return std::nullopt;
}

std::optional<int> readTraceFormat(const GivenOption& given, RunOptions& o) {
  const std::string& format = *given.value;
  if (format != "binary" && format != "text")
    return usageError("--trace-format wants binary or text; got '" + format + "'");
  o.traceFormat = format == "text" ? heap::TraceFormat::text : heap::TraceFormat::binary;
  return std::nullopt;
}

std::optional<int> readCompilerHeap(const GivenOption& given, RunOptions& o) {
  std::optional<vm::CompilerHeap> heap = vm::compilerHeapNamed(*given.value);
  if (!heap) return compilerHeapError(*given.value);
  o.compilerHeap = *heap;
  return std::nullopt;
}

constexpr Row statsRow(OptionSpec spec, std::array<HelpEntry, 2> help) {
  return statisticsRow<RunOptions, &RunOptions::statistics>(spec, help);
}

// Rows in the order of `kith run --help`.
constexpr Row kRunOptionRows[] = {
    {{"--heap", required}, readHeap, {{{"--heap=POLICY", "heap policy (default {default}); see kith policies"}}},
     shownText<RunOptions, &RunOptions::heapPolicy>},
    {{"--heap-size", required, size}, readHeapSize,
     {{{"--heap-size=SIZE", "the fixed heap (default {default}, at least 16K)"}}},
     [](const RunOptions& o) { return byteSizeName(o.heapSize); }},
    {{"--gc", required}, readCollector,
     {{{"--gc=COLLECTOR",
        "occasional (default): stop-the-world mark-sweep;\n"
        "continuous: incremental mark-sweep in bounded slices;\n"
        "none: nothing is freed. With every collector a request the\n"
        "heap cannot meet runs a full collection, then (knuth,\n"
        "estranged) defragmentation, then raises the catchable\n"
        "error \"out of memory\""}}},
     [](const RunOptions& o) { return std::string(collectorName(o.collector)); }},
    {{"--gc-threshold", required, real}, readThreshold,
     {{{"--gc-threshold=F",
        "heap occupancy, a fraction in (0, 1], at which occasional\n"
        "collects (default 0.75) and continuous starts a cycle\n"
        "(default 0.5); 1: only when the heap is full"}}}},
    {{"--gc-step", required, integer}, readInteger<RunOptions, &RunOptions::gcStep, 1, 1000000>,
     {{{"--gc-step=N",
        "continuous: work per slice, 1 to 1000000 units (default\n"
        "1024 under --gc-pacing=work, 4096 under time, where a\n"
        "slice also stops at 50 us of CPU time); a unit is an\n"
        "object marked, a block freed or 8 handle slots swept.\n"
        "Slices are paced by allocation so a cycle ends before\n"
        "the heap fills"}}}},
    {{"--gc-pacing", required}, readPacing,
     {{{"--gc-pacing=MODE",
        "continuous: time (default): also defer a slice that comes\n"
        "too soon after the last (mutator utilization) and slice at\n"
        "loop back-edges; work: slices by allocation volume alone,\n"
        "so every count in the statistics is identical run to run"}}},
     [](const RunOptions& o) { return std::string(pacingName(o.gcPacing)); }},
    {{"--gc-pauses-file", required}, path<&RunOptions::gcPausesFile>,
     {{{"--gc-pauses-file=PATH",
        "write every GC pause to PATH, one 'START_NS DURATION_NS\n"
        "CPU_START_NS CPU_NS WORK' line each (ns since the run's\n"
        "start by wall time, then by the thread's CPU time; the\n"
        "collector's work units)"}}}},
    {{"--host-probe-ms", required, integer}, readInteger<RunOptions, &RunOptions::hostProbeMs, 1, 60000>,
     {{{"--host-probe-ms=N",
        "N ms (1 to 60000) of a bare clock loop before and after the\n"
        "script: the host's longest stall, in the statistics\n"
        "(needs --stats or --stats-file)"}}}},
    {{"--frag-file", required}, path<&RunOptions::fragFile>,
     {{{"--frag-file=PATH",
        "after every collection write the heap's free space to PATH,\n"
        "one tab-separated line: cycle, bytes_allocated, in_use,\n"
        "free, largest_free, then free bytes by block size class\n"
        "free_16, free_32, ... where the policy can enumerate its\n"
        "free blocks (header '# kith-frag 1'; NA where it cannot tell)"}}}},
    {{"--gc-overhead-limit", required, real}, readOverheadLimit,
     {{{"--gc-overhead-limit=PCT|off",
        "thrashing: when between each of the last 5 collections\n"
        "the program allocated under (100-PCT)% of the heap on\n"
        "average (default {default}: 2%), throw out of memory"}}},
     shownOverheadLimit},
    {{"--pretouch", none}, flag<&RunOptions::pretouch>,
     {{{"--pretouch",
        "populate the whole heap at start (Java's -XX:+AlwaysPreTouch),\n"
        "so no allocation pays a first-touch page fault, and the\n"
        "continuous collector's gray stack (room for a gray object\n"
        "per 64 heap bytes), so no slice does; by default they are\n"
        "reserved and their pages touched as first used"}}}},
    {{"--gc-log", none}, flag<&RunOptions::gcLog>,
     {{{"--gc-log", "one line per cycle on stderr, like Java's -Xlog:gc"}}}},
    {{"--gc-stress", optional}, readGcStress,
     {{{"--gc-stress",
        "occasional: a full collection before every allocation;\n"
        "continuous: a slice at every allocation, cycles back to\n"
        "back (testing; slow)"},
       {"--gc-stress=move",
        "as --gc-stress, and before every allocation move the next\n"
        "8 live objects to new blocks (any policy), so a raw object\n"
        "address held across an allocation is caught (testing)"}}}},
    {{"--check-freed", none}, flag<&RunOptions::checkFreed>,
     {{{"--check-freed",
        "poison freed objects and quarantine their handles, so a\n"
        "stale reference fails at once with a clear message (on in\n"
        "debug and sanitizer builds and with --gc-stress)"}}}},
    {{"--fail-alloc", required, integer}, readCount<&RunOptions::failAllocation>,
     {{{"--fail-alloc=N",
        "the N-th allocation request fails as if the heap were full,\n"
        "once; --fail-alloc-every=N: every N-th (testing)"}}}},
    {{"--fail-alloc-every", required, integer}, readCount<&RunOptions::failAllocationEvery>},
    {{"--max-depth", required, integer}, readInteger<RunOptions, &RunOptions::maxDepth, 1, 1000000>,
     {{{"--max-depth=N", "call-depth limit, 1 to 1000000 (default {default})"}}},
     shownNumber<RunOptions, &RunOptions::maxDepth>},
    statsRow({"--stats", optional},
             {{{"--stats",
                "a statistics table on stderr after the run: every block of\n"
                "the JSON (heap, gc, locality, handle table, vm), grouped"},
               {"--stats=json", "the statistics as one JSON object on stderr"}}}),
    statsRow({"--stats-file", required}, {{{"--stats-file=PATH", "write the JSON statistics to PATH"}}}),
    statsRow({"--stats-timers", required},
             {{{"--stats-timers=on|off",
                "on (default): time every malloc and free (alloc_ns,\n"
                "free_ns; two clock reads each); off: keep every count,\n"
                "read no clock per operation (for timed runs)"}}}),
    statsRow({"--stats-sources", required},
             {{{"--stats-sources=on|off",
                "on (default): split the requests met immediately into\n"
                "recycled (a free's block) and leftover (a block no free had\n"
                "returned: a split's rest), heap.immediate_source; off: not\n"
                "tracked (null), and counting costs no more than without\n"
                "it (for timed runs). Without\n"
                "--stats or --stats-file the heap keeps only its bytes in\n"
                "use (what the collectors read), unless --frag-file or the\n"
                "script (System.heapStats(), or any import) may show counts"}}}),
    {{"--trace", required}, path<&RunOptions::tracePath>,
     {{{"--trace=PATH",
        "record every allocation and free to PATH, for kith replay;\n"
        "binary (compact, fast) unless PATH ends in .txt; - is\n"
        "standard output (mixed with what the script prints)"}}}},
    {{"--trace-format", required}, readTraceFormat,
     {{{"--trace-format=F",
        "--trace's format, binary or text, whatever PATH ends in\n"
        "(kith trace dump prints a binary trace as text)"}}}},
    {{"--compiler-heap", required}, readCompilerHeap,
     {{{"--compiler-heap=H",
        "experiment knob: the heap of the compiler's scratch data:\n"
        "zone (default; a region freed when compilation ends),\n"
        "reap, lea or malloc (each piece freed when done); also\n"
        "for disasm. The bytecode is the same with every H"}}},
     [](const RunOptions& o) { return std::string(vm::compilerHeapName(o.compilerHeap)); }},
    {{"--compile-only", none}, flag<&RunOptions::compileOnly>,
     {{{"--compile-only", "compile the script, report its errors, and stop"}}}},
    {{"--compiler-stats", none}, flag<&RunOptions::compilerStats>,
     {{{"--compiler-stats",
        "one JSON line on stderr: the compile's seconds and the\n"
        "scratch bytes held (peak, mean over requests)"}}}},
};

constexpr Row kDisasmOptionRows[] = {{{"--compiler-heap", required}, readCompilerHeap}};

bool wasGiven(const CommandLine& line, std::string_view name) {
  for (const GivenOption& option : line.options)
    if (option.name == name) return true;
  return false;
}

}  // namespace

OptionTable<RunOptions> runOptionTable() { return kRunOptionRows; }

const std::vector<OptionSpec>& runOptionSpecs() {
  static const std::vector<OptionSpec> specs = optionSpecs(runOptionTable());
  return specs;
}

std::string runOptionsHelp() { return "options of run:\n" + optionsHelp(runOptionTable()) + "\n"; }

OptionTable<RunOptions> disasmOptionTable() { return kDisasmOptionRows; }

const std::vector<OptionSpec>& disasmOptionSpecs() {
  static const std::vector<OptionSpec> specs = optionSpecs(disasmOptionTable());
  return specs;
}

std::optional<int> parseRunOptions(const std::vector<std::string_view>& args, RunOptions& options,
                                   std::string_view command) {
  // A stand-in for the script is an operand whatever comes before it: `kith repl
  // --heap-size` is an option without its value, not a size named "<repl>".
  bool standIn = !args.empty() && args.back() == kNoScriptStandIn;
  CommandLine line;
  if (auto exit = readCommandLine(command, runOptionSpecs(), {args.begin(), args.end() - standIn},
                                  OperandPlacement::endsOptions, line))
    return exit;
  if (standIn) line.operands.push_back(args.back());
  if (line.help) return usageError("--help comes first: kith run --help");  // the kith command prints it
  if (auto exit = readOptions(runOptionTable(), line.options, options)) return exit;
  bool formatGiven = wasGiven(line, "--trace-format");  // else by --trace's extension
  if (formatGiven && options.tracePath.empty())
    return usageError("--trace-format is the format of --trace's file; it needs --trace=PATH too");
  if (line.operands.empty()) return usageError("'run' needs a script: kith run [OPTIONS] FILE.kith [ARGS...]");
  if (!formatGiven) options.traceFormat = heap::traceFormatForPath(options.tracePath);
  options.script = std::string(line.operands[0]);
  for (std::size_t i = 1; i < line.operands.size(); ++i) options.args.emplace_back(line.operands[i]);
  return std::nullopt;
}

}  // namespace kith::cli
