// The `lea` policy as registered: quick lists for small requests, Lea's bins with
// coalescing for medium and large ones, all in one arena.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <utility>
#include <vector>

#include "heap/policies.h"
#include "heap/workload.h"
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

// The quick lists serve requests up to 160 B (glibc's largest fastbin on 64-bit
// hosts); a request above them is served and coalesced by the bins.
TEST(LeaPolicy, QuickListsServeRequestsUpTo160Bytes) {
  ASSERT_EQ(LeaPolicy::kListCount, 10u);
  LeaPolicy h(1 << 20);
  void* largest = h.malloc(160);
  void* g1 = h.malloc(16);
  void* above = h.malloc(176);
  void* g2 = h.malloc(16);
  h.free(largest);
  EXPECT_EQ(h.cachedBlocks(9), 1u);  // the 160-byte list
  EXPECT_FALSE(LeaPolicy::isFree(largest));
  h.free(above);
  EXPECT_EQ(h.cachedBlocks(), 1u);
  EXPECT_TRUE(LeaPolicy::isFree(above));  // filed in Lea's bins
  EXPECT_EQ(h.malloc(150), largest);
  EXPECT_EQ(h.lastSteps(), 1u);
  EXPECT_EQ(h.malloc(170), above);  // its exact bin
  EXPECT_EQ(h.checkInvariants(), "");
  (void)g1, (void)g2;
}

TEST(LeaPolicy, BestFitNotFirstFit) {
  // Holes a (720), b (2560), c (1280) usable bytes, freed so the most recent is a.
  // First fit from the most recent takes b; best fit c. (Requests of medium size:
  // a small one would carve the victim, the arena's rest, before any bigger hole.)
  LeaPolicy h(1 << 16);
  void* a = h.malloc(720);
  void* g1 = h.malloc(16);
  void* b = h.malloc(2560);
  void* g2 = h.malloc(16);
  void* c = h.malloc(1280);
  void* g3 = h.malloc(16);
  h.free(c);
  h.free(b);
  h.free(a);
  EXPECT_EQ(h.malloc(1000), c);
  EXPECT_EQ(h.checkInvariants(), "");
  (void)g1, (void)g2, (void)g3;
}

// Donahue et al. Fig. 8 on lea: the larger request finds its bin through the
// bitmap, however many holes the arena has (empty bins skipped; the victim, the
// arena's rest, looked at and carved; its rest the next victim).
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
    EXPECT_EQ(figure8Steps(n, 32), 2u) << n;   // holes in the quick lists and an exact bin
    EXPECT_EQ(figure8Steps(n, 100), 2u) << n;  // holes in an exact bin
  }
}

