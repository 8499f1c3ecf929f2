// PauseRecorder: every interval the collector held the mutator up (a full cycle, or
// one slice of an incremental one), summarised in constant memory: the pause
// histogram (total, mean, p99, max) and the minimum mutator utilization (MMU,
// Cheng & Blelloch 2001) over windows of 1, 10 and 100 ms.
//
// MMU(w) = min over windows [t, t+w] inside the run of (w - GC time in it) / w.
// The worst window can always be slid until it ends where a pause ends (sliding a
// window whose right edge is in mutator time to the left never loses GC time), or
// until it starts at the run's start. So it suffices to look at the window ending
// at each pause's end — kept online with a queue of the pauses that overlap it —
// and at the run's first window; pauses arrive in time order and never overlap.
// A run shorter than w counts as one window of its own length.
//
// With keepAll(), every pause is also kept (16 bytes each) so that the run can write
// the whole list (`kith run --gc-pauses-file`, writePauseList below) for pause
// distributions and MMU curves over any window (`kith study`).
#pragma once

#include <algorithm>
#include <array>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <deque>
#include <string_view>
#include <vector>

#include "heap/statistics/latency_histogram.h"
#include "vm/collector.h"

namespace kith::gc {

class PauseRecorder {
 public:
  using Clock = std::chrono::steady_clock;
  static constexpr std::array<std::uint64_t, 3> kWindowsNs = {1'000'000, 10'000'000, 100'000'000};

  explicit PauseRecorder(Clock::time_point start = Clock::now()) : start_(start) {}
  void setStartTime(Clock::time_point start) { start_ = start; }
  Clock::time_point startTime() const { return start_; }

  // One pause, from `begin` to `end` (in time order, not overlapping the last).
  void record(Clock::time_point begin, Clock::time_point end) {
    std::uint64_t b = sinceStart(begin), e = std::max(sinceStart(end), b);
    b = std::max(b, lastEnd_);  // clock granularity: never overlap the previous pause
    e = std::max(e, b);
    lastEnd_ = e;
    if (keepAll_) all_.push_back({b, e});
    histogram_.record(e - b);
    totalNs_ += e - b;
    for (std::size_t i = 0; i < kWindowsNs.size(); ++i) windows_[i].add(b, e, kWindowsNs[i]);
  }

  struct Interval {
    std::uint64_t begin, end;  // ns since the start time
  };

  // Keep every pause from now on (for writePauseList).
  void keepAll() { keepAll_ = true; }
  const std::vector<Interval>& pauses() const { return all_; }

  // The kept pauses as text: a `# kith-gc-pauses 1` line, `# collector NAME`,
  // `# run_ns N` (the run's length, from the start time to `end`), then one pause per
  // line, `START_NS DURATION_NS`, in time order. Returns false on a write error.
  bool writePauseList(std::FILE* out, std::string_view collector, Clock::time_point end) const {
    std::fprintf(out, "# kith-gc-pauses 1\n# collector %.*s\n# run_ns %llu\n# start_ns duration_ns\n",
                 static_cast<int>(collector.size()), collector.data(),
                 static_cast<unsigned long long>(std::max(sinceStart(end), lastEnd_)));
    for (const Interval& p : all_)
      std::fprintf(out, "%llu %llu\n", static_cast<unsigned long long>(p.begin),
                   static_cast<unsigned long long>(p.end - p.begin));
    return std::ferror(out) == 0;
  }

  const heap::LatencyHistogram& histogram() const { return histogram_; }
  std::uint64_t totalNs() const { return totalNs_; }

  // Fills the pause and MMU fields of `s`; the run ends at `end`.
  void fill(vm::CollectorStatistics& s, Clock::time_point end) const {
    heap::LatencySummary pauses = histogram_.summary();
    s.pauseTotalMs = static_cast<double>(totalNs_) / 1e6;
    s.pauseMeanMs = pauses.mean / 1e6;
    s.pauseP99Ms = pauses.p99 / 1e6;
    s.pauseMaxMs = pauses.max / 1e6;
    std::uint64_t runNs = std::max<std::uint64_t>(sinceStart(end), 1);
    double mmu[3];
    for (std::size_t i = 0; i < kWindowsNs.size(); ++i) {
      std::uint64_t w = kWindowsNs[i];
      if (runNs <= w) {
        mmu[i] = 1.0 - static_cast<double>(std::min(totalNs_, runNs)) / static_cast<double>(runNs);
        continue;
      }
      std::uint64_t worst = std::max(windows_[i].worstGcNs, windows_[i].firstWindowGcNs);
      mmu[i] = 1.0 - static_cast<double>(std::min(worst, w)) / static_cast<double>(w);
    }
    s.mmu1ms = mmu[0];
    s.mmu10ms = mmu[1];
    s.mmu100ms = mmu[2];
  }

 private:
  struct Window {
    std::deque<Interval> pauses;  // the pauses overlapping (last end - w, last end]
    std::uint64_t gcNs = 0;       // their whole lengths
    std::uint64_t worstGcNs = 0;  // most GC time in a window ending at a pause's end
    std::uint64_t firstWindowGcNs = 0;  // GC time in [0, w]

    void add(std::uint64_t b, std::uint64_t e, std::uint64_t w) {
      if (b < w) firstWindowGcNs += std::min(e, w) - b;
      pauses.push_back({b, e});
      gcNs += e - b;
      if (e < w) return;  // the window ending here would start before the run: [0, w] covers it
      std::uint64_t from = e - w;
      while (!pauses.empty() && pauses.front().end <= from) {
        gcNs -= pauses.front().end - pauses.front().begin;
        pauses.pop_front();
      }
      std::uint64_t inWindow = gcNs;
      if (!pauses.empty() && pauses.front().begin < from) inWindow -= from - pauses.front().begin;
      worstGcNs = std::max(worstGcNs, inWindow);
    }
  };

  std::uint64_t sinceStart(Clock::time_point t) const {
    auto ns = std::chrono::duration_cast<std::chrono::nanoseconds>(t - start_).count();
    return ns > 0 ? static_cast<std::uint64_t>(ns) : 0;
  }

  Clock::time_point start_;
  heap::LatencyHistogram histogram_;
  std::uint64_t totalNs_ = 0;
  std::uint64_t lastEnd_ = 0;
  std::array<Window, 3> windows_;
  bool keepAll_ = false;
  std::vector<Interval> all_;
};

}  // namespace kith::gc
