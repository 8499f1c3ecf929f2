// The `list` policy: the JDK 1.1.8 unstructured-list baseline, as registered.
#include <gtest/gtest.h>

#include <cstdint>
#include <vector>

#include "heap/policies.h"
#include "tests/heap/policy_test_support.h"

namespace kith::heap {
namespace {

using testing::kWholeOverhead;

TEST(ListPolicy, IsRegisteredAsList) { EXPECT_TRUE(testing::isRegisteredAs<ListPolicy>("list")); }

TEST(ListPolicy, StartsAsOneFreeBlockSpanningTheArena) {
  ListPolicy h(1 << 20);
  EXPECT_EQ(h.freeBlockCount(), 1u);
  EXPECT_EQ(h.freeBytes(), (1u << 20) - kWholeOverhead);
  EXPECT_EQ(h.largestFreeBlock(), (1u << 20) - kWholeOverhead);
  EXPECT_EQ(h.checkInvariants(), "");
}

// Donahue et al. §3.1 (Fig. 8): N blocks of one size, every other one freed, then
// a larger request. The list holds the N/2 small holes ahead of the remainder, so
// the search visits all of them: its length grows linearly with N.
std::size_t figure8Steps(std::size_t n) {
  ListPolicy h(8 << 20);
  std::vector<void*> blocks;
  for (std::size_t i = 0; i < n; ++i) blocks.push_back(h.malloc(32));
  for (std::size_t i = 0; i < n; i += 2) h.free(blocks[i]);
  EXPECT_EQ(h.freeBlockCount(), n / 2 + 1);
  void* big = h.malloc(256);
  EXPECT_GT(big, blocks.back());  // from the remainder at the tail
  EXPECT_EQ(h.lastOutcome(), Outcome::split);
  EXPECT_EQ(h.checkInvariants(), "");
  return h.lastSteps();
}

TEST(ListPolicy, Figure8SearchGrowsWithTheNumberOfHoles) {
  EXPECT_EQ(figure8Steps(100), 51u);
  EXPECT_EQ(figure8Steps(1000), 501u);
  EXPECT_EQ(figure8Steps(20000), 10001u);
}

TEST(ListPolicy, Figure8SmallRequestsStillHitTheHead) {
  ListPolicy h(1 << 20);
  std::vector<void*> blocks;
  for (int i = 0; i < 1000; ++i) blocks.push_back(h.malloc(32));
  for (int i = 0; i < 1000; i += 2) h.free(blocks[i]);
  EXPECT_EQ(h.malloc(32), blocks[998]);  // the most recently freed hole
  EXPECT_EQ(h.lastSteps(), 1u);
  EXPECT_EQ(h.lastOutcome(), Outcome::immediate);
}

TEST(ListPolicy, InvariantsHoldAfterEveryOperationOfAScript) {
  ListPolicy h(1 << 14);
  // The frees make left, right and both-sided merges.
  ASSERT_NO_FATAL_FAILURE(testing::runScriptCheckingInvariants(
      h, {1, 100, 16, 700, 33, 2048, 48, 5}, {1, 3, 2, 6, 0}, {90, 10, 600}));
  EXPECT_EQ(h.freeBlockCount(), 1u);
  EXPECT_EQ(h.freeBytes(), (1u << 14) - kWholeOverhead);
}

TEST(ListPolicy, EdgeSizes) {
  const std::size_t arena = 1 << 16;
  ListPolicy h(arena);
  testing::expectEdgeSizes(h, arena);
}

TEST(ListPolicy, TheLargestFreeBlockIsExactlyServable) {
  ListPolicy h(1 << 16);
  std::size_t largest = h.largestFreeBlock();
  EXPECT_EQ(h.malloc(largest + 1), nullptr);
  void* all = h.malloc(largest);
  ASSERT_NE(all, nullptr);
  EXPECT_EQ(h.freeBytes(), 0u);
  EXPECT_EQ(h.malloc(0), nullptr);
  h.free(all);
  EXPECT_EQ(h.largestFreeBlock(), largest);
  EXPECT_EQ(h.checkInvariants(), "");
}

TEST(ListPolicy, TinyArenasRunOutWithNullNeverACrash) {
  for (std::size_t arena : {0, 16, 48, 64, 128}) {
    ListPolicy h(arena);
    testing::expectTinyArenaFillsAndEmpties(h, arena);
  }
}

TEST(ListPolicy, ShadowModelJvmLike) {
  ListPolicy h(32 << 20);
  auto r = testing::runCheckedShadowModel(h, {.seed = 7, .operations = 200'000, .checkEvery = 1000});
  EXPECT_EQ(r.error, "");
  EXPECT_EQ(r.failures, 0u);
  EXPECT_EQ(h.freeBlockCount(), 1u);  // everything freed coalesces back into one block
}

TEST(ListPolicy, ShadowModelFragmentingInASmallArena) {
  ListPolicy h(1 << 20);  // small enough that some requests fail
  auto r = testing::runCheckedShadowModel(
      h, {.seed = 11, .operations = 100'000, .mix = testing::SizeMix::fragmenting, .checkEvery = 1000});
  EXPECT_EQ(r.error, "");
  EXPECT_GT(r.failures, 0u);
  EXPECT_EQ(h.freeBlockCount(), 1u);
}

}  // namespace
}  // namespace kith::heap
