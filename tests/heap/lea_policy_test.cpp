// The `lea` policy as registered: quick lists for small requests, Lea's bins with
// coalescing for medium and large ones, all in one arena.
#include <gtest/gtest.h>

#include <cstdint>
#include <vector>

#include "heap/policies.h"
#include "tests/heap/policy_test_support.h"

namespace kith::heap {
namespace {

using Bins = LeaBinsHeap<CoalesceableHeap<FixedArena>>;
using testing::kWholeOverhead;

TEST(LeaPolicy, IsRegisteredAsLea) { EXPECT_TRUE(testing::isRegisteredAs<LeaPolicy>("lea")); }

TEST(LeaPolicy, StartsAsOneLargeFreeBlock) {
  LeaPolicy h(1 << 20);
  EXPECT_EQ(h.nonEmptyBins(), std::uint64_t{1} << Bins::kLargeBin);
  EXPECT_EQ(h.freeBytes(), (1u << 20) - kWholeOverhead);
  EXPECT_EQ(h.largestFreeBlock(), (1u << 20) - kWholeOverhead);
  EXPECT_EQ(h.checkInvariants(), "");
}

TEST(LeaPolicy, RoutesSmallToQuickListsMediumAndLargeToBins) {
  LeaPolicy h(4 << 20);
  void* small = h.malloc(64);
  void* g1 = h.malloc(16);
  void* medium = h.malloc(3000);
  void* g2 = h.malloc(16);
  void* large = h.malloc(200 * 1024);
  void* g3 = h.malloc(16);
  h.free(small);
  EXPECT_EQ(h.cachedBlocks(3), 1u);  // the 64-byte list; not filed in any bin
  EXPECT_FALSE(LeaPolicy::isFree(small));
  h.free(medium);
  EXPECT_EQ(h.binBlockCount(Bins::binOf(LeaPolicy::blockBytes(medium))), 1u);
  EXPECT_LT(Bins::binOf(LeaPolicy::blockBytes(medium)), Bins::kLargeBin);
  std::size_t largeBefore = h.binBlockCount(Bins::kLargeBin);
  h.free(large);
  EXPECT_EQ(h.binBlockCount(Bins::kLargeBin), largeBefore + 1);
  EXPECT_EQ(h.cachedBlocks(), 1u);
  EXPECT_EQ(h.checkInvariants(), "");
  EXPECT_EQ(h.malloc(50), small);  // a quick-list hit
  EXPECT_EQ(h.lastOutcome(), Outcome::immediate);
  EXPECT_EQ(h.malloc(2990), medium);  // its bin's best fit
  EXPECT_EQ(h.malloc(150 * 1024), large);  // the large bin's best fit, not the arena's rest
  EXPECT_EQ(h.lastOutcome(), Outcome::split);
  EXPECT_EQ(h.checkInvariants(), "");
  (void)g1, (void)g2, (void)g3;
}

TEST(LeaPolicy, BestFitNotFirstFit) {
  // The same holes the list policy's first-fit test uses: a (72), b (264), c (136)
  // usable bytes, freed so the most recent is a. First fit takes b; best fit c.
  LeaPolicy h(1 << 16);
  void* a = h.malloc(72);
  void* g1 = h.malloc(16);
  void* b = h.malloc(256);
  void* g2 = h.malloc(16);
  void* c = h.malloc(128);
  void* g3 = h.malloc(16);
  h.free(c);
  h.free(b);
  h.free(a);
  EXPECT_EQ(h.malloc(100), c);
  EXPECT_EQ(h.checkInvariants(), "");
  (void)g1, (void)g2, (void)g3;
}

// Donahue et al. Fig. 8 on lea: the larger request finds its bin through the
// bitmap, however many holes the arena has.
std::size_t figure8Steps(std::size_t n, std::size_t blockRequest) {
  LeaPolicy h(8 << 20);
  std::vector<void*> blocks;
  for (std::size_t i = 0; i < n; ++i) blocks.push_back(h.malloc(blockRequest));
  for (std::size_t i = 0; i < n; i += 2) h.free(blocks[i]);
  void* big = h.malloc(1000);
  EXPECT_GT(big, blocks.back());
  EXPECT_EQ(h.checkInvariants(), "");
  return h.lastSteps();
}

TEST(LeaPolicy, Figure8SearchDoesNotGrowWithTheNumberOfHoles) {
  for (std::size_t n : {100, 1000, 20000}) {
    EXPECT_EQ(figure8Steps(n, 32), 1u) << n;   // holes in the quick lists
    EXPECT_EQ(figure8Steps(n, 100), 1u) << n;  // holes in an exact bin
  }
}

TEST(LeaPolicy, InvariantsHoldAfterEveryOperationOfAScript) {
  LeaPolicy h(1 << 18);
  ASSERT_NO_FATAL_FAILURE(testing::runScriptCheckingInvariants(
      h, {1, 100, 16, 700, 33, 140 * 1024, 48, 5, 64, 65, 2048}, {1, 3, 2, 6, 0, 9, 5}, {90, 10, 600, 60}));
  h.consolidate();
  ASSERT_EQ(h.checkInvariants(), "") << "consolidate";
  EXPECT_EQ(h.freeBytes(), (1u << 18) - kWholeOverhead);
  EXPECT_EQ(h.nonEmptyBins(), std::uint64_t{1} << Bins::kLargeBin);
}

TEST(LeaPolicy, EdgeSizes) {
  const std::size_t arena = 1 << 16;
  LeaPolicy h(arena);
  testing::expectEdgeSizes(h, arena);
  LeaPolicy fresh(arena);
  void* all = fresh.malloc(fresh.largestFreeBlock());
  ASSERT_NE(all, nullptr);
  EXPECT_EQ(fresh.malloc(1), nullptr);
  fresh.free(all);
  EXPECT_EQ(fresh.checkInvariants(), "");
}

TEST(LeaPolicy, TinyArenasRunOutWithNullNeverACrash) {
  for (std::size_t arena : {0, 16, 48, 64, 128, 1024}) {
    LeaPolicy h(arena);
    testing::expectTinyArenaFillsAndEmpties(h, arena);
    // Everything is cached in the quick lists; a bigger request still succeeds.
    if (arena >= 128) {
      EXPECT_NE(h.malloc(arena - 64), nullptr) << arena;
    }
    EXPECT_EQ(h.checkInvariants(), "") << arena;
  }
}

TEST(LeaPolicy, ShadowModelJvmLike) {
  LeaPolicy h(32 << 20);
  auto r = testing::runCheckedShadowModel(h, {.seed = 7, .operations = 200'000, .checkEvery = 1000});
  EXPECT_EQ(r.error, "");
  EXPECT_EQ(r.failures, 0u);
  h.consolidate();
  EXPECT_EQ(h.freeBytes(), (32u << 20) - kWholeOverhead);  // all back in one block
  EXPECT_EQ(h.checkInvariants(), "");
}

TEST(LeaPolicy, ShadowModelFragmentingInASmallArena) {
  LeaPolicy h(1 << 20);
  auto r = testing::runCheckedShadowModel(
      h, {.seed = 11, .operations = 100'000, .mix = testing::SizeMix::fragmenting, .checkEvery = 1000});
  EXPECT_EQ(r.error, "");
  EXPECT_GT(r.failures, 0u);
  h.consolidate();
  EXPECT_EQ(h.freeBytes(), (1u << 20) - kWholeOverhead);
}

}  // namespace
}  // namespace kith::heap
