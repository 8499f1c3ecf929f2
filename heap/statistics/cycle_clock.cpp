// CycleClock's calibration and its CPU check, paid once per clock, not per reading.
#include "heap/statistics/cycle_clock.h"

#if defined(__x86_64__)
#include <cpuid.h>
#endif

namespace kith::heap {

double CycleClock::nsPerTick() const {
  if (!tsc_) return 1.0;
  std::uint64_t ns = monotonicNs(), t = ticks();
  while (ns - startNs_ < kMinCalibrationNs) ns = monotonicNs(), t = ticks();
  if (t <= startTicks_) return 1.0;  // a counter that did not advance: take ticks as ns
  return static_cast<double>(ns - startNs_) / static_cast<double>(t - startTicks_);
}

bool CycleClock::hasInvariantTsc() {
#if defined(__x86_64__)
  unsigned a = 0, b = 0, c = 0, d = 0;
  if (__get_cpuid_max(0x80000000u, nullptr) < 0x80000007u) return false;
  __cpuid(0x80000007u, a, b, c, d);
  return (d >> 8) & 1u;
#else
  return false;
#endif
}

}  // namespace kith::heap
