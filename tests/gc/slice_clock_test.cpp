// SliceClock: how many work units a time-limited slice does between two readings of
// the clock, and at which reading it stops. Time points are made up: no clock is read.
#include "gc/slice_clock.h"

#include <gtest/gtest.h>

namespace kith::gc::testing {
namespace {

using namespace std::chrono_literals;
using Clock = SliceClock::Clock;

const Clock::time_point t0{};

// Cheap units: stretches far under the target double the units between readings, up
// to the most; expensive ones halve them, down to the fewest.
TEST(SliceClock, AdaptsTheUnitsBetweenReadingsToWhatAStretchTook) {
  SliceClock clock;
  clock.start(t0, t0 + 1s);
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
  SliceClock clock;
  clock.start(t0, t0 + 50us);
  EXPECT_FALSE(clock.stopAt(t0 + 3us));
  EXPECT_TRUE(clock.stopAt(t0 + 46us)) << "a 43 µs stretch, with 4 µs left";
  // Readings 3 µs apart (within the target: the units stay as they are).
  clock.start(t0, t0 + 50us);
  Clock::time_point now = t0;
  int readings = 0;
  while (!clock.stopAt(now += 3us)) ++readings;
  EXPECT_EQ(now, t0 + 48us) << "the next stretch would end at 51 µs";
  EXPECT_EQ(readings, 15);
  // Past the deadline, however short the stretches.
  clock.start(t0, t0 + 50us);
  EXPECT_TRUE(clock.stopAt(t0 + 60us));
}

}  // namespace
}  // namespace kith::gc::testing
