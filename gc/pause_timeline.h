// PauseTimeline: the pauses on one clock's axis (ns since an origin), summarised in
// constant memory as vm::PauseFigures: the pause histogram (total, mean, p99, max)
// and the minimum mutator utilization (MMU, Cheng & Blelloch 2001) over windows of
// 1, 10 and 100 ms.
// PauseRecorder keeps two: one on the wall clock, one on the thread's CPU clock
// (pause_stamp.h), whose MMU is over windows of the thread's CPU time.
//
// MMU(w) = min over windows [t, t+w] inside the run of (w - GC time in it) / w.
// The worst window can always be slid until it ends where a pause ends (sliding a
// window whose right edge is in mutator time to the left never loses GC time), or
// until it starts at the run's start. So it suffices to look at the window ending
// at each pause's end — kept online with a queue of the pauses that overlap it —
// and at the run's first window; pauses arrive in time order and never overlap.
// A run shorter than w counts as one window of its own length.
#pragma once

#include <algorithm>
#include <array>
#include <cstdint>
#include <deque>
#include <tuple>

#include "heap/statistics/latency_histogram.h"
#include "vm/pause_figures.h"

namespace kith::gc {

class PauseTimeline {
 public:
  static constexpr std::array<std::uint64_t, 3> kWindowsNs = {1'000'000, 10'000'000, 100'000'000};
  static_assert(kWindowsNs.size() == std::tuple_size_v<decltype(vm::PauseFigures::mmu)>);

  struct Interval {
    std::uint64_t begin, end;  // ns since the origin
  };
  // One pause from `b` to `e` (in time order); returns it as recorded: clamped so it
  // never overlaps the previous one (clock granularity) nor ends before it begins.
  Interval record(std::uint64_t b, std::uint64_t e) {
    b = std::max(b, lastEnd_);
    e = std::max(e, b);
    lastEnd_ = e;
    histogram_.record(e - b);
    totalNs_ += e - b;
    for (std::size_t i = 0; i < kWindowsNs.size(); ++i) windows_[i].add(b, e, kWindowsNs[i]);
    return {b, e};
  }

  // The summary for a run of `runNs` on this axis.
  vm::PauseFigures summary(std::uint64_t runNs) const {
    heap::LatencySummary pauses = histogram_.summary();
    vm::PauseFigures s;
    s.totalMs = static_cast<double>(totalNs_) / 1e6;
    s.meanMs = pauses.mean / 1e6;
    s.p99Ms = pauses.p99 / 1e6;
    s.maxMs = pauses.max / 1e6;
    runNs = std::max<std::uint64_t>(runNs, 1);
    for (std::size_t i = 0; i < kWindowsNs.size(); ++i) {
      std::uint64_t w = kWindowsNs[i];
      if (runNs <= w) {
        s.mmu[i] = 1.0 - static_cast<double>(std::min(totalNs_, runNs)) / static_cast<double>(runNs);
        continue;
      }
      std::uint64_t worst = std::max(windows_[i].worstGcNs, windows_[i].firstWindowGcNs);
      s.mmu[i] = 1.0 - static_cast<double>(std::min(worst, w)) / static_cast<double>(w);
    }
    return s;
  }

  const heap::LatencyHistogram& histogram() const { return histogram_; }
  std::uint64_t totalNs() const { return totalNs_; }
  std::uint64_t lastEnd() const { return lastEnd_; }

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

  heap::LatencyHistogram histogram_;
  std::uint64_t totalNs_ = 0;
  std::uint64_t lastEnd_ = 0;
  std::array<Window, 3> windows_;
};

}  // namespace kith::gc
