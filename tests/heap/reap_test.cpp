#include "heap/layers/reap.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <vector>

#include "heap/layers/fixed_arena.h"
#include "tests/heap/counting_heap.h"
#include "tests/heap/shadow_model.h"

namespace kith::heap {
namespace {

using testing::CountingHeap;
using testing::CountingLog;

static_assert(SizedHeap<Reap<FixedArena>>);

TEST(Reap, ActsAsARegionUntilSomethingIsFreed) {
  CountingLog log;
  Reap<CountingHeap, 1024> reap(log);
  auto* a = static_cast<std::byte*>(reap.malloc(8));
  auto* b = static_cast<std::byte*>(reap.malloc(8));
  auto* c = static_cast<std::byte*>(reap.malloc(16));
  EXPECT_EQ(b - a, 32);  // 16-byte header + 16-byte object, bumped
  EXPECT_EQ(c - b, 32);
  EXPECT_EQ(reap.getSize(a), 16u);
  EXPECT_EQ(log.mallocs, 1u);
  EXPECT_EQ(reap.freeObjects(), 0u);
}

TEST(Reap, AFreedObjectIsReusedByTheNextMallocOfItsSize) {
  Reap<FixedArena, 1024> reap(1 << 16);
  void* x1 = reap.malloc(8);
  void* x2 = reap.malloc(8);
  void* x3 = reap.malloc(16);
  void* x4 = reap.malloc(40);
  (void)x1;
  (void)x2;
  reap.free(x3);  // the paper's Figure 4
  reap.free(x4);
  EXPECT_EQ(reap.freeObjects(), 2u);
  EXPECT_EQ(reap.checkInvariants(), "");
  std::size_t before = reap.remaining();
  EXPECT_EQ(reap.malloc(12), x3);  // same rounded size (16)
  void* other = reap.malloc(32);   // 32: no exact match, the 48-byte object is not used
  EXPECT_NE(other, x4);
  EXPECT_EQ(reap.malloc(48), x4);
  EXPECT_EQ(reap.freeObjects(), 0u);
  EXPECT_EQ(reap.remaining(), before);  // chunk already taken; 'other' was bumped inside it
  EXPECT_EQ(reap.checkInvariants(), "");
}

TEST(Reap, LargeObjectsAreReusedByRangeAndKeepTheirSize) {
  Reap<FixedArena, 1 << 16> reap(1 << 20);
  void* a = reap.malloc(3000);  // range [2048, 4096)
  void* b = reap.malloc(9000);  // range [8192, 16384)
  reap.free(a);
  reap.free(b);
  EXPECT_EQ(reap.checkInvariants(), "");
  EXPECT_EQ(reap.malloc(2500), a);  // same range, big enough
  EXPECT_EQ(reap.getSize(a), 3008u);
  void* c = reap.malloc(3500);  // own range empty now: the next larger range
  EXPECT_EQ(c, b);
  EXPECT_EQ(reap.getSize(c), 9008u);
  reap.free(a);                 // 3008 in range [2048, 4096)
  void* d = reap.malloc(4000);  // same range, but too small: bumps
  EXPECT_NE(d, a);
  EXPECT_EQ(reap.freeObjects(), 1u);
  EXPECT_EQ(reap.checkInvariants(), "");
}

TEST(Reap, ReleaseFreesTheWholeRegionInOneStep) {
  CountingLog log;
  {
    Reap<CountingHeap, 1024> reap(log);
    std::vector<void*> objects;
    for (int i = 0; i < 200; ++i) objects.push_back(reap.malloc(24 + i % 50));
    for (int i = 0; i < 200; i += 3) reap.free(objects[i]);
    std::size_t chunks = log.mallocs;
    EXPECT_GT(chunks, 5u);
    EXPECT_EQ(reap.checkInvariants(), "");
    reap.release();
    EXPECT_EQ(log.frees, chunks);
    EXPECT_TRUE(log.live.empty());
    EXPECT_EQ(reap.freeObjects(), 0u);  // the lists are gone with the chunks
    EXPECT_EQ(reap.checkInvariants(), "");
    EXPECT_NE(reap.malloc(24), nullptr);  // a fresh chunk, not a stale free object
    EXPECT_EQ(log.mallocs, chunks + 1);
  }
  EXPECT_EQ(log.frees, log.mallocs);  // the destructor released the rest
  EXPECT_EQ(log.badFrees, 0u);
  EXPECT_EQ(log.liveAtDestruction, 0u);
}

// Over a FixedArena, release() gives every chunk back (newest first, with its size):
// a reap filled to the last byte, freed in part and released, fills the same again.
TEST(Reap, ReleaseGivesAFixedArenaEveryChunkBack) {
  Reap<FixedArena, 1024> reap(16 * 1024);
  std::size_t first = 0;
  for (int cycle = 0; cycle < 20; ++cycle) {
    std::vector<void*> objects;
    while (void* p = reap.malloc(40)) objects.push_back(p);
    for (std::size_t i = 0; i < objects.size(); i += 3) reap.free(objects[i]);
    if (cycle == 0) first = objects.size();
    EXPECT_EQ(objects.size(), first) << "cycle " << cycle;
    reap.release();
    EXPECT_EQ(reap.remaining(), 16u * 1024) << "cycle " << cycle;
    EXPECT_EQ(reap.checkInvariants(), "");
  }
  EXPECT_GT(first, 200u);
}

TEST(Reap, OutOfMemoryPropagatesAsNullAndFreedObjectsStillServe) {
  Reap<FixedArena, 1024> reap(1024);
  std::vector<void*> objects;
  while (void* p = reap.malloc(48)) objects.push_back(p);
  EXPECT_EQ(objects.size(), (1024u - 16) / 64);
  EXPECT_NE(reap.malloc(1), nullptr);  // the 48-byte tail of the chunk holds header + 16
  EXPECT_EQ(reap.malloc(1), nullptr);
  EXPECT_EQ(reap.malloc(5000), nullptr);
  reap.free(objects[4]);
  EXPECT_EQ(reap.malloc(16), nullptr);  // no exact match, nothing to bump
  EXPECT_EQ(reap.malloc(33), objects[4]);
  EXPECT_EQ(reap.malloc(48), nullptr);
}

TEST(Reap, EdgeSizes) {
  Reap<FixedArena, 1024> reap(1 << 16);
  void* zero = reap.malloc(0);
  ASSERT_NE(zero, nullptr);
  EXPECT_EQ(reap.getSize(zero), 16u);
  EXPECT_EQ(reap.getSize(reap.malloc(1)), 16u);
  EXPECT_EQ(reap.getSize(reap.malloc(16)), 16u);
  reap.free(zero);
  EXPECT_EQ(reap.malloc(SIZE_MAX), nullptr);  // with a free object on a list
  EXPECT_EQ(reap.malloc(SIZE_MAX - 31), nullptr);
  EXPECT_EQ(reap.malloc(std::size_t{1} << 62), nullptr);
  EXPECT_EQ(reap.malloc(1 << 16), nullptr);  // the arena size
  EXPECT_EQ(reap.malloc(0), zero);
  reap.free(nullptr);
  EXPECT_EQ(reap.checkInvariants(), "");
}

TEST(Reap, RandomMallocAndFreeAgainstTheShadowModel) {
  Reap<FixedArena> reap(32u << 20);
  auto r = testing::runShadowModel(reap, {.seed = 7, .operations = 200'000, .checkEvery = 5'000},
                                   [&] { return reap.checkInvariants(); });
  EXPECT_EQ(r.error, "");
  EXPECT_EQ(r.failures, 0u);
  EXPECT_GT(r.mallocs, 80'000u);
  EXPECT_EQ(r.mallocs, r.frees);
  // Every object ever bumped is on a list now; most frees were taken back by mallocs.
  EXPECT_LT(reap.freeObjects(), r.frees / 10);
}

}  // namespace
}  // namespace kith::heap
