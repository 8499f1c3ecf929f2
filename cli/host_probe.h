// `kith run --host-probe-ms=N`: how much the host stalls this process, measured
// beside the run so a reader of its pauses can tell the machine's excursions from
// the collector's. N ms of a bare CLOCK_MONOTONIC loop (steady_clock) before the
// script and N ms after it: a gap between two consecutive readings of the loop is
// time the thread did not run (a few tens of ns when it runs). Reported in the
// statistics (`host_probe`, docs/COLLECTORS.md): the longest gap and how many gaps
// passed 100 µs, the continuous collector's slice target.
#pragma once

#include <chrono>
#include <cstdint>

namespace kith::cli {

struct HostProbe {
  static constexpr std::uint64_t kLongGapNs = 100'000;
  std::uint64_t readings = 0;
  std::uint64_t longestGapNs = 0;
  std::uint64_t gapsOverLongGap = 0;  // gaps longer than kLongGapNs

  // A bare clock loop for `length`.
  static HostProbe run(std::chrono::milliseconds length);
  // Both probes' readings as one.
  HostProbe merged(const HostProbe& other) const;
};

}  // namespace kith::cli
