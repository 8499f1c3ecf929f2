// `kith run --host-probe-ms=N`: how much the host stalls this process, measured
// beside the run so a reader of its pauses can tell the machine's excursions from
// the collector's. N ms of a bare CLOCK_MONOTONIC loop (steady_clock) before the
// script and N ms after it: a gap between two consecutive readings of the loop is
// time the thread did not run (well under a µs when it runs). Each reading also
// reads the thread's CPU clock (gc/pause_stamp.h): the most CPU time between two
// readings is that clock's own noise — a loop that does nothing is charged CPU time
// around a stall too (on this 2-core guest under load, up to ~100 µs), so a pause's
// CPU time can exceed its work by as much. Reported in the statistics (`host_probe`,
// docs/COLLECTORS.md): the longest gap on each clock and how many passed 100 µs, the
// continuous collector's slice target.
#pragma once

#include <chrono>
#include <cstdint>

namespace kith::cli {

struct HostProbe {
  static constexpr std::uint64_t kLongGapNs = 100'000;
  std::uint64_t readings = 0;
  std::uint64_t longestGapNs = 0;
  std::uint64_t gapsOverLongGap = 0;  // gaps longer than kLongGapNs
  std::uint64_t longestCpuGapNs = 0;  // the same by the thread's CPU time
  std::uint64_t cpuGapsOverLongGap = 0;

  // A bare clock loop for `length`.
  static HostProbe run(std::chrono::milliseconds length);
  // Both probes' readings as one.
  HostProbe merged(const HostProbe& other) const;
};

}  // namespace kith::cli
