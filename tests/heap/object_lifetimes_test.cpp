// ObjectLifetimes (heap/trace/object_lifetimes.h): ages at death on the allocation
// clock, the histogram's buckets, and the objects still live at the end.
#include <gtest/gtest.h>

#include <sstream>

#include "heap/trace/object_lifetimes.h"
#include "heap/trace/trace.h"

namespace kith::heap {
namespace {

ObjectLifetimes lifetimesOf(const std::string& text) {
  std::istringstream in(text);
  TraceReader reader(in);
  ObjectLifetimes lifetimes;
  for (TraceEvent e; reader.next(e);) lifetimes.record(e, reader.objectIndex());
  EXPECT_EQ(reader.error(), "");
  return lifetimes;
}

TEST(ObjectLifetimesBuckets, ExactToEightThenEighthsOfEachPowerOfTwo) {
  for (std::uint64_t a = 0; a <= 8; ++a) EXPECT_EQ(ObjectLifetimes::bucketBound(a), a);
  EXPECT_EQ(ObjectLifetimes::bucketBound(9), 9u);     // (8, 16]: width 1
  EXPECT_EQ(ObjectLifetimes::bucketBound(16), 16u);
  EXPECT_EQ(ObjectLifetimes::bucketBound(17), 18u);   // (16, 32]: width 2
  EXPECT_EQ(ObjectLifetimes::bucketBound(18), 18u);
  EXPECT_EQ(ObjectLifetimes::bucketBound(1000), 1024u);  // (512, 1024]: width 64
  EXPECT_EQ(ObjectLifetimes::bucketBound(961), 1024u);
  EXPECT_EQ(ObjectLifetimes::bucketBound(960), 960u);
  EXPECT_EQ(ObjectLifetimes::bucketBound(1025), 1152u);  // (1024, 2048]: width 128
  // Every bound is within an eighth above its age.
  for (std::uint64_t a = 9; a < 100000; a += 37) {
    std::uint64_t b = ObjectLifetimes::bucketBound(a);
    EXPECT_GE(b, a);
    EXPECT_LE(b - a, a / 8) << a;
  }
}

TEST(ObjectLifetimes, AgeIsBytesAllocatedBetweenBirthAndDeath) {
  // 0 (24 B) dies after 1 (48 B) is born: age 48. 2 (8 B) dies at once: age 0.
  // 1 dies after 2 and 3 (8 + 1000 B): age 1008. 3 is live at the end.
  ObjectLifetimes l = lifetimesOf(
      "# kith-trace 1\n"
      "A 0 0 24\nA 1 1 48\nF 2 0\nA 3 2 8\nF 4 2\nX 5 99999999\nA 6 3 1000\nF 7 1\n");
  EXPECT_EQ(l.objects(), 4u);
  EXPECT_EQ(l.freed(), 3u);
  EXPECT_EQ(l.freedBytes(), 24u + 8u + 48u);
  EXPECT_EQ(l.liveAtEnd(), 1u);
  EXPECT_EQ(l.liveBytesAtEnd(), 1000u);
  EXPECT_EQ(l.peakLiveBytes(), 1048u);  // 1 (48) and 3 (1000)
  EXPECT_EQ(l.failed(), 1u);
  EXPECT_EQ(l.bytesAllocated(), 24u + 48u + 8u + 1000u);  // the failed request is not allocated
  const auto& h = l.histogram();
  ASSERT_EQ(h.size(), 3u);
  auto it = h.begin();
  EXPECT_EQ(it->first, 0u);
  EXPECT_EQ(it->second.objects, 1u);
  EXPECT_EQ(it->second.bytes, 8u);
  ++it;
  EXPECT_EQ(it->first, 48u);
  EXPECT_EQ(it->second.bytes, 24u);
  ++it;
  EXPECT_EQ(it->first, ObjectLifetimes::bucketBound(1008));
  EXPECT_EQ(it->first, 1024u);
  EXPECT_EQ(it->second.bytes, 48u);
}

// A realloc keeps the object's birth; growing it advances the clock by the growth
// (bytes the program newly asked for), shrinking does not; it dies with its last size.
TEST(ObjectLifetimes, AResizedObjectKeepsItsBirthAndDiesWithItsLastSize) {
  // 0 (24 B) grows to 100 (clock +76) and shrinks to 10 in place; 1 (8 B) is born
  // after it; 0 dies aged 76 + 8 = 84.
  ObjectLifetimes l = lifetimesOf("# kith-trace 1\nA 0 0 24\nM 1 0 100\nR 2 0 10\nA 3 1 8\nF 4 0\n");
  EXPECT_EQ(l.resized(), 2u);
  EXPECT_EQ(l.bytesAllocated(), 24u + 76u + 8u);
  EXPECT_EQ(l.freedBytes(), 10u);
  EXPECT_EQ(l.liveBytesAtEnd(), 8u);
  EXPECT_EQ(l.peakLiveBytes(), 100u);  // 0 at 100 bytes, before 1 was born and it shrank
  ASSERT_EQ(l.histogram().size(), 1u);
  EXPECT_EQ(l.histogram().begin()->first, ObjectLifetimes::bucketBound(84));
  EXPECT_EQ(l.histogram().begin()->second.bytes, 10u);
}

TEST(ObjectLifetimes, HistogramStaysSmallForManyObjects) {
  ObjectLifetimes l;
  std::uint64_t t = 0;
  for (std::uint64_t i = 0; i < 200000; ++i) {
    l.record({TraceEventKind::alloc, t++, i, 16 + i % 100}, i);
    if (i >= 1000) l.record({TraceEventKind::free, t++, i - 1000, 0}, i - 1000);
  }
  EXPECT_EQ(l.freed(), 199000u);
  EXPECT_EQ(l.liveAtEnd(), 1000u);
  EXPECT_LE(l.histogram().size(), 8u * 3);  // ages near 1000 * 65 bytes: a few buckets
  std::uint64_t counted = 0;
  for (const auto& [bound, bucket] : l.histogram()) counted += bucket.objects;
  EXPECT_EQ(counted, l.freed());
}

}  // namespace
}  // namespace kith::heap
