// QuickListHeap over the coalescing heaps: exact-size caching up to a capacity, no
// coalescing while cached, consolidation before large requests and on failure,
// and step counts that include the heap below.
#include "heap/layers/quick_list_heap.h"

#include <gtest/gtest.h>

#include <vector>

#include "heap/layers/coalesce_heap.h"
#include "heap/layers/coalesceable_heap.h"
#include "heap/layers/fixed_arena.h"
#include "heap/classic/lea_bins_heap.h"
#include "heap/classic/unstructured_list_heap.h"

namespace kith::heap {
namespace {

using Quick = QuickListHeap<64, 1000, 4096, CoalesceHeap<LeaBinsHeap<CoalesceableHeap<FixedArena>>>>;
// The layer is not tied to Lea's bins: any coalescing heap with getSize and lastOutcome.
using QuickOverList = QuickListHeap<32, 1000, 1024, CoalesceHeap<UnstructuredListHeap<CoalesceableHeap<FixedArena>>>>;
// A small capacity: four blocks per list.
using Capped = QuickListHeap<64, 4, 4096, CoalesceHeap<LeaBinsHeap<CoalesceableHeap<FixedArena>>>>;
using Bins = CoalesceHeap<LeaBinsHeap<CoalesceableHeap<FixedArena>>>;

static_assert(CountsSteps<Bins>);
static_assert(!CountsSteps<CoalesceHeap<UnstructuredListHeap<CoalesceableHeap<FixedArena>>>>);

TEST(QuickListHeap, ListsAreSixteenBytesApart) {
  EXPECT_EQ(Quick::kListCount, 4u);
  EXPECT_EQ(Quick::listFor(1), 0u);
  EXPECT_EQ(Quick::listFor(16), 0u);
  EXPECT_EQ(Quick::listFor(17), 1u);
  EXPECT_EQ(Quick::listFor(48), 2u);
  EXPECT_EQ(Quick::listFor(64), 3u);
  EXPECT_EQ(Quick::listRequestSize(3), 64u);
}

TEST(QuickListHeap, SmallBlocksAreCachedAsTheyAreAndReusedLastInFirstOut) {
  Quick h(1 << 16);
  void* a = h.malloc(20);
  void* b = h.malloc(20);
  void* guard = h.malloc(200);
  ASSERT_NE(a, nullptr);
  EXPECT_GE(Quick::getSize(a), 32u);  // a miss takes the class's full size
  std::size_t freeBelow = h.CoalesceHeap::freeBytes();
  h.free(a);
  h.free(b);
  EXPECT_EQ(h.cachedBlocks(1), 2u);
  EXPECT_FALSE(Quick::isFree(a));  // still in use as far as the coalescing heap knows
  EXPECT_FALSE(Quick::isFree(b));
  EXPECT_EQ(h.CoalesceHeap::freeBytes(), freeBelow);  // neither filed nor coalesced
  EXPECT_EQ(h.freeBytes(), freeBelow + Quick::getSize(a) + Quick::getSize(b));
  EXPECT_EQ(h.checkInvariants(), "");
  EXPECT_EQ(h.malloc(30), b);
  EXPECT_EQ(h.lastOutcome(), Outcome::immediate);
  EXPECT_EQ(h.malloc(17), a);
  EXPECT_EQ(h.cachedBlocks(), 0u);
  EXPECT_EQ(h.checkInvariants(), "");
  (void)guard;
}

TEST(QuickListHeap, EachListHoldsOneBlockSize) {
  Quick h(1 << 16);
  std::vector<void*> blocks;
  for (std::size_t size : {1, 16, 17, 32, 33, 48, 49, 64}) blocks.push_back(h.malloc(size));
  for (void* p : blocks) h.free(p);
  for (unsigned c = 0; c < Quick::kListCount; ++c) EXPECT_EQ(h.cachedBlocks(c), 2u) << c;
  EXPECT_EQ(h.checkInvariants(), "");
  void* p = h.malloc(60);
  EXPECT_TRUE(p == blocks[6] || p == blocks[7]);
}

// malloc(0) is list 0's request, as malloc(1) is: a hit takes list 0's head in one
// step, and a miss gets the class's block with the same steps as malloc(1)'s.
TEST(QuickListHeap, ZeroBytesIsTheFirstListsRequest) {
  Quick h(1 << 16), one(1 << 16);
  void* a = h.malloc(0);
  void* b = one.malloc(1);
  ASSERT_NE(a, nullptr);
  EXPECT_EQ(h.lastSteps(), one.lastSteps());
  EXPECT_EQ(h.lastOutcome(), one.lastOutcome());
  EXPECT_EQ(Quick::getSize(a), Quick::getSize(b));
  h.free(a);
  EXPECT_EQ(h.cachedBlocks(0), 1u);
  EXPECT_EQ(h.malloc(0), a);
  EXPECT_EQ(h.lastSteps(), 1u);
  EXPECT_EQ(h.lastOutcome(), Outcome::immediate);
  EXPECT_EQ(h.cachedBlocks(), 0u);
  EXPECT_EQ(h.checkInvariants(), "");
}

TEST(QuickListHeap, LargerBlocksGoStraightToTheCoalescingHeap) {
  Quick h(1 << 16);
  void* a = h.malloc(100);
  void* guard = h.malloc(16);
  h.free(a);
  EXPECT_EQ(h.cachedBlocks(), 0u);
  EXPECT_TRUE(Quick::isFree(a));
  EXPECT_EQ(h.malloc(100), a);
  EXPECT_EQ(h.lastOutcome(), Outcome::immediate);  // reported by the heap below
  EXPECT_EQ(h.malloc(100), static_cast<std::byte*>(guard) + Quick::blockBytesFor(16));
  EXPECT_EQ(h.lastOutcome(), Outcome::split);
}

TEST(QuickListHeap, ALargeRequestConsolidatesTheListsFirst) {
  Quick h(1 << 16);
  std::vector<void*> small;
  for (int i = 0; i < 8; ++i) small.push_back(h.malloc(40));
  for (void* p : small) h.free(p);
  EXPECT_EQ(h.cachedBlocks(), 8u);
  void* big = h.malloc(4096);  // ConsolidateAt
  ASSERT_NE(big, nullptr);
  EXPECT_EQ(h.cachedBlocks(), 0u);
  EXPECT_EQ(big, small[0]);  // the eight blocks coalesced with the rest of the arena
  EXPECT_EQ(h.checkInvariants(), "");
}

TEST(QuickListHeap, AFailingRequestConsolidatesAndRetries) {
  Quick h(1024);
  std::vector<void*> small;
  while (void* p = h.malloc(16)) small.push_back(p);
  EXPECT_EQ(h.lastOutcome(), Outcome::failed);
  ASSERT_GE(small.size(), 20u);
  for (void* p : small) h.free(p);
  EXPECT_EQ(h.cachedBlocks(), small.size());
  void* p = h.malloc(900);  // only possible once the cached blocks coalesce
  ASSERT_NE(p, nullptr);
  EXPECT_EQ(h.cachedBlocks(), 0u);
  EXPECT_EQ(h.lastOutcome(), Outcome::split);
  EXPECT_EQ(h.checkInvariants(), "");
  EXPECT_EQ(h.malloc(900), nullptr);
  EXPECT_EQ(h.lastOutcome(), Outcome::failed);
}

TEST(QuickListHeap, WorksOverTheUnstructuredList) {
  QuickOverList h(4096);
  void* a = h.malloc(24);
  void* b = h.malloc(100);  // too big for a list: not cached
  h.free(a);
  h.free(b);
  EXPECT_EQ(h.cachedBlocks(), 1u);
  EXPECT_EQ(h.freeBlockCount(), 1u);  // b coalesced with the rest; a is cached
  EXPECT_EQ(h.checkInvariants(), "");
  EXPECT_EQ(h.largestFreeBlock(), h.CoalesceHeap::largestFreeBlock());
  EXPECT_NE(h.malloc(2000), nullptr);  // ConsolidateAt 1024
  EXPECT_EQ(h.cachedBlocks(), 0u);
  EXPECT_EQ(h.checkInvariants(), "");
}

TEST(QuickListHeap, FullListsSendTheFreeToTheCoalescingHeap) {
  Capped h(1 << 16);
  void* other = h.malloc(20);
  h.malloc(200);
  std::vector<void*> blocks;
  for (int i = 0; i < 6; ++i) {
    blocks.push_back(h.malloc(40));
    h.malloc(200);  // guards: nothing coalesces
  }
  h.free(other);  // one of the capacity's four on another list
  for (void* p : blocks) h.free(p);
  EXPECT_EQ(h.cachedBlocks(), 4u);  // the capacity, all lists together
  EXPECT_EQ(h.cachedBlocks(1), 1u);
  EXPECT_EQ(h.cachedBlocks(2), 3u);
  EXPECT_FALSE(Capped::isFree(blocks[2]));
  EXPECT_TRUE(Capped::isFree(blocks[3]));  // filed in Lea's bins
  EXPECT_TRUE(Capped::isFree(blocks[5]));
  EXPECT_EQ(h.checkInvariants(), "");
  EXPECT_EQ(h.malloc(40), blocks[2]);  // the lists still answer first
  EXPECT_EQ(h.lastSteps(), 1u);
  h.free(blocks[2]);
  EXPECT_EQ(h.lastFreeSteps(), 1u);  // room again: cached
  EXPECT_EQ(h.cachedBlocks(), 4u);
}

TEST(QuickListHeap, StepsCountTheListAndTheHeapBelow) {
  Capped h(1 << 16);
  void* a = h.malloc(40);
  // The empty list looked at; the arena's block found, unlinked, its rest filed.
  EXPECT_EQ(h.lastSteps(), 1u + 3u);
  h.malloc(200);
  h.free(a);
  EXPECT_EQ(h.lastFreeSteps(), 1u);  // pushed on its list
  void* big = h.malloc(1000);
  h.free(big);
  EXPECT_EQ(h.lastFreeSteps(), 2u);  // coalesced with the arena's rest: one unlink, one filing
  h.free(nullptr);
  EXPECT_EQ(h.lastFreeSteps(), 0u);
  EXPECT_EQ(Capped::maxMallocSteps(),
            1 + 4 * (1 + Bins::kMaxFreeSteps) + 2 * Bins::kMaxMallocSteps);
  EXPECT_EQ(Capped::maxFreeSteps(), Bins::kMaxFreeSteps);
}

// A consolidation storm: many small blocks freed, then a request that consolidates.
// With the capacity, consolidation frees at most Capacity blocks, so
// the request costs the same however many blocks were freed before it.
std::size_t stormSteps(std::size_t n) {
  Capped h(64 << 20);
  std::vector<void*> small;
  for (std::size_t i = 0; i < n; ++i) {
    small.push_back(h.malloc(16 + 16 * (i % 4)));
    h.malloc(100);  // guards, so every consolidated block is filed on its own
  }
  for (void* p : small) h.free(p);
  EXPECT_EQ(h.cachedBlocks(), std::min<std::size_t>(n, Capped::kCapacity));
  void* big = h.malloc(5000);
  EXPECT_NE(big, nullptr) << n;
  EXPECT_EQ(h.cachedBlocks(), 0u);
  EXPECT_EQ(h.checkInvariants(), "");
  EXPECT_LE(h.lastSteps(), Capped::maxMallocSteps());
  return h.lastSteps();
}

TEST(QuickListHeap, AConsolidationStormIsBoundedByTheCapacity) {
  std::size_t full = stormSteps(100);
  EXPECT_GE(full, 4u * 2);  // four blocks popped and filed
  EXPECT_EQ(stormSteps(10'000), full);
  EXPECT_EQ(stormSteps(100'000), full);
}

}  // namespace
}  // namespace kith::heap
