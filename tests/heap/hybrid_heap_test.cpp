#include "heap/layers/hybrid_heap.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <vector>

#include "heap/layers/fixed_arena.h"
#include "heap/layers/freelist_heap.h"
#include "heap/layers/null_heap.h"
#include "heap/layers/size_classes.h"
#include "heap/layers/size_heap.h"
#include "heap/layers/strict_seg_heap.h"
#include "tests/heap/counting_heap.h"

namespace kith::heap {
namespace {

// The small side: bins of 16, 32 and 64 bytes over whatever top heap it is given.
template <class Top>
using SmallBins = StrictSegHeap<3, pow2SizeClass, pow2ClassMaxSize, FreelistHeap<NullHeap>, Top>;

using Hybrid = HybridHeap<64, SmallBins, SizeHeap<FixedArena>>;
using CountedHybrid = HybridHeap<64, SmallBins, SizeHeap<testing::CountingHeap>>;

static_assert(SizedHeap<Hybrid>);

TEST(HybridHeap, RoutesBySizeAndSmallFreesStayInTheSmallHeap) {
  testing::CountingLog log;
  CountedHybrid heap(log);
  void* small = heap.malloc(64);  // <= Threshold: the bins (fresh block via Super)
  void* big = heap.malloc(65);    // > Threshold: Super directly
  ASSERT_NE(small, nullptr);
  ASSERT_NE(big, nullptr);
  EXPECT_EQ(heap.getSize(small), 64u);
  EXPECT_EQ(heap.getSize(big), 80u);
  EXPECT_EQ(log.mallocs, 2u);

  heap.free(small);
  EXPECT_EQ(log.frees, 0u);            // cached by the small heap
  EXPECT_EQ(heap.malloc(40), small);   // and reused from there
  EXPECT_EQ(log.mallocs, 2u);
  heap.free(big);
  EXPECT_EQ(log.frees, 1u);            // back to Super
  EXPECT_EQ(heap.smallHeap().checkInvariants(), "");
  heap.free(small);
  heap.free(nullptr);
  EXPECT_EQ(log.badFrees, 0u);
}

TEST(HybridHeap, BothSidesShareOneArena) {
  Hybrid heap(1024);
  void* small = heap.malloc(16);
  void* big = heap.malloc(500);
  EXPECT_TRUE(heap.arenaContains(small));
  EXPECT_TRUE(heap.arenaContains(big));
  EXPECT_EQ(heap.remaining(), 1024u - (16 + 16) - (16 + 512));
  // The big side exhausts the arena; the small side then has nothing either.
  while (heap.malloc(100)) {
  }
  while (heap.malloc(64)) {
  }
  EXPECT_EQ(heap.malloc(1), nullptr);
  EXPECT_EQ(heap.malloc(1000), nullptr);
  heap.free(small);
  EXPECT_EQ(heap.malloc(1), small);  // the small side's cache still works
}

TEST(HybridHeap, OutOfMemoryPropagatesAsNullFromBothSides) {
  Hybrid heap(128 + 80 + 16);
  EXPECT_NE(heap.malloc(100), nullptr);  // big: 16 + 112
  EXPECT_NE(heap.malloc(48), nullptr);   // small, class 64: 16 + 64
  EXPECT_EQ(heap.remaining(), 16u);
  EXPECT_EQ(heap.malloc(1), nullptr);    // the small side needs 16 + 16
  EXPECT_EQ(heap.malloc(65), nullptr);
}

TEST(HybridHeap, EdgeSizes) {
  Hybrid heap(4096);
  EXPECT_EQ(heap.getSize(heap.malloc(0)), 16u);
  EXPECT_EQ(heap.getSize(heap.malloc(1)), 16u);
  EXPECT_EQ(heap.getSize(heap.malloc(16)), 16u);
  EXPECT_EQ(heap.malloc(SIZE_MAX), nullptr);
  EXPECT_EQ(heap.malloc(std::size_t{1} << 40), nullptr);
  EXPECT_EQ(heap.malloc(4096), nullptr);
}

}  // namespace
}  // namespace kith::heap
