// PauseFigures: a collector's pauses summarised on one clock — the pause lengths
// (total, mean, p99, max) and the minimum mutator utilization over windows of 1, 10
// and 100 ms of that clock. CollectorStatistics holds one per clock (wall and the
// thread's CPU time: gc/pause_stamp.h); gc/pause_timeline.h computes them.
#pragma once

#include <array>

namespace kith::vm {

struct PauseFigures {
  double totalMs = 0, meanMs = 0, p99Ms = 0, maxMs = 0;
  // Minimum mutator utilization (0..1) over windows of 1, 10 and 100 ms; < 0 when
  // the collector does not measure it. A run shorter than a window counts as one
  // window (its own length).
  std::array<double, 3> mmu = {-1, -1, -1};

  bool measuresMmu() const { return mmu[0] >= 0; }
  bool operator==(const PauseFigures&) const = default;
};

}  // namespace kith::vm
