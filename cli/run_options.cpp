#include "cli/run_options.h"

#include "cli/byte_size.h"
#include "cli/option_parser.h"
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

const std::vector<OptionSpec>& runOptionSpecs() {
  using enum OptionArgument;
  using enum OptionValue;
  static const std::vector<OptionSpec> specs = {
      {"--heap", required},
      {"--heap-size", required, size},
      {"--gc", required},
      {"--gc-threshold", required, real},
      {"--gc-step", required, integer},
      {"--gc-pacing", required},
      {"--gc-pauses-file", required},
      {"--host-probe-ms", required, integer},
      {"--frag-file", required},
      {"--gc-overhead-limit", required, real},
      {"--gc-log", none},
      {"--gc-stress", optional},
      {"--pretouch", none},
      {"--check-freed", none},
      {"--fail-alloc", required, integer},
      {"--fail-alloc-every", required, integer},
      {"--max-depth", required, integer},
      {"--stats", optional},
      {"--stats-file", required},
      {"--stats-timers", required},
      {"--stats-sources", required},
      {"--trace", required},
      {"--trace-format", required},
      {"--compiler-heap", required},
      {"--compile-only", none},
      {"--compiler-stats", none},
  };
  return specs;
}

int compilerHeapError(std::string_view name) {
  return usageError("--compiler-heap wants " + std::string(vm::kCompilerHeapNames) + "; got '" +
                    std::string(name) + "'");
}

namespace {

// One option before the script; nullopt when it was taken, else the usage error's exit code.
std::optional<int> readRunOption(std::string_view a, RunOptions& options,
                                 std::optional<heap::TraceFormat>& traceFormat) {
  auto value = [&](std::string_view prefix) { return std::string(a.substr(prefix.size())); };
  if (a.starts_with("--heap=")) {
    options.heapPolicy = value("--heap=");
    if (heap::isReplayBaseline(options.heapPolicy))
      return usageError("--heap=" + options.heapPolicy +
                        " is a replay baseline with no memory behind its blocks: only 'kith replay' takes it");
    if (!heap::isPolicy(options.heapPolicy))
      return usageError("unknown heap policy '" + options.heapPolicy + "'; valid: " + heap::policyNames(),
                        policySuggestion(options.heapPolicy));
  } else if (a.starts_with("--heap-size=")) {
    return readSizeOption("--heap-size", a.substr(12), kMinimumHeapSize, options.heapSize);
  } else if (a.starts_with("--gc=")) {
    std::optional<CollectorChoice> collector = collectorNamed(a.substr(5));
    if (!collector) return usageError("unknown collector '" + value("--gc=") + "'; valid: occasional, continuous, none",
                                        collectorSuggestion(value("--gc=")));
    options.collector = *collector;
  } else if (a.starts_with("--max-depth=")) {
    return readIntegerOption("--max-depth", a.substr(12), 1, 1000000, options.maxDepth);
  } else if (auto taken = readStatisticsOption(a, options.statistics)) {
    return *taken == kExitOk ? std::nullopt : taken;
  } else if (a.starts_with("--stats=")) {
    return usageError("--stats takes no value (a table) or =json; got '" + std::string(a) + "'");
  } else if (a.starts_with("--trace=")) {
    options.tracePath = value("--trace=");
  } else if (a.starts_with("--trace-format=")) {
    std::string format = value("--trace-format=");
    if (format != "binary" && format != "text")
      return usageError("--trace-format wants binary or text; got '" + format + "'");
    traceFormat = format == "text" ? heap::TraceFormat::text : heap::TraceFormat::binary;
  } else if (a.starts_with("--gc-threshold=")) {
    std::optional<double> f = parseReal(a.substr(15));
    if (!f || !(*f > 0 && *f <= 1))
      return usageError("--gc-threshold wants a fraction in (0, 1], like 0.75; got '" + value("--gc-threshold=") + "'");
    options.gcThreshold = *f;
  } else if (a.starts_with("--gc-step=")) {
    return readIntegerOption("--gc-step", a.substr(10), 1, 1000000, options.gcStep);
  } else if (a.starts_with("--gc-pacing=")) {
    std::string pacing = value("--gc-pacing=");
    if (pacing != "time" && pacing != "work") return usageError("--gc-pacing wants time or work; got '" + pacing + "'");
    options.gcPacing = pacing == "work" ? gc::GcPacing::work : gc::GcPacing::time;
  } else if (a.starts_with("--gc-pauses-file=")) {
    options.gcPausesFile = value("--gc-pauses-file=");
  } else if (a.starts_with("--host-probe-ms=")) {
    return readIntegerOption("--host-probe-ms", a.substr(16), 1, 60000, options.hostProbeMs);
  } else if (a.starts_with("--frag-file=")) {
    options.fragFile = value("--frag-file=");
  } else if (a == "--gc-log") {
    options.gcLog = true;
  } else if (a == "--gc-stress") {
    options.gcStress = true;
  } else if (a == "--gc-stress=move") {
    options.gcStress = true;
    options.moveObjects = true;
  } else if (a.starts_with("--gc-stress=")) {
    return usageError("--gc-stress takes no value or =move; got '" + std::string(a) + "'");
  } else if (a == "--pretouch") {
    options.pretouch = true;
  } else if (a == "--check-freed") {
    options.checkFreed = true;
  } else if (a.starts_with("--fail-alloc=") || a.starts_with("--fail-alloc-every=")) {
    bool every = a.starts_with("--fail-alloc-every=");
    std::string_view v = a.substr(a.find('=') + 1);
    std::optional<std::uint64_t> n = parseCount(v);
    if (!n)
      return usageError(std::string(every ? "--fail-alloc-every" : "--fail-alloc") +
                        " wants a count of at least 1; got '" + std::string(v) + "'");
    (every ? options.failAllocationEvery : options.failAllocation) = *n;
  } else if (a.starts_with("--gc-overhead-limit=")) {
    std::string v = value("--gc-overhead-limit=");
    std::optional<double> pct = v == "off" ? 0.0 : parseReal(v);
    if (v != "off" && !(pct && *pct > 0 && *pct <= 100))
      return usageError("--gc-overhead-limit wants a percentage in (0, 100] or off; got '" + v + "'");
    options.gcOverheadLimit = *pct / 100;
  } else if (a.starts_with("--compiler-heap=")) {
    std::optional<vm::CompilerHeap> heap = vm::compilerHeapNamed(value("--compiler-heap="));
    if (!heap) return compilerHeapError(value("--compiler-heap="));
    options.compilerHeap = *heap;
  } else if (a == "--compile-only") {
    options.compileOnly = true;
  } else if (a == "--compiler-stats") {
    options.compilerStats = true;
  } else {
    return usageError("unknown option for 'run': " + std::string(a));
  }
  return std::nullopt;
}

}  // namespace

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
  std::optional<heap::TraceFormat> traceFormat;  // else by --trace's extension
  for (const GivenOption& given : line.options)
    if (auto exit = readRunOption(given.spelling(), options, traceFormat)) return exit;
  if (traceFormat && options.tracePath.empty())
    return usageError("--trace-format is the format of --trace's file; it needs --trace=PATH too");
  if (line.operands.empty()) return usageError("'run' needs a script: kith run [OPTIONS] FILE.kith [ARGS...]");
  options.traceFormat = traceFormat.value_or(heap::traceFormatForPath(options.tracePath));
  options.script = std::string(line.operands[0]);
  for (std::size_t i = 1; i < line.operands.size(); ++i) options.args.emplace_back(line.operands[i]);
  return std::nullopt;
}

}  // namespace kith::cli