TEST(LeaPolicy, InvariantsHoldAfterEveryOperationOfAScript) {
  LeaPolicy h(1 << 18);
  ASSERT_NO_FATAL_FAILURE(testing::runScriptCheckingInvariants(
      h, {1, 100, 16, 700, 33, 140 * 1024, 48, 5, 64, 65, 2048}, {1, 3, 2, 6, 0, 9, 5}, {90, 10, 600, 60}));
  h.consolidate();
  ASSERT_EQ(h.checkInvariants(), "") << "consolidate";
  EXPECT_EQ(h.freeBytes(), (1u << 18) - kWholeOverhead);
  EXPECT_EQ(h.largestFreeBlock(), (1u << 18) - kWholeOverhead);  // one block again: the victim
  EXPECT_NE(h.victim(), nullptr);
  EXPECT_EQ(h.nonEmptyBins(), 0u);
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

TEST(LeaPolicy, StepBoundsAreStated) {
  // Quick lists: 2^18 blocks consolidated at most, each filed in Lea's bins.
  EXPECT_EQ(LeaPolicy::kCapacity, std::size_t{1} << 18);
  EXPECT_EQ(LeaPolicy::maxMallocSteps(), 1 + (std::size_t{1} << 18) * (1 + 136) + 2 * 226);
  EXPECT_EQ(LeaPolicy::maxFreeSteps(), 136u);
}

// Replays a workload on lea, checking every call's steps against the bounds, and
// returns the largest seen.
struct MaxSteps {
  std::size_t malloc = 0, free = 0;
};
MaxSteps replayCheckingSteps(LeaPolicy& h, const std::vector<WorkloadStep>& steps, std::size_t slotCount) {
  std::vector<void*> slots(slotCount);
  MaxSteps most;
  std::size_t i = 0;
  for (const WorkloadStep& s : steps) {
    if (s.size) {
      slots[s.slot] = h.malloc(s.size);
      EXPECT_NE(slots[s.slot], nullptr);
      most.malloc = std::max(most.malloc, h.lastSteps());
    } else {
      h.free(slots[s.slot]);
      most.free = std::max(most.free, h.lastFreeSteps());
    }
    if (++i % 20'000 == 0) {
      EXPECT_EQ(h.checkInvariants(), "") << i;
    }
  }
  EXPECT_LE(most.malloc, LeaPolicy::maxMallocSteps());
  EXPECT_LE(most.free, LeaPolicy::maxFreeSteps());
  return most;
}

TEST(LeaPolicy, EveryCallWithinItsStepBoundOnRandomWorkloads) {
  for (auto [mix, seed] : {std::pair{SizeMix::jvmLike, 1}, std::pair{SizeMix::fragmenting, 2}}) {
    LeaPolicy h(64 << 20);
    MaxSteps most = replayCheckingSteps(h, makeWorkload(mix, seed, 200'000, 4000), 4000);
    // In practice far below the bounds: no walk of a bin, no unbounded consolidation.
    EXPECT_LE(most.malloc, 400u) << static_cast<int>(mix);
    EXPECT_LE(most.free, 40u) << static_cast<int>(mix);
    h.consolidate();
    EXPECT_EQ(h.freeBytes(), (64u << 20) - kWholeOverhead);
  }
}

// AWFY Storage's shape: trees of arrays of random lengths (1-10 elements), built,
// dropped a whole tree at a time (as a collection frees them), many at once.
std::vector<WorkloadStep> storageLike(std::size_t trees) {
  SeededRandom rng(74755);
  std::vector<WorkloadStep> steps;
  std::vector<std::uint32_t> live;
  std::uint32_t next = 0;
  for (std::size_t t = 0; t < trees; ++t) {
    std::vector<std::uint32_t> tree;
    for (int node = 0; node < 1365; ++node) {  // depth 6 of 4-ary arrays
      tree.push_back(next);
      steps.push_back({next++, 88});
    }
    for (int leaf = 0; leaf < 4096; ++leaf) {
      tree.push_back(next);
      steps.push_back({next++, static_cast<std::uint32_t>(24 + 16 * rng.between(1, 10))});
    }
    if (t % 4 == 3) {  // a collection: every tree but the newest, in address-ish order
      for (std::uint32_t slot : live) steps.push_back({slot, 0});
      live.clear();
    }
    live.insert(live.end(), tree.begin(), tree.end());
  }
  for (std::uint32_t slot : live) steps.push_back({slot, 0});
  return steps;
}

TEST(LeaPolicy, StorageLikeTreesStayWithinTheBound) {
  LeaPolicy h(32 << 20);
  auto steps = storageLike(40);
  MaxSteps most = replayCheckingSteps(h, steps, 40 * 5461);
  EXPECT_LE(most.malloc, 400u);
  EXPECT_LE(most.free, 40u);
}

// Many equal-size free chunks in one bin, then requests that only a slightly
// larger chunk of that bin can meet: the steps do not grow with the chunks.
std::size_t equalChunksSteps(std::size_t n) {
  LeaPolicy h(64 << 20);
  std::vector<void*> holes;
  for (std::size_t i = 0; i < n; ++i) {
    holes.push_back(h.malloc(2000));  // 2016-byte blocks: bin [1792, 2048)
    EXPECT_NE(h.malloc(100), nullptr);
  }
  void* bigger = h.malloc(2030);
  h.malloc(100);
  for (void* p : holes) h.free(p);
  h.free(bigger);
  EXPECT_EQ(h.malloc(2020), bigger);
  EXPECT_EQ(h.checkInvariants(), "");
  return h.lastSteps();
}

TEST(LeaPolicy, ManyEqualChunksInOneBinDoNotLengthenARequest) {
  std::size_t few = equalChunksSteps(10);
  EXPECT_LE(few, 10u);
  EXPECT_EQ(equalChunksSteps(10'000), few);
  EXPECT_EQ(equalChunksSteps(25'000), few);  // 53 MB of holes and guards
}

// A consolidation storm: small objects freed (as a sweep does), then a 128 KiB
// request, which consolidates the quick lists: at most kCapacity blocks.
std::size_t stormSteps(std::size_t n) {
  LeaPolicy h(128 << 20);
  std::vector<void*> small;
  for (std::size_t i = 0; i < n; ++i) {
    small.push_back(h.malloc(16 * (1 + i % 10)));
    h.malloc(176);  // not cached (above 160 B), so the small blocks cannot coalesce
  }
  for (void* p : small) h.free(p);
  EXPECT_EQ(h.cachedBlocks(), std::min(n, LeaPolicy::kCapacity));
  EXPECT_NE(h.malloc(128 * 1024), nullptr);
  EXPECT_EQ(h.cachedBlocks(), 0u);
  EXPECT_EQ(h.checkInvariants(), "");
  return h.lastSteps();
}

TEST(LeaPolicy, AConsolidationStormIsBoundedByTheListCapacity) {
  std::size_t full = stormSteps(LeaPolicy::kCapacity);
  EXPECT_LE(full, LeaPolicy::maxMallocSteps());
  EXPECT_GE(full, LeaPolicy::kCapacity * 2);  // every block popped and filed
  EXPECT_EQ(stormSteps(LeaPolicy::kCapacity + 50'000), full);
}

}  // namespace
}  // namespace kith::heap
