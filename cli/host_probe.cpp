#include "cli/host_probe.h"

#include <algorithm>

namespace kith::cli {

HostProbe HostProbe::run(std::chrono::milliseconds length) {
  using Clock = std::chrono::steady_clock;
  HostProbe probe;
  const Clock::time_point end = Clock::now() + length;
  Clock::time_point last = Clock::now();
  for (Clock::time_point now = last; now < end; last = now) {
    now = Clock::now();
    const auto gapNs = static_cast<std::uint64_t>(std::chrono::duration_cast<std::chrono::nanoseconds>(now - last).count());
    ++probe.readings;
    probe.longestGapNs = std::max(probe.longestGapNs, gapNs);
    if (gapNs > kLongGapNs) ++probe.gapsOverLongGap;
  }
  return probe;
}

HostProbe HostProbe::merged(const HostProbe& other) const {
  return {readings + other.readings, std::max(longestGapNs, other.longestGapNs), gapsOverLongGap + other.gapsOverLongGap};
}

}  // namespace kith::cli
