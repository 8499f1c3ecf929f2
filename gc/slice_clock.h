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
// One SliceClock per kind of work (marking, sweeping): their units cost differently,
// and each keeps what it learned from one slice to the next.
#pragma once

#include <chrono>
#include <cstddef>

namespace kith::gc {

class SliceClock {
 public:
  using Clock = std::chrono::steady_clock;
  static constexpr std::size_t kMinUnitsPerCheck = 4, kMaxUnitsPerCheck = 64;
  static constexpr std::chrono::nanoseconds kTargetSpan{4'000};

  // A slice begins at `begin` and should end by `deadline`.
  void start(Clock::time_point begin, Clock::time_point deadline) {
    last_ = begin;
    deadline_ = deadline;
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
    return now >= deadline_ || deadline_ - now < next;
  }

 private:
  Clock::time_point last_{}, deadline_{};
  std::size_t unitsPerCheck_ = kMinUnitsPerCheck;
};

}  // namespace kith::gc
