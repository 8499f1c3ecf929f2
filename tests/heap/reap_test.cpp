#include "heap/layers/reap.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>
#include <map>
#include <string>
#include <vector>

#include "heap/layers/fixed_arena.h"
#include "heap/workload.h"
#include "tests/heap/counting_heap.h"
#include "tests/heap/shadow_model.h"

namespace kith::heap {
namespace {

using testing::CountingHeap;
using testing::CountingLog;
using heap::SeededRandom;

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

// Random malloc, free and release against a shadow of the live objects: each
// object lies inside a chunk the reap holds, is aligned, overlaps no other, is at
// least its request (getSize) and keeps its contents until freed or released; the
// lists stay consistent (checkInvariants), and each release gives every chunk back.
TEST(Reap, RandomMallocFreeAndReleaseAgainstAShadowModel) {
  CountingLog log;
  Reap<CountingHeap, 4096> reap(log);
  SeededRandom rng(30);
  struct Object {
    std::size_t size;
    unsigned char fill;
  };
  std::map<std::byte*, Object> live;
  std::size_t mallocs = 0, reused = 0, releases = 0;
  auto insideAChunk = [&](std::byte* p, std::size_t n) {
    auto chunk = log.live.upper_bound(p);
    if (chunk == log.live.begin()) return false;
    --chunk;
    auto* start = static_cast<std::byte*>(chunk->first);
    return p >= start && p + n <= start + chunk->second;
  };
  for (int op = 0; op < 60'000; ++op) {
    std::size_t roll = rng.below(1000);
    if (roll == 0) {  // release: every object dies at once
      reap.release();
      live.clear();
      ++releases;
      ASSERT_TRUE(log.live.empty()) << "op " << op << ": a chunk outlived release()";
    } else if (roll < 450 && !live.empty()) {
      auto it = live.begin();
      std::advance(it, rng.below(std::min<std::size_t>(live.size(), 64)));
      auto [p, o] = *it;
      for (std::size_t i = 0; i < o.size; ++i)
        ASSERT_EQ(p[i], std::byte{o.fill}) << "op " << op << ": an object changed before it was freed";
      live.erase(it);
      reap.free(p);
    } else {
      std::size_t size = rng.chance(90) ? rng.between(0, 1024) : rng.between(1025, 12'000);
      std::size_t listed = reap.freeObjects();
      auto* p = static_cast<std::byte*>(reap.malloc(size));
      ASSERT_NE(p, nullptr);
      ++mallocs;
      reused += reap.freeObjects() < listed;
      ASSERT_EQ(reinterpret_cast<std::uintptr_t>(p) % kAlignment, 0u) << "op " << op;
      ASSERT_GE(reap.getSize(p), size) << "op " << op;
      ASSERT_TRUE(insideAChunk(p, reap.getSize(p))) << "op " << op << ": object outside every chunk";
      auto next = live.lower_bound(p);
      ASSERT_TRUE(next == live.end() || p + size <= next->first) << "op " << op << ": overlaps the next object";
      if (next != live.begin()) {
        auto prev = std::prev(next);
        ASSERT_LE(prev->first + prev->second.size, p) << "op " << op << ": overlaps the previous object";
      }
      auto fill = static_cast<unsigned char>(rng.below(256));
      std::memset(p, fill, size);
      live.emplace(p, Object{size, fill});
    }
    if (op % 500 == 0) ASSERT_EQ(reap.checkInvariants(), "") << "op " << op;
  }
  EXPECT_EQ(reap.checkInvariants(), "");
  EXPECT_GT(releases, 30u);
  EXPECT_GT(reused, mallocs / 5);  // the free lists did serve
  EXPECT_EQ(log.badFrees, 0u);
}

}  // namespace
}  // namespace kith::heap
