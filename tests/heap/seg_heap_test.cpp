#include "heap/layers/seg_heap.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <vector>

#include "heap/layers/fixed_arena.h"
#include "heap/layers/freelist_heap.h"
#include "heap/layers/null_heap.h"
#include "heap/layers/size_classes.h"
#include "heap/layers/size_heap.h"

namespace kith::heap {
namespace {

// Classes 16, 32, 64, 128, 256; bigger requests go to Super.
using Seg5 = SegHeap<5, pow2SizeClass, pow2ClassMaxSize, FreelistHeap<NullHeap>, SizeHeap<FixedArena>>;

TEST(SegHeap, PrefersItsOwnBin) {
  Seg5 heap(1 << 16);
  void* p32 = heap.malloc(32);
  void* p64 = heap.malloc(64);
  heap.free(p64);
  heap.free(p32);
  EXPECT_EQ(heap.malloc(20), p32);
  EXPECT_EQ(heap.checkInvariants(), "");
}

TEST(SegHeap, OnAMissTakesTheNearestLargerCachedBlockWhole) {
  Seg5 heap(1 << 16);
  void* p64 = heap.malloc(64);
  void* p256 = heap.malloc(256);
  heap.free(p256);
  heap.free(p64);
  std::size_t before = heap.remaining();
  void* p = heap.malloc(16);  // bin 16 and 32 empty: the 64 is nearest
  EXPECT_EQ(p, p64);
  EXPECT_EQ(heap.getSize(p), 64u);  // not split
  EXPECT_EQ(heap.malloc(100), p256);
  EXPECT_EQ(heap.remaining(), before);  // nothing new carved
  EXPECT_EQ(heap.checkInvariants(), "");
  // Freed again, each goes back to its own bin.
  heap.free(p);
  heap.free(p256);
  EXPECT_EQ(heap.malloc(64), p64);
  EXPECT_EQ(heap.malloc(256), p256);
  EXPECT_EQ(heap.checkInvariants(), "");
}

TEST(SegHeap, NeverTakesASmallerBlock) {
  Seg5 heap(1 << 16);
  void* p32 = heap.malloc(32);
  heap.free(p32);
  void* p = heap.malloc(64);
  EXPECT_NE(p, p32);
  EXPECT_EQ(heap.getSize(p), 64u);
  EXPECT_EQ(heap.malloc(32), p32);
}

TEST(SegHeap, StaleBitsAreClearedAndTheSearchStillFindsBlocks) {
  Seg5 heap(1 << 16);
  void* a = heap.malloc(128);
  void* b = heap.malloc(256);
  heap.free(a);
  heap.free(b);
  EXPECT_EQ(heap.malloc(128), a);  // bin 128 now empty, its bit stale
  EXPECT_EQ(heap.malloc(16), b);   // skips the empty 128 bin, finds 256
  std::size_t before = heap.remaining();
  EXPECT_NE(heap.malloc(16), nullptr);  // all empty: from Super
  EXPECT_EQ(heap.remaining(), before - 32);
  EXPECT_EQ(heap.checkInvariants(), "");
}

TEST(SegHeap, OutOfMemoryPropagatesAsNullUntilSomethingIsFreed) {
  Seg5 heap(1024);
  std::vector<void*> blocks;
  while (void* p = heap.malloc(128)) blocks.push_back(p);
  EXPECT_EQ(blocks.size(), 7u);  // 7 * 144 = 1008
  EXPECT_EQ(heap.malloc(1), nullptr);  // 16 bytes left: not enough for header + 16
  EXPECT_EQ(heap.malloc(1000), nullptr);
  heap.free(blocks[0]);
  EXPECT_EQ(heap.malloc(1), blocks[0]);  // a bigger cached block saves the day
  EXPECT_EQ(heap.malloc(1), nullptr);
  EXPECT_EQ(heap.checkInvariants(), "");
}

TEST(SegHeap, EdgeSizes) {
  Seg5 heap(4096);
  EXPECT_EQ(heap.getSize(heap.malloc(0)), 16u);
  EXPECT_EQ(heap.getSize(heap.malloc(16)), 16u);
  EXPECT_EQ(heap.malloc(SIZE_MAX), nullptr);
  EXPECT_EQ(heap.malloc(std::size_t{1} << 40), nullptr);
  EXPECT_EQ(heap.malloc(4096), nullptr);
  heap.free(nullptr);

  SegHeap<kPow2ClassCount, pow2SizeClass, pow2ClassMaxSize, FreelistHeap<NullHeap>,
          SizeHeap<FixedArena>> all(4096);
  void* p = all.malloc(1000);
  all.free(p);
  EXPECT_EQ(all.malloc(std::size_t{1} << 63), nullptr);  // the last class: search finds nothing big enough
  EXPECT_EQ(all.malloc(SIZE_MAX), nullptr);
  EXPECT_EQ(all.malloc(1), p);
  EXPECT_EQ(all.checkInvariants(), "");
}

}  // namespace
}  // namespace kith::heap
