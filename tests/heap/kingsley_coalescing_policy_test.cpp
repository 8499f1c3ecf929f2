// The `kingsley-coalescing` policy (policies.h; paper §8): Kingsley's power-of-two
// classes as lists of free blocks searched upward, under CoalesceHeap.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <vector>

#include "heap/policies.h"
#include "heap/workload.h"
#include "tests/heap/policy_test_support.h"

namespace kith::heap {
namespace {

using testing::kWholeOverhead;

static_assert(SizedHeap<KingsleyCoalescingPolicy>);

TEST(KingsleyCoalescingPolicy, IsRegisteredAsKingsleyCoalescing) {
  EXPECT_TRUE(testing::isRegisteredAs<KingsleyCoalescingPolicy>("kingsley-coalescing"));
}

TEST(KingsleyCoalescingPolicy, StartsAsOneFreeBlockSpanningTheArena) {
  KingsleyCoalescingPolicy h(1 << 20);
  EXPECT_EQ(h.freeBytes(), (1u << 20) - kWholeOverhead);
  EXPECT_EQ(h.checkInvariants(), "");
}

// Splitting: a block is cut to the request (plus its 8-byte size word, to 16
// bytes), not rounded up to a power of two as `kingsley` does.
TEST(KingsleyCoalescingPolicy, SplitsABlockToTheRequestNotToAPowerOfTwo) {
  KingsleyCoalescingPolicy h(1 << 20);
  EXPECT_EQ(h.getSize(h.malloc(100)), 104u);
  EXPECT_EQ(h.getSize(h.malloc(1000)), 1000u);
  EXPECT_EQ(h.getSize(h.malloc(4097)), 4104u);
  EXPECT_EQ(h.getSize(h.malloc(1)), 24u);
  EXPECT_EQ(h.checkInvariants(), "");
}

// What Kingsley cannot do (kingsley_policy_test: "never across classes"): a freed
// block serves a request of another class, and its neighbours merge with it.
TEST(KingsleyCoalescingPolicy, AFreedBlockServesOtherClassesAndMergesWithItsNeighbours) {
  KingsleyCoalescingPolicy h(1 << 16);
  void* a = h.malloc(1000);
  void* b = h.malloc(1000);
  void* guard = h.malloc(16);
  h.free(a);
  EXPECT_EQ(h.malloc(16), a);  // the smallest fitting list is a's, below the arena's rest
  EXPECT_EQ(h.lastOutcome(), Outcome::split);
  h.free(a);
  h.free(b);  // a and b are one free block again
  std::size_t blocks = 0;
  h.forEachFreeBlock([&](void*) { ++blocks; });
  EXPECT_EQ(blocks, 2u);  // a+b, and the arena's rest beyond the guard
  EXPECT_EQ(h.malloc(1024), a);  // more than a or b held alone
  EXPECT_EQ(h.lastOutcome(), Outcome::split);
  EXPECT_EQ(h.checkInvariants(), "");
  (void)guard;
}

// The highest arena offset any block reached: the paper's memory consumption (what
// an sbrk-based allocator would have taken from the system).
template <class Policy>
std::size_t highWaterMark(Policy& h, const std::vector<WorkloadStep>& steps, std::size_t slotCount) {
  std::vector<void*> slots(slotCount);
  std::size_t mark = 0;
  for (const WorkloadStep& s : steps) {
    if (s.size == 0) {
      h.free(slots[s.slot]);
      continue;
    }
    void* p = h.malloc(s.size);
    EXPECT_NE(p, nullptr);
    if (p == nullptr) return 0;
    slots[s.slot] = p;
    mark = std::max(mark, static_cast<std::size_t>(static_cast<std::byte*>(p) - h.arenaBase()) + h.getSize(p));
  }
  return mark;
}

// Phases of one size each, every block freed before the next phase: Kingsley takes
// fresh memory for every class, the coalescing heap gets each phase's blocks back as
// one block. (The paper: coalescing cut Kingsley's memory by half on average.)
TEST(KingsleyCoalescingPolicy, CoalescingReusesMemoryKingsleyLeavesInOtherClasses) {
  std::vector<WorkloadStep> steps;
  for (std::uint32_t size : {48, 96, 200, 400, 800}) {
    for (std::uint32_t i = 0; i < 2000; ++i) steps.push_back({i, size});
    for (std::uint32_t i = 0; i < 2000; ++i) steps.push_back({i, 0});
  }
  KingsleyPolicy kingsley(16 << 20);
  KingsleyCoalescingPolicy coalescing(16 << 20);
  const std::size_t without = highWaterMark(kingsley, steps, 2000);
  const std::size_t with = highWaterMark(coalescing, steps, 2000);
  EXPECT_EQ(without, 2000u * (80 + 144 + 272 + 528 + 1040));  // every class's blocks, headers included
  // The largest phase's blocks after the chunk record; the last one's usable bytes
  // reach 8 into the next block (its previous-size word, free while this is in use).
  EXPECT_EQ(with, 16 + 2000u * 816 + 8);
  EXPECT_EQ(coalescing.checkInvariants(), "");
}

TEST(KingsleyCoalescingPolicy, UsesNoMoreMemoryThanKingsleyOnRandomWorkloads) {
  for (auto mix : {SizeMix::jvmLike, SizeMix::fragmenting}) {
    const auto steps = makeWorkload(mix, 5, 100'000, 4000);
    KingsleyPolicy kingsley(64 << 20);
    KingsleyCoalescingPolicy coalescing(64 << 20);
    const std::size_t without = highWaterMark(kingsley, steps, 4000);
    const std::size_t with = highWaterMark(coalescing, steps, 4000);
    EXPECT_LT(with, without) << static_cast<int>(mix);
    EXPECT_EQ(coalescing.checkInvariants(), "");
  }
}

TEST(KingsleyCoalescingPolicy, InvariantsHoldAfterEveryOperationOfAScript) {
  KingsleyCoalescingPolicy h(1 << 14);
  ASSERT_NO_FATAL_FAILURE(testing::runScriptCheckingInvariants(
      h, {1, 100, 16, 700, 33, 4000, 48, 5, 64, 65, 2048}, {1, 3, 2, 6, 0, 9, 5}, {90, 10, 600, 60}));
  EXPECT_EQ(h.freeBytes(), (1u << 14) - kWholeOverhead);  // one block again
}

TEST(KingsleyCoalescingPolicy, EdgeSizes) {
  const std::size_t arena = 1 << 16;
  KingsleyCoalescingPolicy h(arena);
  testing::expectEdgeSizes(h, arena);
  h.free(nullptr);
  EXPECT_EQ(h.checkInvariants(), "");
}

TEST(KingsleyCoalescingPolicy, TinyArenasRunOutWithNullNeverACrash) {
  for (std::size_t arena : {0, 16, 48, 64, 128}) {
    KingsleyCoalescingPolicy h(arena);
    testing::expectTinyArenaFillsAndEmpties(h, arena);
  }
}

TEST(KingsleyCoalescingPolicy, ShadowModelInASmallArena) {
  for (auto mix : {SizeMix::jvmLike, SizeMix::fragmenting}) {
    KingsleyCoalescingPolicy h(4 << 20);
    auto r = testing::runCheckedShadowModel(h, {.seed = 13, .operations = 200'000, .mix = mix, .checkEvery = 2'000});
    EXPECT_EQ(r.error, "");
    EXPECT_EQ(r.mallocs, r.frees);
    EXPECT_EQ(h.freeBytes(), (4u << 20) - kWholeOverhead);  // everything freed merges back into one block
  }
}

// Bounded time: every malloc within 3 steps (2, plus 1 when it splits) and every
// free within 3, on random workloads, whatever the number of free blocks.
TEST(KingsleyCoalescingPolicy, EveryCallWithinItsStepBoundOnRandomWorkloads) {
  static_assert(KingsleyCoalescingPolicy::kMaxMallocSteps == 3 && KingsleyCoalescingPolicy::kMaxFreeSteps == 3);
  for (auto mix : {SizeMix::jvmLike, SizeMix::fragmenting}) {
    KingsleyCoalescingPolicy h(64 << 20);
    std::vector<void*> slots(4000);
    std::size_t maxFree = 0, merges = 0;
    for (const WorkloadStep& s : makeWorkload(mix, 3, 100'000, 4000)) {
      if (s.size) {
        slots[s.slot] = h.malloc(s.size);
        ASSERT_NE(slots[s.slot], nullptr);
        ASSERT_EQ(h.lastSteps(), h.lastOutcome() == Outcome::split ? 3u : 2u);
      } else {
        h.free(slots[s.slot]);
        ASSERT_GE(h.lastFreeSteps(), 1u);
        ASSERT_LE(h.lastFreeSteps(), KingsleyCoalescingPolicy::kMaxFreeSteps);
        maxFree = std::max(maxFree, h.lastFreeSteps());
        merges += h.lastFreeSteps() > 1;
      }
    }
    EXPECT_EQ(maxFree, 3u);  // frees between two free neighbours happen
    EXPECT_GT(merges, 10'000u);
    EXPECT_EQ(h.checkInvariants(), "");
  }
}

}  // namespace
}  // namespace kith::heap
