// The heap calls a collector's paths make (heap/heap.h): Heap::freeAndGetSize, the
// sweeps' one call per object freed, must free and count exactly as getSize then
// free did, for every policy and statistics mode; Heap::mallocDefragmenting, the
// allocation gate's last resort, moves blocks for its one request and leaves the
// policy's defragmenter off for every other.
#include <gtest/gtest.h>

#include <cstddef>
#include <memory>
#include <string>
#include <vector>

#include "heap/heap.h"
#include "tests/heap/policy_test_name.h"

namespace kith::gc::testing {
namespace {

constexpr std::size_t kHeapBytes = 1 << 20;

// The counts a collector's frees change (times are not compared).
void expectSameCounts(const heap::HeapStatistics& a, const heap::HeapStatistics& b) {
  EXPECT_EQ(a.allocations, b.allocations);
  EXPECT_EQ(a.frees, b.frees);
  EXPECT_EQ(a.bytes_allocated, b.bytes_allocated);
  EXPECT_EQ(a.bytes_in_use, b.bytes_in_use);
  EXPECT_EQ(a.peak_bytes_in_use, b.peak_bytes_in_use);
  EXPECT_EQ(a.satisfied, b.satisfied);
  EXPECT_EQ(a.immediate_leftover, b.immediate_leftover);
  EXPECT_EQ(a.size_histogram, b.size_histogram);
  EXPECT_EQ(a.free_steps.count, b.free_steps.count);
  EXPECT_EQ(a.free_steps.max, b.free_steps.max);
  EXPECT_EQ(a.free_steps.histogram, b.free_steps.histogram);
}

class FreeAndGetSize : public ::testing::TestWithParam<std::string> {};

TEST_P(FreeAndGetSize, FreesAndCountsAsGetSizeThenFree) {
  for (heap::StatisticsMode mode :
       {heap::StatisticsMode::none, heap::StatisticsMode::bytesInUse, heap::StatisticsMode::counts}) {
    SCOPED_TRACE(static_cast<int>(mode));
    std::unique_ptr<heap::Heap> twoCalls = heap::makeHeap(GetParam(), kHeapBytes, mode);
    std::unique_ptr<heap::Heap> oneCall = heap::makeHeap(GetParam(), kHeapBytes, mode);
    ASSERT_TRUE(twoCalls && oneCall);
    // The same requests on both; every other block freed, then the rest (so the
    // second round frees into a heap the first has fragmented).
    constexpr std::size_t kSizes[] = {16, 24, 40, 100, 300, 1000, 24, 16};
    std::vector<void*> a, b;
    for (int round = 0; round < 100; ++round)
      for (std::size_t size : kSizes) {
        a.push_back(twoCalls->malloc(size));
        b.push_back(oneCall->malloc(size));
        ASSERT_TRUE(a.back() && b.back());
      }
    for (int pass = 0; pass < 2; ++pass)
      for (std::size_t i = pass; i < a.size(); i += 2) {
        twoCalls->free(a[i]);
        const std::size_t size = oneCall->getSize(b[i]), inUse = oneCall->bytesInUse();
        ASSERT_EQ(oneCall->freeAndGetSize(b[i]), size) << "block " << i;
        if (mode != heap::StatisticsMode::none) {
          ASSERT_EQ(oneCall->bytesInUse(), inUse - size) << "block " << i;
        }
      }
    // The system allocator's blocks depend on what else the process holds (here the
    // twin's): only a policy over its own arena serves both alike.
    if (oneCall->arenaBase()) {
      expectSameCounts(twoCalls->statistics(), oneCall->statistics());
      EXPECT_EQ(oneCall->bytesInUse(), twoCalls->bytesInUse());
    } else {
      EXPECT_EQ(oneCall->statistics().frees, twoCalls->statistics().frees);
      EXPECT_EQ(oneCall->bytesInUse(), twoCalls->bytesInUse()) << "nothing left in use in either";
    }
    EXPECT_EQ(oneCall->checkInvariants(), "");
  }
}

std::vector<std::string> policyNames() {
  std::vector<std::string> names;
  for (const heap::PolicyInfo& p : heap::policyList()) names.emplace_back(p.name);
  return names;
}

INSTANTIATE_TEST_SUITE_P(Policies, FreeAndGetSize, ::testing::ValuesIn(policyNames()),
                         [](const auto& info) { return heap::testing::policyTestName(info.param); });

// Counts the relocation callbacks (the heap has copied the block already).
struct Moves {
  std::size_t count = 0;
  static void relocated(void* self, void*, void*, std::size_t) { ++static_cast<Moves*>(self)->count; }
};

class MallocDefragmentingOnAMovingHeap : public ::testing::TestWithParam<std::string> {};

TEST_P(MallocDefragmentingOnAMovingHeap, MovesBlocksForItsOneRequestOnly) {
  std::unique_ptr<heap::Heap> heap = heap::makeHeap(GetParam(), 64 << 10, heap::StatisticsMode::counts);
  ASSERT_TRUE(heap);
  // A checkerboard: 16-byte blocks with every other one freed. Half the heap is free,
  // but no two free blocks are buddies.
  std::vector<void*> blocks;
  while (void* p = heap->malloc(16)) blocks.push_back(p);
  for (std::size_t i = 0; i < blocks.size(); i += 2) heap->free(blocks[i]);
  Moves moves;
  ASSERT_EQ(heap->malloc(32), nullptr) << "a plain malloc must not defragment";
  void* made = heap->mallocDefragmenting(32, nullptr, &Moves::relocated, &moves);
  ASSERT_NE(made, nullptr);
  EXPECT_GT(moves.count, 0u);
  // Off again: plain mallocs of the same size fail where a defragmenter would still
  // find checkerboard regions to empty.
  const std::size_t movedForTheRequest = moves.count;
  while (heap->malloc(32)) {
  }
  EXPECT_EQ(moves.count, movedForTheRequest);
  EXPECT_EQ(heap->checkInvariants(), "");
}

INSTANTIATE_TEST_SUITE_P(Buddy, MallocDefragmentingOnAMovingHeap, ::testing::Values("knuth", "estranged"));

TEST(MallocDefragmenting, IsNullOnAPolicyThatCannotMoveBlocks) {
  std::unique_ptr<heap::Heap> heap = heap::makeHeap("list", 64 << 10, heap::StatisticsMode::counts);
  ASSERT_TRUE(heap);
  Moves moves;
  EXPECT_EQ(heap->mallocDefragmenting(32, nullptr, &Moves::relocated, &moves), nullptr);
  EXPECT_EQ(moves.count, 0u);
  EXPECT_EQ(heap->statistics().allocations, 0u) << "nothing was asked of the policy";
}

}  // namespace
}  // namespace kith::gc::testing
