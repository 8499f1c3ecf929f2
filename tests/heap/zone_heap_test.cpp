#include "heap/layers/zone_heap.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>
#include <vector>

#include "heap/layers/fixed_arena.h"
#include "heap/layers/size_heap.h"
#include "tests/heap/counting_heap.h"

namespace kith::heap {
namespace {

using testing::CountingHeap;
using testing::CountingLog;

static_assert(HeapLayer<ZoneHeap<FixedArena>>);
static_assert(!SizedHeap<ZoneHeap<SizeHeap<FixedArena>>>);  // Super's getSize is hidden

TEST(ZoneHeap, BumpsThroughAChunkThenTakesAnother) {
  CountingLog log;
  ZoneHeap<CountingHeap, 1024> zone(log);
  auto* a = static_cast<std::byte*>(zone.malloc(10));
  auto* b = static_cast<std::byte*>(zone.malloc(100));
  EXPECT_EQ(log.mallocs, 1u);
  EXPECT_EQ(b - a, 16);  // packed, 16-byte aligned
  EXPECT_TRUE(isAligned(b));
  // 1024 - 16 link - 16 - 112 = 880 left in the chunk.
  EXPECT_NE(zone.malloc(880), nullptr);
  EXPECT_EQ(log.mallocs, 1u);
  EXPECT_NE(zone.malloc(1), nullptr);
  EXPECT_EQ(log.mallocs, 2u);
  for (auto& [chunk, bytes] : log.live) EXPECT_EQ(bytes, 1024u);
}

TEST(ZoneHeap, FreeOfOneObjectDoesNothing) {
  CountingLog log;
  ZoneHeap<CountingHeap, 1024> zone(log);
  void* a = zone.malloc(32);
  std::memset(a, 0xab, 32);
  zone.free(a);
  zone.free(nullptr);
  EXPECT_EQ(log.frees, 0u);
  EXPECT_NE(zone.malloc(32), a);  // not reused either
}

TEST(ZoneHeap, ReleaseReturnsEveryChunkInOneStep) {
  CountingLog log;
  {
    ZoneHeap<CountingHeap, 1024> zone(log);
    for (int i = 0; i < 100; ++i) ASSERT_NE(zone.malloc(48), nullptr);
    std::size_t chunks = log.mallocs;
    EXPECT_EQ(chunks, 5u);  // 21 objects of 48 fit per 1008-byte chunk
    zone.release();
    EXPECT_EQ(log.frees, chunks);
    EXPECT_TRUE(log.live.empty());
    EXPECT_EQ(log.badFrees, 0u);

    // Usable again; the destructor releases what is allocated now.
    EXPECT_NE(zone.malloc(16), nullptr);
    EXPECT_NE(zone.malloc(5000), nullptr);
    EXPECT_EQ(log.mallocs, chunks + 2);
  }
  EXPECT_EQ(log.frees, log.mallocs);
  EXPECT_EQ(log.liveAtDestruction, 0u);
  EXPECT_EQ(log.badFrees, 0u);
}

TEST(ZoneHeap, ARequestBiggerThanAChunkGetsItsOwnAndTheCurrentChunkStays) {
  CountingLog log;
  ZoneHeap<CountingHeap, 1024> zone(log);
  auto* a = static_cast<std::byte*>(zone.malloc(16));
  void* big = zone.malloc(3000);
  ASSERT_NE(big, nullptr);
  EXPECT_EQ(log.mallocs, 2u);
  EXPECT_EQ(log.live.at(static_cast<std::byte*>(big) - 16), 16u + 3008);
  auto* b = static_cast<std::byte*>(zone.malloc(16));
  EXPECT_EQ(b - a, 16);  // still bumping in the first chunk
  zone.release();
  EXPECT_EQ(log.frees, 2u);
}

TEST(ZoneHeap, UsesTheArenaTailWhenNoWholeChunkIsLeft) {
  ZoneHeap<FixedArena, 1024> zone(1024 + 256);
  EXPECT_NE(zone.malloc(1000), nullptr);  // the first chunk, 1008 usable
  EXPECT_EQ(zone.remaining(), 256u);
  void* tail = zone.malloc(100);  // no room for another 1024-byte chunk
  ASSERT_NE(tail, nullptr);
  EXPECT_TRUE(zone.arenaContains(tail));
  EXPECT_EQ(zone.remaining(), 256u - 16 - 112);
}

// FixedArena frees nothing but its newest block; the zone gives chunks back newest
// first with their sizes, so release() returns all of them and the zone can be
// filled again as often as it is released.
TEST(ZoneHeap, ReleaseGivesAFixedArenaEveryChunkBack) {
  ZoneHeap<FixedArena, 1024> zone(8 * 1024 + 256);
  std::size_t first = 0;
  for (int cycle = 0; cycle < 20; ++cycle) {
    std::size_t objects = 0;
    EXPECT_NE(zone.malloc(3000), nullptr);  // a chunk of its own
    while (zone.malloc(48)) ++objects;
    if (cycle == 0) first = objects;
    EXPECT_EQ(objects, first) << "cycle " << cycle;
    EXPECT_LT(zone.remaining(), 64u);
    zone.release();
    EXPECT_EQ(zone.remaining(), 8u * 1024 + 256) << "cycle " << cycle;
  }
  EXPECT_GT(first, 100u);
}

TEST(ZoneHeap, OutOfMemoryPropagatesAsNull) {
  ZoneHeap<FixedArena, 1024> zone(1024);
  std::size_t got = 0;
  while (zone.malloc(16)) ++got;
  EXPECT_EQ(got, (1024u - 16) / 16);
  EXPECT_EQ(zone.malloc(0), nullptr);
  EXPECT_EQ(zone.malloc(5000), nullptr);

  CountingLog log;
  log.limitBytes = 100;
  ZoneHeap<CountingHeap, 1024> limited(log);
  EXPECT_NE(limited.malloc(1), nullptr);  // no 1024-byte chunk, but a 32-byte one of its own
  EXPECT_EQ(log.refused, 1u);
  EXPECT_EQ(limited.malloc(100), nullptr);  // neither kind of chunk fits under the limit
  EXPECT_EQ(log.refused, 3u);
  EXPECT_EQ(log.mallocs, 1u);
}

TEST(ZoneHeap, EdgeSizes) {
  CountingLog log;
  ZoneHeap<CountingHeap, 1024> zone(log);
  auto* zero = static_cast<std::byte*>(zone.malloc(0));
  auto* one = static_cast<std::byte*>(zone.malloc(1));
  auto* sixteen = static_cast<std::byte*>(zone.malloc(16));
  ASSERT_NE(zero, nullptr);
  EXPECT_EQ(one - zero, 16);  // a zero-byte request still gets a minimum block
  EXPECT_EQ(sixteen - one, 16);
  EXPECT_NE(zone.malloc(1024 - 16), nullptr);  // exactly a chunk's usable size
  EXPECT_EQ(zone.malloc(SIZE_MAX), nullptr);
  EXPECT_EQ(zone.malloc(ZoneHeap<CountingHeap>::kLargestRequest + 1), nullptr);
  EXPECT_EQ(zone.malloc(ZoneHeap<CountingHeap>::kLargestRequest), nullptr);  // refused by Super, no overflow
  EXPECT_EQ(log.badFrees, 0u);
}

}  // namespace
}  // namespace kith::heap
