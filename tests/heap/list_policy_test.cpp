// The `list` policy: the JDK 1.1.8 unstructured-list baseline, as registered.
#include <gtest/gtest.h>

#include <cstdint>
#include <string>
#include <type_traits>
#include <vector>

#include "heap/policies.h"
#include "tests/heap/shadow_model.h"

namespace kith::heap {
namespace {

constexpr std::size_t kWholeOverhead = 40;  // chunk record + header + end sentinel's size word

TEST(ListPolicy, IsRegisteredAsList) {
  bool found = false;
  forEachPolicy([&]<class P>(std::string_view name, std::string_view) {
    if (name == "list") found = std::is_same_v<P, ListPolicy>;
    return false;
  });
  EXPECT_TRUE(found);
}

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
  std::vector<void*> live;
  const std::size_t sizes[] = {1, 100, 16, 700, 33, 2048, 48, 5};
  auto check = [&](const char* what) { ASSERT_EQ(h.checkInvariants(), "") << what; };
  for (std::size_t s : sizes) {
    live.push_back(h.malloc(s));
    ASSERT_NE(live.back(), nullptr);
    check("malloc");
  }
  for (std::size_t i : {1u, 3u, 2u, 6u, 0u}) {  // left, right and both-sided merges
    h.free(live[i]);
    live[i] = nullptr;
    check("free");
  }
  for (std::size_t s : {90, 10, 600}) {
    live.push_back(h.malloc(s));
    ASSERT_NE(live.back(), nullptr);
    check("malloc after frees");
  }
  for (void* p : live) {
    h.free(p);
    check("free all");
  }
  EXPECT_EQ(h.freeBlockCount(), 1u);
  EXPECT_EQ(h.freeBytes(), (1u << 14) - kWholeOverhead);
}

TEST(ListPolicy, EdgeSizes) {
  const std::size_t arena = 1 << 16;
  ListPolicy h(arena);
  for (std::size_t size : {0, 1, 16}) {
    void* p = h.malloc(size);
    ASSERT_NE(p, nullptr) << size;
    EXPECT_TRUE(isAligned(p));
    EXPECT_GE(h.getSize(p), 16u);
    EXPECT_TRUE(h.arenaContains(p));
  }
  EXPECT_EQ(h.malloc(arena), nullptr);
  EXPECT_EQ(h.lastOutcome(), Outcome::failed);
  EXPECT_EQ(h.malloc(SIZE_MAX), nullptr);
  EXPECT_EQ(h.malloc(SIZE_MAX - 15), nullptr);
  EXPECT_EQ(h.checkInvariants(), "");
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
    std::vector<void*> got;
    while (void* p = h.malloc(1)) got.push_back(p);
    EXPECT_EQ(h.lastOutcome(), Outcome::failed);
    EXPECT_EQ(got.size(), arena < 64 ? 0u : (arena - 32) / 32) << arena;
    EXPECT_EQ(h.malloc(SIZE_MAX), nullptr);
    EXPECT_EQ(h.checkInvariants(), "") << arena;
    for (void* p : got) h.free(p);
    EXPECT_EQ(h.checkInvariants(), "") << arena;
  }
}

TEST(ListPolicy, ShadowModelJvmLike) {
  ListPolicy h(32 << 20);
  auto r = testing::runShadowModel(h, {.seed = 7, .operations = 200'000, .checkEvery = 1000},
                                   [&] { return h.checkInvariants(); });
  EXPECT_EQ(r.error, "");
  EXPECT_EQ(r.failures, 0u);
  EXPECT_EQ(h.freeBlockCount(), 1u);  // everything freed coalesces back into one block
}

TEST(ListPolicy, ShadowModelFragmentingInASmallArena) {
  ListPolicy h(1 << 20);  // small enough that some requests fail
  auto r = testing::runShadowModel(
      h, {.seed = 11, .operations = 100'000, .mix = testing::SizeMix::fragmenting, .checkEvery = 1000},
      [&] { return h.checkInvariants(); });
  EXPECT_EQ(r.error, "");
  EXPECT_GT(r.failures, 0u);
  EXPECT_EQ(h.freeBlockCount(), 1u);
}

}  // namespace
}  // namespace kith::heap
