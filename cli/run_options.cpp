#include "cli/run_options.h"

#include "cli/byte_size.h"
#include "cli/option_value.h"
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

bool RunOptions::collectorOptionsGiven() const {
  return collector != CollectorChoice::occasional || gcStress || gcLog || gcThreshold > 0 || gcStep > 0 ||
         gcPacing != gc::GcPacing::time;
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
      return usageError("unknown heap policy '" + options.heapPolicy + "'; valid: " + heap::policyNames());
  } else if (a.starts_with("--heap-size=")) {
    auto size = parseByteSize(a.substr(12));
    if (!size) return usageError("--heap-size wants a size like 512K, 64M, 2G or 1T; got '" + value("--heap-size=") + "'");
    if (*size < (16u << 10)) return usageError("--heap-size must be at least 16K; got '" + value("--heap-size=") + "'");
    options.heapSize = *size;
  } else if (a.starts_with("--gc=")) {
    std::optional<CollectorChoice> collector = collectorNamed(a.substr(5));
    if (!collector) return usageError("unknown collector '" + value("--gc=") + "'; valid: occasional, continuous, none");
    options.collector = *collector;
  } else if (a.starts_with("--max-depth=")) {
    return readIntegerOption("--max-depth", a.substr(12), 1, 1000000, options.maxDepth);
  } else if (auto taken = readStatisticsOption(a, options.statistics)) {
    return *taken == kExitOk ? std::nullopt : taken;
  } else if (a.starts_with("--trace=") && a.size() > 8) {
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
  } else if (a.starts_with("--gc-pauses-file=") && a.size() > 17) {
    options.gcPausesFile = value("--gc-pauses-file=");
  } else if (a.starts_with("--frag-file=") && a.size() > 12) {
    options.fragFile = value("--frag-file=");
  } else if (a == "--gc-log") {
    options.gcLog = true;
  } else if (a == "--gc-stress") {
    options.gcStress = true;
  } else if (a == "--gc-stress=move") {
    options.gcStress = true;
    options.moveObjects = true;
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
  } else {
    return usageError("unknown option for 'run': " + std::string(a));
  }
  return std::nullopt;
}

}  // namespace

std::optional<int> parseRunOptions(const std::vector<std::string_view>& args, RunOptions& options) {
  std::optional<heap::TraceFormat> traceFormat;  // else by --trace's extension
  std::size_t i = 0;
  for (; i < args.size() && args[i].starts_with("--"); ++i)
    if (auto exit = readRunOption(args[i], options, traceFormat)) return exit;
  if (i == args.size()) return usageError("'run' needs a script: kith run [OPTIONS] FILE.kith [ARGS...]");
  options.traceFormat = traceFormat.value_or(heap::traceFormatForPath(options.tracePath));
  options.script = std::string(args[i]);
  for (++i; i < args.size(); ++i) options.args.emplace_back(args[i]);
  return std::nullopt;
}

}  // namespace kith::cli
