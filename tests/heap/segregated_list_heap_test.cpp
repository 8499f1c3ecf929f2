// SegregatedListHeap: one free list per power-of-two class, searched upward from
// the request's class. Tested under CoalesceHeap, the only way it is used;
// kingsley_coalescing_policy_test.cpp covers the policy.
#include "heap/layers/segregated_list_heap.h"

#include <gtest/gtest.h>

#include <cstddef>
#include <cstdint>
#include <vector>

#include "heap/layers/coalesce_heap.h"
#include "heap/layers/coalesceable_heap.h"
#include "heap/layers/fixed_arena.h"
#include "heap/layers/size_classes.h"

namespace kith::heap {
namespace {

using Lists = SegregatedListHeap<kPow2ClassCount, pow2SizeClass, pow2ClassMaxSize, CoalesceableHeap<FixedArena>>;

// The lists with a way to plant a bad state.
class ExposedLists : public Lists {
 public:
  using Lists::Lists;
  void clearNonEmptyBit(int list) { nonEmpty_ &= ~(std::uint64_t{1} << list); }
};
using Heap = CoalesceHeap<ExposedLists>;

std::vector<void*> freeBlocks(const Heap& h) {
  std::vector<void*> blocks;
  h.forEachFreeBlock([&](void* b) { blocks.push_back(b); });
  return blocks;
}

TEST(SegregatedListHeap, FilesABlockUnderTheLargestClassAllOfWhoseRequestsItHolds) {
  EXPECT_EQ(Lists::listOf(16), 0);
  EXPECT_EQ(Lists::listOf(24), 0);  // the smallest block's usable bytes
  EXPECT_EQ(Lists::listOf(31), 0);
  EXPECT_EQ(Lists::listOf(32), 1);
  EXPECT_EQ(Lists::listOf(104), 2);  // holds every request of the 64-byte class, not of 128
  EXPECT_EQ(Lists::listOf(312), 4);
  EXPECT_EQ(Lists::listOf(std::size_t{1} << 20), 16);
  EXPECT_EQ(Lists::listOf((std::size_t{1} << 20) - 8), 15);
}

// The arena is one free block on its list; the largest request served is its
// class's first size, not the block's: a request of the next class finds no list.
TEST(SegregatedListHeap, AFreshHeapIsOneBlockServingRequestsUpToItsClass) {
  Heap h(1 << 20);
  ASSERT_EQ(freeBlocks(h).size(), 1u);
  EXPECT_EQ(h.freeBytes(), (1u << 20) - 40);  // chunk record, header, end sentinel
  EXPECT_EQ(h.largestFreeBlock(), 1u << 19);
  EXPECT_EQ(h.checkInvariants(), "");
  EXPECT_EQ(h.malloc((1u << 19) + 1), nullptr);
  EXPECT_EQ(h.lastOutcome(), Outcome::failed);
  void* half = h.malloc(1u << 19);
  ASSERT_NE(half, nullptr);
  EXPECT_EQ(h.lastOutcome(), Outcome::split);
  EXPECT_EQ(h.checkInvariants(), "");
}

// a (40 usable: list 1), b (104: list 2) and c (312: list 4) freed between guards.
struct ThreeHoles {
  Heap h{1 << 16};
  void* a = h.malloc(40);
  void* g1 = h.malloc(16);
  void* b = h.malloc(100);
  void* g2 = h.malloc(16);
  void* c = h.malloc(300);
  void* g3 = h.malloc(16);
  ThreeHoles() {
    h.free(a);
    h.free(b);
    h.free(c);
  }
};

TEST(SegregatedListHeap, TakesTheHeadOfTheSmallestNonEmptyListAtOrAboveTheClass) {
  ThreeHoles f;
  EXPECT_EQ(f.h.checkInvariants(), "");
  EXPECT_EQ(f.h.malloc(33), f.b);  // class 64: list 2 holds b
  EXPECT_EQ(f.h.lastOutcome(), Outcome::split);
  EXPECT_EQ(f.h.malloc(65), f.c);  // class 128: list 3 is empty, list 4 holds c
  EXPECT_EQ(f.h.checkInvariants(), "");
}

// a could hold 40 bytes, but it sits on the list below the request's class and is
// never looked at (good fit, as TLSF's): the request takes a larger block.
TEST(SegregatedListHeap, ABlockOnAListBelowTheRequestsClassIsNotLookedAt) {
  ThreeHoles f;
  EXPECT_EQ(f.h.malloc(40), f.b);
  void* p = f.h.malloc(40);  // b's rest went to list 1, beside a; c is on list 4
  EXPECT_EQ(p, f.c);
  EXPECT_EQ(f.h.checkInvariants(), "");
}

// Steps: the search, the unlink (or Super on a miss), the rest of a split filed;
// a free unlinks its free neighbours and files the merged block.
TEST(SegregatedListHeap, CountsTheStepsOfEachMallocAndFree) {
  Heap h(1 << 16);
  void* a = h.malloc(40);
  EXPECT_EQ(h.lastSteps(), 3u);  // search, unlink the arena block, file its rest
  void* b = h.malloc(40);
  void* c = h.malloc(40);
  void* guard = h.malloc(40);
  h.free(b);
  EXPECT_EQ(h.lastFreeSteps(), 1u);  // no free neighbour
  EXPECT_EQ(h.malloc(32), b);        // b (40 usable) is on the 32-byte class's list
  EXPECT_EQ(h.lastOutcome(), Outcome::immediate);
  EXPECT_EQ(h.lastSteps(), 2u);  // an exact fit: search, unlink
  EXPECT_EQ(h.malloc(1 << 20), nullptr);
  EXPECT_EQ(h.lastSteps(), 2u);  // search, Super (the arena is taken)
  h.free(a);
  EXPECT_EQ(h.lastFreeSteps(), 1u);
  h.free(c);
  EXPECT_EQ(h.lastFreeSteps(), 1u);
  h.free(b);
  EXPECT_EQ(h.lastFreeSteps(), 3u);  // a below, c above: both unlinked, the merge filed
  h.free(guard);
  EXPECT_EQ(h.lastFreeSteps(), 3u);  // a+b+c below, the arena's rest above
  EXPECT_EQ(freeBlocks(h).size(), 1u);
  EXPECT_EQ(h.checkInvariants(), "");
}

// Donahue et al.'s Fig. 8 layout, which makes `list` walk N/2 holes: here the
// request skips them by their list, in the same steps whatever N is.
TEST(SegregatedListHeap, StepsStayConstantHoweverManyBlocksAreFree) {
  for (std::size_t n : {100, 10'000, 100'000}) {
    Heap h(16 << 20);
    std::vector<void*> blocks;
    for (std::size_t i = 0; i < n; ++i) blocks.push_back(h.malloc(32));
    for (std::size_t i = 0; i < n; i += 2) h.free(blocks[i]);
    ASSERT_EQ(freeBlocks(h).size(), n / 2 + 1);
    void* big = h.malloc(256);
    EXPECT_GT(big, blocks.back()) << n;  // from the arena's rest
    EXPECT_EQ(h.lastSteps(), 3u) << n;
    EXPECT_EQ(h.malloc(32), blocks[n - 2]) << n;  // the last hole freed, at its list's head
    EXPECT_EQ(h.lastSteps(), 2u) << n;
  }
}

TEST(SegregatedListHeap, CheckInvariantsCatchesABlockOnTheWrongListAndAStaleBit) {
  ThreeHoles f;
  ASSERT_EQ(f.h.checkInvariants(), "");
  f.h.clearNonEmptyBit(4);  // c's list
  EXPECT_NE(f.h.checkInvariants().find("segregated list 4 (256 B): holds blocks, but its non-empty bit is clear"),
            std::string::npos)
      << f.h.checkInvariants();
  EXPECT_NE(f.h.checkFreeStructure(), "");

  ThreeHoles g;
  // b's size word overwritten with that of a 48-byte free block: b is then a block
  // of 40 usable bytes filed on list 2.
  *reinterpret_cast<std::size_t*>(static_cast<std::byte*>(g.b) - 8) = 48 | 1;
  EXPECT_NE(g.h.checkFreeStructure().find("segregated list 2 (64 B): holds a block of 40 usable bytes, which belongs on list 1"),
            std::string::npos)
      << g.h.checkFreeStructure();
  EXPECT_NE(g.h.checkInvariants(), "");
}

}  // namespace
}  // namespace kith::heap
