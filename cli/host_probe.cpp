#include "cli/host_probe.h"

#include <algorithm>

#include "gc/pause_stamp.h"

namespace kith::cli {

HostProbe HostProbe::run(std::chrono::milliseconds length) {
  using Clock = std::chrono::steady_clock;
  HostProbe probe;
  const Clock::time_point end = Clock::now() + length;
  Clock::time_point last = Clock::now();
  std::uint64_t lastCpu = gc::threadCpuNs();
  for (Clock::time_point now = last; now < end; last = now) {
    now = Clock::now();
    const std::uint64_t cpu = gc::threadCpuNs();
    const auto gapNs =
        static_cast<std::uint64_t>(std::chrono::duration_cast<std::chrono::nanoseconds>(now - last).count());
    const std::uint64_t cpuGapNs = cpu > lastCpu ? cpu - lastCpu : 0;
    lastCpu = cpu;
    ++probe.readings;
    probe.longestGapNs = std::max(probe.longestGapNs, gapNs);
    if (gapNs > kLongGapNs) ++probe.gapsOverLongGap;
    probe.longestCpuGapNs = std::max(probe.longestCpuGapNs, cpuGapNs);
    if (cpuGapNs > kLongGapNs) ++probe.cpuGapsOverLongGap;
  }
  return probe;
}

HostProbe HostProbe::merged(const HostProbe& other) const {
  return {readings + other.readings, std::max(longestGapNs, other.longestGapNs),
          gapsOverLongGap + other.gapsOverLongGap, std::max(longestCpuGapNs, other.longestCpuGapNs),
          cpuGapsOverLongGap + other.cpuGapsOverLongGap};
}

}  // namespace kith::cli
