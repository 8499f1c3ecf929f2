// UnstructuredListHeap: one LIFO list, first fit from the head. Tested under
// CoalesceHeap, the only way it is used; list_policy_test.cpp covers the policy.
#include "heap/classic/unstructured_list_heap.h"

#include <gtest/gtest.h>

#include <vector>

#include "heap/layers/coalesce_heap.h"
#include "heap/layers/coalesceable_heap.h"
#include "heap/layers/fixed_arena.h"

namespace kith::heap {
namespace {

using List = CoalesceHeap<UnstructuredListHeap<CoalesceableHeap<FixedArena>>>;

std::vector<void*> listOrder(const List& h) {
  std::vector<void*> order;
  h.forEachFreeBlock([&](void* b) { order.push_back(b); });
  return order;
}

TEST(UnstructuredListHeap, FreedBlocksArePushedAtTheHeadAndTheRemainderStaysBehind) {
  List h(1 << 16);
  void* x = h.malloc(32);
  void* g1 = h.malloc(32);
  void* y = h.malloc(32);
  void* g2 = h.malloc(32);
  void* z = h.malloc(32);
  void* g3 = h.malloc(32);
  ASSERT_EQ(listOrder(h).size(), 1u);  // the remainder only
  void* rest = listOrder(h)[0];
  h.free(x);
  h.free(y);
  h.free(z);
  EXPECT_EQ(listOrder(h), (std::vector<void*>{z, y, x, rest}));
  EXPECT_EQ(h.freeBlockCount(), 4u);
  EXPECT_EQ(h.checkInvariants(), "");
  (void)g1, (void)g2, (void)g3;
}

TEST(UnstructuredListHeap, FirstFitTakesTheFirstBlockThatFitsNotTheBest) {
  List h(1 << 16);
  void* a = h.malloc(64);   // 80-byte block, 72 usable
  void* g1 = h.malloc(16);
  void* b = h.malloc(256);  // 272-byte block, 264 usable
  void* g2 = h.malloc(16);
  void* c = h.malloc(128);  // 144-byte block, 136 usable: the best fit for 100
  void* g3 = h.malloc(16);
  h.free(c);
  h.free(b);
  h.free(a);  // list: a, b, c, rest
  void* p = h.malloc(100);
  EXPECT_EQ(p, b);  // a is too small; b is the first that fits
  EXPECT_EQ(h.lastSteps(), 2u);
  EXPECT_EQ(h.lastOutcome(), Outcome::split);
  // The rest of b went back to the head of the list.
  void* restOfB = static_cast<std::byte*>(b) + List::blockBytesFor(100);
  EXPECT_EQ(listOrder(h)[0], restOfB);
  EXPECT_EQ(h.checkInvariants(), "");
  EXPECT_EQ(h.malloc(100), restOfB);  // so it is the first to fit now
  EXPECT_EQ(h.lastSteps(), 1u);
  EXPECT_EQ(h.checkInvariants(), "");
  (void)g1, (void)g2, (void)g3;
}

TEST(UnstructuredListHeap, LastStepsCountsTheNodesVisited) {
  List h(1 << 16);
  std::vector<void*> blocks;
  for (int i = 0; i < 10; ++i) blocks.push_back(h.malloc(16));
  EXPECT_EQ(h.lastSteps(), 1u);  // always the remainder at the head
  for (int i = 0; i < 10; i += 2) h.free(blocks[i]);  // 5 small blocks before the remainder
  h.malloc(16);
  EXPECT_EQ(h.lastSteps(), 1u);
  EXPECT_EQ(h.lastOutcome(), Outcome::immediate);
  h.malloc(1000);
  EXPECT_EQ(h.lastSteps(), 5u);  // 4 small ones, then the remainder
  EXPECT_EQ(h.lastOutcome(), Outcome::split);
}

TEST(UnstructuredListHeap, FreeBytesAndLargestFreeBlockFollowTheList) {
  List h(4096);
  const std::size_t whole = 4096 - 32 - 8;
  EXPECT_EQ(h.freeBytes(), whole);
  EXPECT_EQ(h.largestFreeBlock(), whole);
  void* a = h.malloc(100);  // 112-byte block
  void* b = h.malloc(200);  // 208-byte block
  EXPECT_EQ(h.freeBytes(), whole - 112 - 208);
  EXPECT_EQ(h.largestFreeBlock(), whole - 112 - 208);
  h.free(a);
  EXPECT_EQ(h.freeBytes(), whole - 208 - 8);  // two free blocks, one size word each
  EXPECT_EQ(h.largestFreeBlock(), whole - 112 - 208);
  EXPECT_NE(h.malloc(h.largestFreeBlock()), nullptr);  // the largest really is servable
  EXPECT_EQ(h.largestFreeBlock(), 104u);              // a is what is left
  EXPECT_EQ(h.malloc(105), nullptr);
  EXPECT_EQ(h.checkInvariants(), "");
  (void)b;
}

}  // namespace
}  // namespace kith::heap
