#include "cli/run_report.h"

#include <cstdio>
#include <string>
#include <vector>

#include "cli/json_writer.h"
#include "gc/continuous_collector.h"
#include "gc/occasional_collector.h"
#include "heap/statistics/statistics_report.h"

namespace kith::cli {

namespace {

using u64 = std::uint64_t;

void writePauseFigures(JsonWriter& w, const char* name, const vm::PauseFigures& f) {
  w.key(name).beginObject().key("total").number(f.totalMs).key("mean").number(f.meanMs);
  w.key("p99").number(f.p99Ms).key("max").number(f.maxMs).endObject();
}

void writeMmu(JsonWriter& w, const char* name, const vm::PauseFigures& f) {
  w.key(name).beginObject().key("1ms").number(f.mmu[0]).key("10ms").number(f.mmu[1]);
  w.key("100ms").number(f.mmu[2]).endObject();
}

// Whether the collector measured its pauses on the thread's CPU clock too (the VM's
// collectors do; none and boehm's do not, and keep to the contract's keys).
bool measuredCpuTime(const vm::CollectorStatistics& gc) { return gc.pausesLongByHost >= 0; }

// The pauses by wall time and by the thread's CPU time (gc/pause_stamp.h), and
// what the host took from the thread during them.
void writePauses(JsonWriter& w, const vm::CollectorStatistics& gc) {
  writePauseFigures(w, "pause_ms", gc.wall);
  const bool cpu = measuredCpuTime(gc);
  if (cpu) writePauseFigures(w, "pause_cpu_ms", gc.cpu);
  if (gc.wall.measuresMmu()) writeMmu(w.lineBreak(2), "mmu", gc.wall);
  if (cpu && gc.cpu.measuresMmu()) writeMmu(w, "mmu_cpu", gc.cpu);
  if (cpu) {
    w.lineBreak(2).key("host_gap").beginObject().key("max_ms").number(gc.pauseHostGapMaxMs);
    w.key("pauses_long_by_host").number(static_cast<u64>(gc.pausesLongByHost)).endObject();
  }
}

// The counters only some collectors keep (< 0: not kept, left out).
void writeOptionalCounts(JsonWriter& w, const vm::CollectorStatistics& gc) {
  for (auto [name, count] : {std::pair{"forced_completions", gc.forcedCompletions}, std::pair{"slices", gc.slices},
                             std::pair{"deferred_slices", gc.deferredSlices},
                             std::pair{"peak_live_bytes", gc.peakLiveBytes}})
    if (count >= 0) w.key(name).number(static_cast<u64>(count));
}

// The collector's parameters beside its counts: a count means little without the
// schedule that produced it (the study records them next to every number).
struct Parameter {
  const char* name;
  double number = 0;
  bool integer = false;
  std::string_view text = {};  // a named setting rather than a number
};

std::vector<Parameter> collectorParameters(const RunOptions& o, CollectorChoice collector) {
  if (collector == CollectorChoice::continuous) {
    const gc::ContinuousCollectorOptions defaults;
    const double pacingFraction = static_cast<double>(gc::ContinuousCollector::kPacingNumerator) /
                                  static_cast<double>(gc::ContinuousCollector::kPacingDivisor);
    const std::size_t workPerSlice = o.gcStep > 0 ? o.gcStep : gc::ContinuousCollectorOptions::defaultWorkPerSlice(o.gcPacing);
    return {{"work_per_slice", static_cast<double>(workPerSlice), true},
            {"start_occupancy", o.gcThreshold > 0 ? o.gcThreshold : defaults.startOccupancy},
            {"pacing", 0, false, pacingName(o.gcPacing)},
            {"pacing_fraction", pacingFraction},
            {"min_slice_bytes", static_cast<double>(gc::ContinuousCollector::kMinSliceBytes), true}};
  }
  if (collector == CollectorChoice::occasional)
    return {{"occupancy_threshold",
             o.gcThreshold > 0 ? o.gcThreshold : gc::OccasionalCollectorOptions::kDefaultThreshold}};
  return {};
}

void writeParameters(JsonWriter& w, const RunOptions& o, CollectorChoice collector) {
  std::vector<Parameter> parameters = collectorParameters(o, collector);
  if (parameters.empty()) return;
  w.lineBreak(2).key("parameters").beginObject();
  for (const Parameter& p : parameters) {
    w.key(p.name);
    if (!p.text.empty())
      w.string(p.text);
    else if (p.integer)
      w.number(static_cast<u64>(p.number));
    else
      w.number(p.number);
  }
  w.endObject();
}

void writeGc(JsonWriter& w, const RunReport& r) {
  const vm::CollectorStatistics& gc = r.gc;
  w.key("gc").beginObject().key("cycles").number(gc.cycles).key("objects_freed").number(gc.objectsFreed);
  w.key("bytes_freed").number(gc.bytesFreed);
  writePauses(w, gc);
  writeOptionalCounts(w, gc);
  if (r.vmCollector == CollectorChoice::continuous) w.key("pacing").string(pacingName(r.options->gcPacing));
  if (r.vmCollector) writeParameters(w, *r.options, *r.vmCollector);
  w.endObject();
}

void writeLocality(JsonWriter& w, const vm::LocalityStatistics& loc) {
  const double pagesTouchedMean =
      loc.cycles ? static_cast<double>(loc.pagesTouchedTotal) / static_cast<double>(loc.cycles) : 0.0;
  w.key("locality").beginObject().key("cycles").number(loc.cycles).key("references").number(loc.references);
  w.key("same_line").number(loc.sameLine).key("same_page").number(loc.samePage).key("k_close").number(loc.kClose);
  w.key("far").number(loc.far).key("pages_touched_mean").number(pagesTouchedMean);
  w.key("pages_touched_max").number(loc.pagesTouchedMax).endObject();
}

// The longest gaps of a probe on each clock, and how many passed 100 µs.
void writeHostProbeGaps(JsonWriter& w, const HostProbe& p) {
  w.key("longest_gap_ms").number(static_cast<double>(p.longestGapNs) / 1e6);
  w.key("gaps_over_100us").number(p.gapsOverLongGap);
  w.key("longest_cpu_gap_ms").number(static_cast<double>(p.longestCpuGapNs) / 1e6);
  w.key("cpu_gaps_over_100us").number(p.cpuGapsOverLongGap);
}

// --host-probe-ms: both loops' gaps, and each loop's with its readings.
void writeHostProbe(JsonWriter& w, const HostProbeReport& probe) {
  w.key("host_probe").beginObject().key("ms").number(u64{probe.ms});
  writeHostProbeGaps(w, probe.before.merged(probe.after));
  for (auto [name, loop] : {std::pair{"before", &probe.before}, std::pair{"after", &probe.after}}) {
    w.key(name).beginObject();
    writeHostProbeGaps(w, *loop);
    w.key("readings").number(loop->readings).endObject();
  }
  w.endObject();
}

}  // namespace

std::string runStatisticsJson(const RunReport& r) {
  JsonWriter w;
  w.beginObject().key("policy").string(r.options->heapPolicy).key("collector").string(r.collector);
  w.key("heap_size").number(u64{r.options->heapSize});
  w.lineBreak(1).key("heap").json(heap::heapStatisticsJson(r.heap));
  w.lineBreak(1);
  writeGc(w, r);
  w.lineBreak(1);
  writeLocality(w, r.gc.locality);
  w.lineBreak(1).key("handle_table").beginObject().key("bytes").number(u64{r.handleBytes});
  w.key("chunks").number(u64{r.handleChunks}).key("live").number(u64{r.handlesLive}).endObject();
  w.lineBreak(1).key("vm").beginObject().key("instructions").number(r.instructions);
  w.key("objects_created").number(r.objectsCreated).key("wall_s").number(r.wallSeconds);
  w.key("startup_s").number(r.startupSeconds).key("arena_s").number(r.arenaSeconds).endObject();
  if (r.hostProbe) writeHostProbe(w.lineBreak(1), *r.hostProbe);
  w.endObject();
  return w.text() + "\n";
}

namespace {

using heap::statisticsTableLine;

std::string formatted(const char* pattern, auto... values) {
  char buf[256];
  std::snprintf(buf, sizeof buf, pattern, values...);
  return buf;
}

// "a_name" as "a name", for a JSON member's name in the table.
std::string spaced(std::string_view name) {
  std::string out(name);
  for (char& c : out)
    if (c == '_') c = ' ';
  return out;
}

std::string pauseFiguresText(const vm::PauseFigures& f) {
  return formatted("total %.3f, mean %.4f, p99 %.4f, max %.4f", f.totalMs, f.meanMs, f.p99Ms, f.maxMs);
}

std::string mmuText(const vm::PauseFigures& f) {
  return formatted("1ms %.3f, 10ms %.3f, 100ms %.3f", f.mmu[0], f.mmu[1], f.mmu[2]);
}

std::string gcTable(const RunReport& r) {
  const vm::CollectorStatistics& gc = r.gc;
  auto u = [](u64 v) { return static_cast<unsigned long long>(v); };
  std::string out = "gc\n";
  out += statisticsTableLine("cycles", formatted("%llu (%llu objects, %llu bytes freed)", u(gc.cycles),
                                                 u(gc.objectsFreed), u(gc.bytesFreed)));
  out += statisticsTableLine("pauses ms", pauseFiguresText(gc.wall));
  const bool cpu = measuredCpuTime(gc);
  if (cpu) out += statisticsTableLine("pauses cpu ms", pauseFiguresText(gc.cpu));
  if (gc.wall.measuresMmu()) out += statisticsTableLine("mmu", mmuText(gc.wall));
  if (cpu && gc.cpu.measuresMmu()) out += statisticsTableLine("mmu cpu", mmuText(gc.cpu));
  if (cpu)
    out += statisticsTableLine("host gap",
                               formatted("max %.4f ms; %lld pauses over 0.1 ms by wall time only",
                                         gc.pauseHostGapMaxMs, static_cast<long long>(gc.pausesLongByHost)));
  std::string counts;
  for (auto [name, count] : {std::pair{"slices", gc.slices}, std::pair{"deferred_slices", gc.deferredSlices},
                             std::pair{"forced_completions", gc.forcedCompletions},
                             std::pair{"peak_live_bytes", gc.peakLiveBytes}})
    if (count >= 0) counts += (counts.empty() ? "" : ", ") + spaced(name) + " " + std::to_string(count);
  if (!counts.empty()) out += statisticsTableLine("counts", counts);
  std::string parameters;
  if (r.vmCollector)
    for (const Parameter& p : collectorParameters(*r.options, *r.vmCollector)) {
      std::string value = !p.text.empty() ? std::string(p.text)
                          : p.integer     ? std::to_string(static_cast<u64>(p.number))
                                          : heap::jsonNumber(p.number);
      parameters += (parameters.empty() ? "" : ", ") + spaced(p.name) + " " + value;
    }
  if (!parameters.empty()) out += statisticsTableLine("parameters", parameters);
  return out;
}

std::string localityTable(const vm::LocalityStatistics& loc) {
  auto u = [](u64 v) { return static_cast<unsigned long long>(v); };
  const double pagesTouchedMean =
      loc.cycles ? static_cast<double>(loc.pagesTouchedTotal) / static_cast<double>(loc.cycles) : 0.0;
  return "locality\n" +
         statisticsTableLine("references", formatted("%llu in %llu cycles: same line %llu, same page %llu, "
                                                     "k close %llu, far %llu",
                                                     u(loc.references), u(loc.cycles), u(loc.sameLine),
                                                     u(loc.samePage), u(loc.kClose), u(loc.far))) +
         statisticsTableLine("pages touched", formatted("mean %.1f, max %llu a cycle", pagesTouchedMean,
                                                        u(loc.pagesTouchedMax)));
}

std::string hostProbeTable(const HostProbeReport& probe) {
  auto loop = [](const HostProbe& p) {
    return formatted("longest gap %.4f ms, %llu gaps over 0.1 ms; by CPU time %.4f ms, %llu",
                     static_cast<double>(p.longestGapNs) / 1e6, static_cast<unsigned long long>(p.gapsOverLongGap),
                     static_cast<double>(p.longestCpuGapNs) / 1e6,
                     static_cast<unsigned long long>(p.cpuGapsOverLongGap));
  };
  return "host probe (" + std::to_string(probe.ms) + " ms of a bare clock loop before and after)\n" +
         statisticsTableLine("before", loop(probe.before)) + statisticsTableLine("after", loop(probe.after));
}

}  // namespace

std::string runStatisticsTable(const RunReport& r) {
  std::string out = "--- kith statistics ---\n";
  out += formatted("policy              %s (heap %zu bytes), collector %s\n", r.options->heapPolicy.c_str(),
                   r.options->heapSize, std::string(r.collector).c_str());
  out += heap::heapStatisticsTable(r.heap) + gcTable(r) + localityTable(r.gc.locality);
  out += "handle table (outside the heap)\n" +
         statisticsTableLine("slots", formatted("%zu bytes in %zu chunks, %zu live", r.handleBytes, r.handleChunks,
                                                r.handlesLive));
  out += "vm\n" + statisticsTableLine("instructions", std::to_string(r.instructions)) +
         statisticsTableLine("objects created", std::to_string(r.objectsCreated)) +
         statisticsTableLine("wall time", formatted("%.3f s (set-up %.3f s, arena %.3f s, not included)",
                                                    r.wallSeconds, r.startupSeconds, r.arenaSeconds));
  if (r.hostProbe) out += hostProbeTable(*r.hostProbe);
  return out;
}

}  // namespace kith::cli
