// PauseRecorder: every interval the collector held the mutator up (a full cycle, or
// one slice of an incremental one), measured on two clocks (pause_stamp.h) and
// summarised in constant memory on each (pause_timeline.h: the pause histogram and
// the minimum mutator utilization over windows of 1, 10 and 100 ms): the wall clock,
// what the mutator waited, and the thread's CPU clock, the collector's own work
// without the time the host took away — whose MMU is over windows of the thread's
// CPU time. Per pause, wall - CPU is the time taken from the thread during it: the
// largest such gap is kept, and the pauses longer than kLongPauseNs by wall time
// but not by CPU time are counted (made long by the host, not by the collector).
//
// With keepAll(), every pause is also kept (both clocks and the work units it did)
// so that the run can write the whole list (`kith run --gc-pauses-file`,
// writePauseList below) for pause distributions and MMU curves over any window
// (`kith study`).
#pragma once

#include <algorithm>
#include <array>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <string_view>
#include <vector>

#include "gc/pause_stamp.h"
#include "gc/pause_timeline.h"
#include "heap/statistics/latency_histogram.h"
#include "vm/collector.h"

namespace kith::gc {

class PauseRecorder {
 public:
  using Clock = std::chrono::steady_clock;
  static constexpr std::array<std::uint64_t, 3> kWindowsNs = PauseTimeline::kWindowsNs;
  // The continuous collector's target for a slice: a pause longer than this by wall
  // time and not by CPU time was made long by the host.
  static constexpr std::uint64_t kLongPauseNs = 100'000;
  static constexpr int kPauseFileVersion = 2;

  // The wall clock's origin is `start`; the CPU clock's is the thread's CPU time now
  // (it has no reading of the past).
  explicit PauseRecorder(Clock::time_point start = Clock::now()) { setStartTime(start); }
  // Whether the pauses' stamps carry the thread's CPU time (the collector reads that
  // clock: CollectorOptions::measureCpuTime). Without it the CPU fields stay unset.
  void setMeasuresCpuTime(bool on) { measuresCpuTime_ = on; }
  bool measuresCpuTime() const { return measuresCpuTime_; }
  void setStartTime(Clock::time_point start) { setStartTime(PauseStamp{start, threadCpuNs()}); }
  void setStartTime(const PauseStamp& start) {
    start_ = start.wall;
    cpuStart_ = start.cpuNs;
  }
  Clock::time_point startTime() const { return start_; }

  // One pause, from `begin` to `end` (in time order, not overlapping the last), that
  // did `work` work units (the collector's: continuous_collector.h).
  void record(const PauseStamp& begin, const PauseStamp& end, std::uint64_t work = 0) {
    PauseTimeline::Interval w = wall_.record(sinceStart(begin.wall), sinceStart(end.wall));
    PauseTimeline::Interval c = cpu_.record(cpuSinceStart(begin.cpuNs), cpuSinceStart(end.cpuNs));
    const std::uint64_t wallNs = w.end - w.begin, cpuNs = c.end - c.begin;
    const std::uint64_t gap = wallNs > cpuNs ? wallNs - cpuNs : 0;
    maxHostGapNs_ = std::max(maxHostGapNs_, gap);
    if (wallNs > kLongPauseNs && cpuNs <= kLongPauseNs) ++longByHost_;
    if (keepAll_) all_.push_back({w.begin, w.end, c.begin, c.end, work});
  }

  struct Pause {
    std::uint64_t begin, end;        // wall clock: ns since the start time
    std::uint64_t cpuBegin, cpuEnd;  // the thread's CPU clock: ns since the start time
    std::uint64_t work;              // work units
  };

  // Keep every pause from now on (for writePauseList).
  void keepAll() { keepAll_ = true; }
  const std::vector<Pause>& pauses() const { return all_; }

  // The kept pauses as text (format version 2): `# kith-gc-pauses 2`,
  // `# collector NAME`, `# run_ns N` and `# run_cpu_ns N` (the run's length on each
  // clock, from the start time to `end`), the column names, then one pause per line,
  // `START_NS DURATION_NS CPU_START_NS CPU_NS WORK`, in time order. Version 1 had
  // the first two columns only. Returns false on a write error.
  bool writePauseList(std::FILE* out, std::string_view collector, const PauseStamp& end) const {
    writePauseListHeader(out, collector, std::max(sinceStart(end.wall), wall_.lastEnd()),
                         std::max(cpuSinceStart(end.cpuNs), cpu_.lastEnd()));
    for (const Pause& p : all_)
      std::fprintf(out, "%llu %llu %llu %llu %llu\n", static_cast<unsigned long long>(p.begin),
                   static_cast<unsigned long long>(p.end - p.begin), static_cast<unsigned long long>(p.cpuBegin),
                   static_cast<unsigned long long>(p.cpuEnd - p.cpuBegin), static_cast<unsigned long long>(p.work));
    return std::ferror(out) == 0;
  }
  // The header alone: a list with no pauses (a run without a collector of its own).
  static void writePauseListHeader(std::FILE* out, std::string_view collector, std::uint64_t runNs,
                                   std::uint64_t runCpuNs) {
    std::fprintf(out, "# kith-gc-pauses %d\n# collector %.*s\n# run_ns %llu\n# run_cpu_ns %llu\n"
                 "# start_ns duration_ns cpu_start_ns cpu_ns work\n",
                 kPauseFileVersion, static_cast<int>(collector.size()), collector.data(),
                 static_cast<unsigned long long>(runNs), static_cast<unsigned long long>(runCpuNs));
  }

  const heap::LatencyHistogram& histogram() const { return wall_.histogram(); }
  const heap::LatencyHistogram& cpuHistogram() const { return cpu_.histogram(); }
  std::uint64_t totalNs() const { return wall_.totalNs(); }

  // Fills the pause, MMU and host-gap fields of `s`, on both clocks; the run ends at `end`.
  void fill(vm::CollectorStatistics& s, const PauseStamp& end) const {
    s.wall = wall_.summary(sinceStart(end.wall));
    if (!measuresCpuTime_) return;
    s.cpu = cpu_.summary(cpuSinceStart(end.cpuNs));
    s.pauseHostGapMaxMs = static_cast<double>(maxHostGapNs_) / 1e6;
    s.pausesLongByHost = static_cast<std::int64_t>(longByHost_);
  }

 private:
  std::uint64_t sinceStart(Clock::time_point t) const {
    auto ns = std::chrono::duration_cast<std::chrono::nanoseconds>(t - start_).count();
    return ns > 0 ? static_cast<std::uint64_t>(ns) : 0;
  }
  std::uint64_t cpuSinceStart(std::uint64_t cpuNs) const { return cpuNs > cpuStart_ ? cpuNs - cpuStart_ : 0; }

  Clock::time_point start_;
  std::uint64_t cpuStart_ = 0;
  PauseTimeline wall_, cpu_;
  std::uint64_t maxHostGapNs_ = 0, longByHost_ = 0;
  bool keepAll_ = false;
  bool measuresCpuTime_ = true;
  std::vector<Pause> all_;
};

}  // namespace kith::gc
