#include "heap/layers/freelist_heap.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <memory>
#include <type_traits>
#include <vector>

#include "heap/layers/fixed_arena.h"
#include "heap/layers/null_heap.h"
#include "tests/heap/counting_heap.h"

namespace kith::heap {
namespace {

using testing::CountingHeap;
using testing::CountingLog;

TEST(FreelistHeap, ReusesFreedBlocksLastInFirstOut) {
  FreelistHeap<FixedArena> heap(4096);
  void* a = heap.malloc(32);
  void* b = heap.malloc(32);
  void* c = heap.malloc(32);
  std::size_t carved = heap.remaining();
  heap.free(a);
  heap.free(c);
  heap.free(b);
  EXPECT_EQ(heap.malloc(32), b);  // most recently freed first
  EXPECT_EQ(heap.malloc(32), c);
  EXPECT_EQ(heap.malloc(32), a);
  EXPECT_EQ(heap.remaining(), carved);  // all three came from the list, none from Super
  void* d = heap.malloc(32);  // list empty: Super carves a new one
  EXPECT_NE(d, nullptr);
  EXPECT_EQ(heap.remaining(), carved - 32);
}

TEST(FreelistHeap, FreeOfNullIsIgnored) {
  FreelistHeap<NullHeap> heap;
  heap.free(nullptr);
  EXPECT_EQ(heap.malloc(16), nullptr);
}

TEST(FreelistHeap, DestructorReturnsCachedBlocksToSuper) {
  CountingLog log;
  {
    FreelistHeap<CountingHeap> heap(log);
    std::vector<void*> blocks;
    for (int i = 0; i < 5; ++i) blocks.push_back(heap.malloc(48));
    for (void* p : blocks) heap.free(p);
    EXPECT_EQ(log.frees, 0u);  // cached, not returned
    void* kept = heap.malloc(48);  // one back in use
    EXPECT_EQ(kept, blocks.back());
    EXPECT_EQ(log.mallocs, 5u);
    heap.free(kept);
  }
  EXPECT_EQ(log.frees, 5u);
  EXPECT_EQ(log.badFrees, 0u);
  EXPECT_EQ(log.liveAtDestruction, 0u);
}

// A bin of StrictSegHeap outlives the arena its blocks came from.
static_assert(std::is_trivially_destructible_v<FreelistHeap<NullHeap>>);
static_assert(!std::is_trivially_destructible_v<FreelistHeap<CountingHeap>>);

TEST(FreelistHeap, OverNullHeapDropsItsBlocksUnreadWhenDestroyed) {
  auto arena = std::make_unique<FixedArena>(4096);
  {
    FreelistHeap<NullHeap> bin;
    for (int i = 0; i < 3; ++i) bin.free(arena->malloc(32));
    arena.reset();  // unmapped: reading a cached block's link would now fault
  }
  SUCCEED();
}

TEST(FreelistHeap, ForEachFreeVisitsCachedBlocksAndSpotsADoubleFree) {
  FreelistHeap<FixedArena> heap(4096);
  void* a = heap.malloc(16);
  void* b = heap.malloc(16);
  heap.free(a);
  heap.free(b);
  std::vector<void*> seen;
  EXPECT_TRUE(heap.forEachFree([&](void* p) { seen.push_back(p); }));
  EXPECT_EQ(seen, (std::vector<void*>{b, a}));
  heap.free(b);  // a double free makes b point to itself
  EXPECT_FALSE(heap.forEachFree([](void*) {}));
  *static_cast<void**>(b) = nullptr;  // mend the link (a block's first word) for the destructor
}

TEST(FreelistHeap, OutOfMemoryPropagatesAsNullAndRecoversAfterAFree) {
  FreelistHeap<FixedArena> heap(256);
  std::vector<void*> blocks;
  while (void* p = heap.malloc(64)) blocks.push_back(p);
  EXPECT_EQ(blocks.size(), 4u);
  EXPECT_EQ(heap.malloc(64), nullptr);
  heap.free(blocks[2]);
  EXPECT_EQ(heap.malloc(64), blocks[2]);
  EXPECT_EQ(heap.malloc(64), nullptr);
}

TEST(FreelistHeap, EdgeSizesWithAnEmptyListGoToSuper) {
  FreelistHeap<FixedArena> heap(4096);
  EXPECT_EQ(heap.malloc(SIZE_MAX), nullptr);
  EXPECT_EQ(heap.malloc(4097), nullptr);
  void* zero = heap.malloc(0);
  void* one = heap.malloc(1);
  ASSERT_NE(zero, nullptr);
  ASSERT_NE(one, nullptr);
  EXPECT_TRUE(isAligned(zero));
  EXPECT_EQ(static_cast<std::byte*>(one) - static_cast<std::byte*>(zero), 16);  // minimum block
  EXPECT_NE(heap.malloc(heap.remaining()), nullptr);  // the arena's whole rest
  EXPECT_EQ(heap.malloc(16), nullptr);
}

}  // namespace
}  // namespace kith::heap
