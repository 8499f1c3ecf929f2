#include "gc/gc_time_window.h"

#include <gtest/gtest.h>

#include <chrono>

namespace kith::gc {
namespace {

using Clock = GcTimeWindow::Clock;
using std::chrono::microseconds;

Clock::time_point at(int us) { return Clock::time_point(microseconds(100'000 + us)); }

// since() sums the pauses from a point on, counting the part of a pause that
// straddles it.
TEST(GcTimeWindow, SinceCountsWholeAndPartPauses) {
  GcTimeWindow w;
  w.record(at(0), at(30));
  w.record(at(100), at(150));
  w.record(at(400), at(410));
  EXPECT_EQ(w.since(at(0)), microseconds(90));
  EXPECT_EQ(w.since(at(20)), microseconds(70));   // 10 of the first, then 50 and 10
  EXPECT_EQ(w.since(at(120)), microseconds(40));  // 30 of the second, 10
  EXPECT_EQ(w.since(at(405)), microseconds(5));
  EXPECT_EQ(w.since(at(500)), microseconds(0));
}

// A pause is forgotten once it ended a window's length before the newest one's end.
TEST(GcTimeWindow, ForgetsPausesOlderThanTheWindow) {
  GcTimeWindow w;
  w.record(at(0), at(300));
  w.record(at(1'200), at(1'210));  // the first ended 910 µs earlier: kept
  EXPECT_EQ(w.since(at(210)), microseconds(100));
  w.record(at(1'310), at(1'320));  // 1,020 µs after the first's end: forgotten
  EXPECT_EQ(w.since(at(320)), microseconds(20));
}

// The governor's question: with 2/5 of a millisecond allowed, a 50 µs slice fits
// while the GC time since now - 950 µs is at most 350 µs.
TEST(GcTimeWindow, RoomForASliceIsTheShareMinusTheSlice) {
  GcTimeWindow w;
  const Clock::duration slice = microseconds(50);
  EXPECT_TRUE(w.hasRoomFor(slice, at(0), 2, 5));  // nothing recorded
  for (int i = 0; i < 7; ++i) w.record(at(100 * i), at(100 * i + 50));  // 350 µs by 650
  EXPECT_TRUE(w.hasRoomFor(slice, at(700), 2, 5));
  w.record(at(700), at(701));  // one more µs
  EXPECT_FALSE(w.hasRoomFor(slice, at(701), 2, 5));
  EXPECT_FALSE(w.hasRoomFor(slice, at(950), 2, 5));  // counted from 0: all 351 µs
  // A µs later the first pause's first µs has left the window: 350 + 50 fit.
  EXPECT_TRUE(w.hasRoomFor(slice, at(951), 2, 5));
  // A pause longer than the share leaves no room until it slides out of the window.
  GcTimeWindow stalled;
  stalled.record(at(0), at(800));
  EXPECT_FALSE(stalled.hasRoomFor(slice, at(1'300), 2, 5));  // 450 µs of it since 350
  EXPECT_TRUE(stalled.hasRoomFor(slice, at(1'700), 2, 5));   // 50 µs of it since 750
}

}  // namespace
}  // namespace kith::gc
