// The kingsley policy (policies.h): power-of-two segregated fits over one arena.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <string_view>
#include <vector>

#include "heap/policies.h"
#include "heap/workload.h"
#include "tests/heap/shadow_model.h"

namespace kith::heap {
namespace {

static_assert(SizedHeap<KingsleyPolicy>);

TEST(KingsleyPolicy, RoundsRequestsUpToPowersOfTwo) {
  KingsleyPolicy heap(1 << 20);
  EXPECT_EQ(heap.getSize(heap.malloc(0)), 16u);
  EXPECT_EQ(heap.getSize(heap.malloc(1)), 16u);
  EXPECT_EQ(heap.getSize(heap.malloc(16)), 16u);
  EXPECT_EQ(heap.getSize(heap.malloc(17)), 32u);
  EXPECT_EQ(heap.getSize(heap.malloc(100)), 128u);
  EXPECT_EQ(heap.getSize(heap.malloc(4097)), 8192u);
  EXPECT_EQ(heap.getSize(heap.malloc(65536)), 65536u);
  EXPECT_EQ(heap.checkInvariants(), "");
}

TEST(KingsleyPolicy, ReusesLastInFirstOutWithinAClassAndNeverAcrossClasses) {
  KingsleyPolicy heap(1 << 20);
  void* a = heap.malloc(40);
  void* b = heap.malloc(50);
  void* big = heap.malloc(1000);
  heap.free(a);
  heap.free(b);
  heap.free(big);
  std::size_t before = heap.remaining();
  EXPECT_EQ(heap.malloc(64), b);
  EXPECT_EQ(heap.malloc(33), a);
  EXPECT_EQ(heap.remaining(), before);
  void* small = heap.malloc(16);  // the cached 1024 is neither split nor borrowed
  EXPECT_NE(small, big);
  EXPECT_EQ(heap.remaining(), before - 32);
  EXPECT_EQ(heap.malloc(513), big);
  EXPECT_EQ(heap.checkInvariants(), "");
}

TEST(KingsleyPolicy, AllMemoryComesFromTheOneArena) {
  KingsleyPolicy heap(1 << 20);
  for (std::size_t size = 1; size <= 65536; size *= 3) {
    void* p = heap.malloc(size);
    ASSERT_NE(p, nullptr);
    EXPECT_TRUE(heap.arenaContains(p));
    EXPECT_TRUE(isAligned(p));
  }
}

TEST(KingsleyPolicy, OutOfMemoryPropagatesAsNullAndFreedBlocksStillServe) {
  KingsleyPolicy heap(4096);
  std::vector<void*> blocks;
  while (void* p = heap.malloc(1000)) blocks.push_back(p);
  EXPECT_EQ(blocks.size(), 3u);  // 3 * (16 + 1024); 976 bytes left
  while (heap.malloc(16)) {
  }
  EXPECT_EQ(heap.remaining(), 16u);  // 976 - 30 * 32: too small for a header + 16
  EXPECT_EQ(heap.malloc(1), nullptr);
  EXPECT_EQ(heap.malloc(2000), nullptr);
  heap.free(blocks[1]);
  EXPECT_EQ(heap.malloc(16), nullptr);  // no splitting
  EXPECT_EQ(heap.malloc(1024), blocks[1]);
  EXPECT_EQ(heap.checkInvariants(), "");
}

TEST(KingsleyPolicy, EdgeSizes) {
  KingsleyPolicy heap(4096);
  EXPECT_EQ(heap.malloc(SIZE_MAX), nullptr);
  EXPECT_EQ(heap.malloc(SIZE_MAX / 2 + 1), nullptr);  // the largest class
  EXPECT_EQ(heap.malloc(std::size_t{1} << 40), nullptr);
  EXPECT_EQ(heap.malloc(4096), nullptr);  // the arena size: its class plus header do not fit
  EXPECT_NE(heap.malloc(2048), nullptr);  // 16 + 2048 fit
  heap.free(nullptr);
  EXPECT_EQ(heap.checkInvariants(), "");
}

TEST(KingsleyPolicy, ReportsOutcomesAndFreeSpace) {
  KingsleyPolicy heap(4096);
  const std::size_t untouched = heap.freeBytes();
  EXPECT_EQ(untouched, heap.arenaSize());
  void* a = heap.malloc(100);  // class 128, carved from the arena
  ASSERT_NE(a, nullptr);
  EXPECT_EQ(heap.lastOutcome(), Outcome::split);
  EXPECT_EQ(heap.freeBytes(), untouched - 128 - 16);  // block plus SizeHeap's header
  heap.free(a);
  EXPECT_EQ(heap.freeBytes(), untouched - 16);  // the block is cached, its header is not free
  void* b = heap.malloc(70);  // same class: straight from the bin
  EXPECT_EQ(b, a);
  EXPECT_EQ(heap.lastOutcome(), Outcome::immediate);
  EXPECT_EQ(heap.malloc(1 << 20), nullptr);
  EXPECT_EQ(heap.lastOutcome(), Outcome::failed);
  heap.free(b);
  EXPECT_EQ(heap.largestFreeBlock(), heap.remaining());  // the untouched rest beats a 128 B block
}

TEST(KingsleyPolicy, IsRegistered) {
  bool found = false;
  forEachPolicy([&]<class P>(std::string_view name, std::string_view description) {
    if (name != "kingsley") return false;
    found = std::is_same_v<P, KingsleyPolicy> && !description.empty();
    return true;
  });
  EXPECT_TRUE(found);
}

TEST(KingsleyPolicy, RandomMallocAndFreeAgainstTheShadowModel) {
  for (auto mix : {testing::SizeMix::jvmLike, testing::SizeMix::fragmenting}) {
    KingsleyPolicy heap(32u << 20);
    auto r = testing::runShadowModel(heap, {.seed = 11, .operations = 200'000, .mix = mix, .checkEvery = 5'000},
                                     [&] { return heap.checkInvariants(); });
    EXPECT_EQ(r.error, "");
    EXPECT_EQ(r.failures, 0u);
    EXPECT_GT(r.mallocs, 80'000u);
    EXPECT_EQ(r.mallocs, r.frees);
  }
}

// Bounded time: a malloc looks at its bin and, on a miss, asks the arena once; a
// free pushes on its bin (kMaxFreeSteps = 1: nothing to count). However many
// blocks a bin holds.
TEST(KingsleyPolicy, StepsAreConstantHoweverManyBlocksABinHolds) {
  EXPECT_EQ(KingsleyPolicy::kMaxMallocSteps, 2u);
  EXPECT_EQ(KingsleyPolicy::kMaxFreeSteps, 1u);
  for (std::size_t n : {10, 10'000, 200'000}) {
    KingsleyPolicy heap(64u << 20);
    std::vector<void*> blocks;
    for (std::size_t i = 0; i < n; ++i) {
      blocks.push_back(heap.malloc(100));  // all class 128
      ASSERT_EQ(heap.lastSteps(), 2u);     // missed the empty bin, carved fresh
    }
    for (void* p : blocks) heap.free(p);
    EXPECT_EQ(heap.freeBytes(), heap.remaining() + n * 128);
    EXPECT_EQ(heap.malloc(65), blocks.back());  // the last freed: at the head
    EXPECT_EQ(heap.lastSteps(), 1u) << n;
    EXPECT_NE(heap.malloc(200), nullptr);  // another class: its own empty bin, then the arena
    EXPECT_EQ(heap.lastSteps(), 2u) << n;
  }
}

TEST(KingsleyPolicy, EveryCallWithinItsStepBoundOnRandomWorkloads) {
  for (auto mix : {SizeMix::jvmLike, SizeMix::fragmenting}) {
    KingsleyPolicy heap(64u << 20);
    std::vector<void*> slots(4000);
    std::size_t maxMalloc = 0, hits = 0;
    for (const WorkloadStep& s : makeWorkload(mix, 3, 100'000, 4000)) {
      if (s.size) {
        slots[s.slot] = heap.malloc(s.size);
        ASSERT_NE(slots[s.slot], nullptr);
        maxMalloc = std::max(maxMalloc, heap.lastSteps());
        hits += heap.lastSteps() == 1;
      } else {
        heap.free(slots[s.slot]);
      }
    }
    EXPECT_EQ(maxMalloc, KingsleyPolicy::kMaxMallocSteps);
    EXPECT_GT(hits, 90'000u);  // nearly every request met by its bin
    EXPECT_EQ(heap.checkInvariants(), "");
  }
}

}  // namespace
}  // namespace kith::heap
