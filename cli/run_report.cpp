#include "cli/run_report.h"

#include <cstdio>

#include "cli/json_writer.h"
#include "gc/continuous_collector.h"
#include "gc/occasional_collector.h"
#include "heap/statistics/statistics_report.h"

namespace kith::cli {

namespace {

using u64 = std::uint64_t;

void writePauses(JsonWriter& w, const vm::CollectorStatistics& gc) {
  w.key("pause_ms").beginObject().key("total").number(gc.pauseTotalMs).key("mean").number(gc.pauseMeanMs);
  w.key("p99").number(gc.pauseP99Ms).key("max").number(gc.pauseMaxMs).endObject();
  if (gc.mmu1ms >= 0) {
    w.lineBreak(2).key("mmu").beginObject().key("1ms").number(gc.mmu1ms).key("10ms").number(gc.mmu10ms);
    w.key("100ms").number(gc.mmu100ms).endObject();
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
void writeParameters(JsonWriter& w, const RunOptions& o, CollectorChoice collector) {
  if (collector == CollectorChoice::continuous) {
    const gc::ContinuousCollectorOptions defaults;
    const double start = o.gcThreshold > 0 ? o.gcThreshold : defaults.startOccupancy;
    const u64 step = o.gcStep > 0 ? o.gcStep : defaults.workPerSlice;
    const double pacingFraction = static_cast<double>(gc::ContinuousCollector::kPacingNumerator) /
                                  static_cast<double>(gc::ContinuousCollector::kPacingDivisor);
    w.lineBreak(2).key("parameters").beginObject().key("work_per_slice").number(step);
    w.key("start_occupancy").number(start).key("pacing").string(pacingName(o.gcPacing));
    w.key("pacing_fraction").number(pacingFraction);
    w.key("min_slice_bytes").number(u64{gc::ContinuousCollector::kMinSliceBytes}).endObject();
  } else if (collector == CollectorChoice::occasional) {
    const double threshold = o.gcThreshold > 0 ? o.gcThreshold : gc::OccasionalCollectorOptions::kDefaultThreshold;
    w.lineBreak(2).key("parameters").beginObject().key("occupancy_threshold").number(threshold).endObject();
  }
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
  w.endObject();
  return w.text() + "\n";
}

std::string runStatisticsTable(const RunReport& r) {
  char head[512], tail[2048];
  std::snprintf(head, sizeof head, "--- kith statistics ---\npolicy              %s (heap %zu bytes), collector %s\n",
                r.options->heapPolicy.c_str(), r.options->heapSize, std::string(r.collector).c_str());
  std::snprintf(tail, sizeof tail,
                "gc cycles           %llu (%llu objects, %llu bytes freed)\n"
                "gc pauses ms        total %.3f, mean %.4f, p99 %.4f, max %.4f\n"
                "handle table        %zu bytes in %zu chunks, %zu live (outside the heap)\n"
                "instructions        %llu\n"
                "objects created     %llu\n"
                "wall time           %.3f s (set-up %.3f s, arena %.3f s, not included)\n",
                (unsigned long long)r.gc.cycles, (unsigned long long)r.gc.objectsFreed,
                (unsigned long long)r.gc.bytesFreed, r.gc.pauseTotalMs, r.gc.pauseMeanMs, r.gc.pauseP99Ms,
                r.gc.pauseMaxMs, r.handleBytes, r.handleChunks, r.handlesLive, (unsigned long long)r.instructions,
                (unsigned long long)r.objectsCreated, r.wallSeconds, r.startupSeconds, r.arenaSeconds);
  return head + heap::heapStatisticsTable(r.heap) + tail;
}

}  // namespace kith::cli
