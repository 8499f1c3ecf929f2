// CycleClock: the cheapest clock for timing one allocation or free. On x86-64
// with an invariant TSC (constant rate, runs in every C-state: CPUID 0x80000007
// EDX bit 8) it reads the time-stamp counter, ~9 ns here, where a vDSO
// clock_gettime(CLOCK_MONOTONIC) costs ~21 ns; elsewhere it reads that clock in ns.
// Timing every free of a sweep with two reads of the slower clock was more than
// half of each collection's pause (docs/BENCHMARKS.md, "The collectors").
//
// Ticks become nanoseconds by the rate measured over the clock's own lifetime:
// the constructor and nsPerTick() each take a (monotonic ns, ticks) pair, so no start-up
// calibration loop is paid and a long run is calibrated to a few parts per million.
#pragma once

#include <time.h>

#include <cstdint>

#if defined(__x86_64__)
#include <x86intrin.h>
#endif

namespace kith::heap {

class CycleClock {
 public:
  CycleClock() : tsc_(hasInvariantTsc()), startNs_(monotonicNs()), startTicks_(ticks()) {}

  bool usesTsc() const { return tsc_; }

  std::uint64_t ticks() const {
#if defined(__x86_64__)
    if (tsc_) return __rdtsc();
#endif
    return monotonicNs();
  }

  // Nanoseconds per tick since construction. The interval is stretched to at least
  // 1 ms (a spin, paid only by a very short run) so the ratio is good to ~1 ppm.
  double nsPerTick() const;

  static std::uint64_t monotonicNs() {
    timespec ts;
    ::clock_gettime(CLOCK_MONOTONIC, &ts);
    return static_cast<std::uint64_t>(ts.tv_sec) * 1'000'000'000u +
           static_cast<std::uint64_t>(ts.tv_nsec);
  }

  static bool hasInvariantTsc();

 private:
  static constexpr std::uint64_t kMinCalibrationNs = 1'000'000;

  bool tsc_;
  std::uint64_t startNs_;
  std::uint64_t startTicks_;
};

}  // namespace kith::heap
