// SliceClock: how many work units a time-limited slice does between two readings of
// the clock, and at which reading it stops. Time points are made up: no clock is read
// (the CPU clock is a variable the tests set).
#include "gc/slice_clock.h"

#include <gtest/gtest.h>

namespace kith::gc::testing {
namespace {

using namespace std::chrono_literals;
using Clock = SliceClock::Clock;

const Clock::time_point t0{};

// The thread's CPU time the clocks under test read.
std::uint64_t fakeCpuNs = 0;
std::uint64_t readFakeCpu() { return fakeCpuNs; }

// A clock whose CPU time runs with the wall time from t0 (no host stall): set before
// each reading past the deadline by the test.
SliceClock clockOnFakeCpu() { return SliceClock(readFakeCpu); }

// Cheap units: stretches far under the target double the units between readings, up
// to the most; expensive ones halve them, down to the fewest.
TEST(SliceClock, AdaptsTheUnitsBetweenReadingsToWhatAStretchTook) {
  SliceClock clock = clockOnFakeCpu();
  clock.start(t0, 0, 1s);
  EXPECT_EQ(clock.unitsPerCheck(), SliceClock::kMinUnitsPerCheck);
  Clock::time_point now = t0;
  std::size_t units = clock.unitsPerCheck();
  for (int i = 0; i < 10; ++i) {
    now += 100ns;
    EXPECT_FALSE(clock.stopAt(now));
    EXPECT_EQ(clock.unitsPerCheck(), std::min(2 * units, SliceClock::kMaxUnitsPerCheck));
    units = clock.unitsPerCheck();
  }
  EXPECT_EQ(units, SliceClock::kMaxUnitsPerCheck);
  for (int i = 0; i < 10; ++i) {
    now += 2 * SliceClock::kTargetSpan;
    EXPECT_FALSE(clock.stopAt(now));
    EXPECT_EQ(clock.unitsPerCheck(), std::max(units / 2, SliceClock::kMinUnitsPerCheck));
    units = clock.unitsPerCheck();
  }
  // A stretch within [target / 4, target] keeps the number.
  now += SliceClock::kTargetSpan / 2;
  EXPECT_FALSE(clock.stopAt(now));
  EXPECT_EQ(clock.unitsPerCheck(), SliceClock::kMinUnitsPerCheck);
}

// A slice stops at the reading after which one more stretch like the last would pass
// the deadline, not at the first reading past it; and at any reading past it.
TEST(SliceClock, StopsWhenTheNextStretchWouldPassTheDeadline) {
  SliceClock clock = clockOnFakeCpu();
  clock.start(t0, 0, 50us);
  EXPECT_FALSE(clock.stopAt(t0 + 3us));
  fakeCpuNs = 46'000;  // no host stall: the CPU time is the wall time
  EXPECT_TRUE(clock.stopAt(t0 + 46us)) << "a 43 µs stretch, with 4 µs left";
  // Readings 3 µs apart (within the target: the units stay as they are).
  clock.start(t0, 0, 50us);
  Clock::time_point now = t0;
  int readings = 0;
  fakeCpuNs = 3'000;  // the CPU time at each reading is its wall time
  while (!clock.stopAt(now += 3us)) {
    ++readings;
    fakeCpuNs += 3'000;
  }
  EXPECT_EQ(now, t0 + 48us) << "the next stretch would end at 51 µs";
  EXPECT_EQ(readings, 15);
  // Past the deadline, however short the stretches.
  clock.start(t0, 0, 50us);
  fakeCpuNs = 60'000;
  EXPECT_TRUE(clock.stopAt(t0 + 60us));
}

// The limit is CPU time: when the host takes 30 µs in the middle of a slice, the wall
// clock's 50 µs come with 20 µs of the slice's work done; the slice goes on until the
// CPU clock nears the limit, not stopping at the wall clock's deadline.
TEST(SliceClock, AHostStallDoesNotCutTheSliceShort) {
  SliceClock clock = clockOnFakeCpu();
  const std::uint64_t cpu0 = 1'000'000;  // the CPU clock's origin is not 0
  clock.start(t0, cpu0, 50us);
  Clock::time_point now = t0;
  for (int i = 1; i <= 3; ++i) {
    fakeCpuNs = cpu0 + 3'000 * i;
    EXPECT_FALSE(clock.stopAt(now += 3us));
  }
  fakeCpuNs += 3'000;  // 12 µs of CPU time at 42 µs of wall time
  EXPECT_FALSE(clock.stopAt(now += 33us)) << "the wall clock's deadline is near, the CPU clock's is not";
  int readings = 0;
  do {
    fakeCpuNs += 3'000;
    ASSERT_LT(++readings, 100);
  } while (!clock.stopAt(now += 3us));
  EXPECT_EQ(fakeCpuNs - cpu0, 48'000u) << "stopped when one more 3 µs stretch would pass 50 µs of CPU time";
  EXPECT_EQ(now, t0 + 78us);
}

}  // namespace
}  // namespace kith::gc::testing
