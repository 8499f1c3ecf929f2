// SliceClock: when a time-limited slice reads the clock, and when it stops.
//
// Reading the clock after every work unit would cost as much as the unit on cheap
// work (objects laid out in allocation order); reading it after a fixed number of
// units lets a stretch of expensive ones (a cache and TLB miss per object or slot,
// a free that walks the heap's metadata) run tens of µs past the limit unseen. So
// the number of units between two readings adapts to what a stretch of them took:
// halved while a stretch takes longer than kTargetSpan, doubled while it takes under
// a quarter of it, between kMinUnitsPerCheck and kMaxUnitsPerCheck. And a slice
// stops at the reading after which the next stretch, as long as the last one
// predicts, would pass the deadline — not at the first reading past it — so a slice
// ends near its limit, not up to a stretch beyond it.
//
// The limit is of the thread's CPU time (thread_cpu_clock.h), read on the wall clock:
// the readings between are the wall clock's (a vDSO call, ~20 ns; the CPU clock is
// a system call), and only when the wall clock says stop is the CPU clock read. If
// the host took part of the slice (wall time passes, CPU time does not), the
// deadline moves on by what is left of the limit in CPU time: a host stall no longer
// cuts a slice's work short, which left cycles short of slices, behind their
// allocation allowance, and the governor letting go of the mutator's share.
//
// One SliceClock per kind of work (marking, sweeping): their units cost differently,
// and each keeps what it learned from one slice to the next.
#pragma once

#include <chrono>
#include <cstddef>
#include <cstdint>

#include "gc/thread_cpu_clock.h"

namespace kith::gc {

class SliceClock {
 public:
  using Clock = std::chrono::steady_clock;
  static constexpr std::size_t kMinUnitsPerCheck = 4, kMaxUnitsPerCheck = 64;
  static constexpr std::chrono::nanoseconds kTargetSpan{4'000};
  using CpuReader = std::uint64_t (*)();  // the thread's CPU time in ns (tests pass their own)

  explicit SliceClock(CpuReader cpuNs = threadCpuNs) : cpuNs_(cpuNs) {}

  // A slice begins at `begin` (wall clock) and `beginCpuNs` (the thread's CPU clock),
  // and should end when it has run `limit` of CPU time.
  void start(Clock::time_point begin, std::uint64_t beginCpuNs, std::chrono::nanoseconds limit) {
    last_ = begin;
    deadline_ = begin + limit;
    beginCpuNs_ = beginCpuNs;
    limit_ = limit;
  }
  // Work units to do before the next reading.
  std::size_t unitsPerCheck() const { return unitsPerCheck_; }
  // A reading, taken unitsPerCheck() units after the last one (or the start): true
  // when the slice must stop here.
  bool stopAt(Clock::time_point now) {
    Clock::duration span = now - last_;
    last_ = now;
    Clock::duration next = span;
    if (span > kTargetSpan && unitsPerCheck_ > kMinUnitsPerCheck) {
      unitsPerCheck_ /= 2;
      next = span / 2;
    } else if (span * 4 < kTargetSpan && unitsPerCheck_ < kMaxUnitsPerCheck) {
      unitsPerCheck_ *= 2;
      next = span * 2;
    }
    if (now < deadline_ && deadline_ - now >= next) return false;
    // The wall clock says stop: the CPU clock says how much of the limit is left.
    const std::chrono::nanoseconds used(cpuNs_() - beginCpuNs_);
    if (used + next >= limit_) return true;
    deadline_ = now + (limit_ - used);
    return false;
  }

 private:
  CpuReader cpuNs_;
  Clock::time_point last_{}, deadline_{};
  std::uint64_t beginCpuNs_ = 0;
  std::chrono::nanoseconds limit_{};
  std::size_t unitsPerCheck_ = kMinUnitsPerCheck;
};

}  // namespace kith::gc
