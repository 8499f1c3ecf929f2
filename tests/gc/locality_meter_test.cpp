// LocalityMeter (gc/locality_meter.h): each reference lands in the one bucket its
// distance names, and pages touched are counted once per cycle.
#include "gc/locality_meter.h"

#include <gtest/gtest.h>

#include <cstddef>
#include <vector>

namespace kith::gc {
namespace {

TEST(LocalityMeter, EachReferenceFallsInTheBucketItsDistanceNames) {
  std::vector<std::byte> arena(1 << 20);
  std::byte* base = arena.data();
  LocalityMeter meter;
  meter.beginCycle(base, arena.size());
  meter.reference(base + 64, base + 100);      // the same 64-byte line
  meter.reference(base + 64, base + 4000);     // the same 4 KiB page
  meter.reference(base + 64, base + 60000);    // the same 64 KiB region
  meter.reference(base + 64, base + 70000);    // further
  meter.reference(base + 65536, base + 65535); // adjacent bytes, different regions: far
  meter.endCycle();
  const vm::LocalityStatistics& s = meter.statistics();
  EXPECT_EQ(s.cycles, 1u);
  EXPECT_EQ(s.references, 5u);
  EXPECT_EQ(s.sameLine, 1u);
  EXPECT_EQ(s.samePage, 1u);
  EXPECT_EQ(s.kClose, 1u);
  EXPECT_EQ(s.far, 2u);
}

TEST(LocalityMeter, PagesTouchedAreDistinctPerCycle) {
  std::vector<std::byte> arena(1 << 20);
  std::byte* base = arena.data();
  LocalityMeter meter;
  meter.beginCycle(base, arena.size());
  meter.object(base, 32);
  meter.object(base + 100, 32);          // page 0 again
  meter.object(base + 4090, 16);         // spans pages 0 and 1
  meter.object(base + 3 * 4096, 8192);   // pages 3 and 4
  meter.endCycle();
  meter.beginCycle(base, arena.size());  // a new cycle starts from no pages
  meter.object(base, 32);
  meter.endCycle();
  const vm::LocalityStatistics& s = meter.statistics();
  EXPECT_EQ(s.cycles, 2u);
  EXPECT_EQ(s.pagesTouchedMax, 4u);
  EXPECT_EQ(s.pagesTouchedTotal, 5u);
}

TEST(LocalityMeter, WithoutAnArenaPagesAreCountedByAddress) {
  std::vector<std::byte> memory(3 * 4096);
  LocalityMeter meter;
  meter.beginCycle(nullptr, 0);  // malloc: no arena
  meter.object(memory.data(), 1);
  meter.object(memory.data(), 1);
  meter.endCycle();
  EXPECT_EQ(meter.statistics().pagesTouchedTotal, 1u);
}

}  // namespace
}  // namespace kith::gc
