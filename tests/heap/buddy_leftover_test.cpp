// Where an immediate request's block came from (BuddyBlockTable's leftovers, read by
// StatsHeap): recycled (a free returned it) or a leftover (a bisection's other half,
// or never-used memory). Checked against a shadow that knows nothing of the marks: it
// walks the arena after every call and gives each free block that appeared its origin
// from what the call was, then compares every immediate request's count.
#include <gtest/gtest.h>

#include <cstddef>
#include <cstdint>
#include <map>
#include <random>
#include <vector>

#include "heap/buddy/estranged_buddy_heap.h"
#include "heap/buddy/knuth_buddy_heap.h"
#include "heap/layers/fixed_arena.h"
#include "heap/statistics/stats_heap.h"

namespace kith::heap {
namespace {

using Knuth = StatsHeap<KnuthBuddyHeap<FixedArena>>;
using Estranged = StatsHeap<EstrangedBuddyHeap<FixedArena>>;

struct FreeBlock {
  std::size_t bytes;
  bool leftover;
};
using FreeBlocks = std::map<std::size_t, FreeBlock>;  // by offset

template <class H>
FreeBlocks freeBlocksOf(H& h) {
  FreeBlocks blocks;
  h.blockTable().forEachBlock([&](std::size_t off, unsigned level, BuddyState s) {
    if (isFreeState(s)) blocks[off] = {BuddyBlockTable::blockBytes(level), false};
  });
  return blocks;
}

// The free blocks after a call, with their origins: a block free before keeps its own;
// one that appeared in a free is recycled; one that appeared in a malloc is a leftover
// if it lies strictly inside a block free before (a bisection's upper half), else it
// was glued from blocks free before and is recycled unless all of them were leftovers.
FreeBlocks followOrigins(const FreeBlocks& before, FreeBlocks after, bool wasFree) {
  for (auto& [off, block] : after) {
    auto same = before.find(off);
    if (same != before.end() && same->second.bytes == block.bytes) {
      block.leftover = same->second.leftover;
      continue;
    }
    if (wasFree) continue;  // recycled
    bool inside = false, allLeftover = true;
    for (const auto& [o, b] : before) {
      if (o <= off && off + block.bytes <= o + b.bytes && b.bytes > block.bytes) inside = true;
      if (off <= o && o + b.bytes <= off + block.bytes) allLeftover = allLeftover && b.leftover;
    }
    block.leftover = inside || allLeftover;
  }
  return after;
}

template <class H>
void checkAgainstShadow(std::uint32_t seed, std::size_t arena) {
  H h(arena);
  std::mt19937 rng(seed);
  FreeBlocks shadow = freeBlocksOf(h);
  for (auto& [off, block] : shadow) block.leftover = true;  // never used
  std::vector<void*> live;
  std::uint64_t expectedLeftover = 0, immediates = 0;
  for (int op = 0; op < 4000; ++op) {
    const bool doFree = !live.empty() && (rng() % 100 < 45 || live.size() > 200);
    FreeBlocks before = shadow;
    if (doFree) {
      std::size_t i = rng() % live.size();
      h.free(live[i]);
      live[i] = live.back();
      live.pop_back();
    } else {
      void* p = h.malloc(1 + rng() % (rng() % 4 == 0 ? 600 : 70));
      if (p) {
        live.push_back(p);
        if (h.lastOutcome() == Outcome::immediate) {
          ++immediates;
          const std::size_t off = h.blockTable().offsetOf(p);
          ASSERT_TRUE(before.count(off)) << "an immediate block was free before, op " << op;
          expectedLeftover += before[off].leftover;
        }
      }
    }
    shadow = followOrigins(before, freeBlocksOf(h), doFree);
    ASSERT_EQ(h.statistics().immediate_leftover, expectedLeftover) << "seed " << seed << ", op " << op;
  }
  // The workload must have exercised both kinds.
  EXPECT_GT(expectedLeftover, 0u);
  EXPECT_LT(expectedLeftover, immediates);
  EXPECT_TRUE(h.statistics().immediate_source_known);
}

TEST(BuddyLeftover, KnuthMatchesTheShadowOnRandomRequests) {
  for (std::uint32_t seed = 1; seed <= 8; ++seed) checkAgainstShadow<Knuth>(seed, 16 << 10);
}

TEST(BuddyLeftover, EstrangedMatchesTheShadowOnRandomRequests) {
  for (std::uint32_t seed = 1; seed <= 8; ++seed) checkAgainstShadow<Estranged>(seed, 16 << 10);
}

// The paper's Figure 4: one 10-byte request bisects 256 bytes down to 16, leaving a
// free upper half at each level. The next 16-byte request takes the leftover 16
// immediately: no free has happened, so it is not recycling. Freed and asked again,
// the same block is.
TEST(BuddyLeftover, AProgramThatNeverFreesRecyclesNothing) {
  Knuth h(256);
  void* a = h.malloc(10);
  void* b = h.malloc(10);
  ASSERT_EQ(h.lastOutcome(), Outcome::immediate);
  EXPECT_EQ(h.statistics().immediate_leftover, 1u);
  h.free(b);
  void* c = h.malloc(10);
  ASSERT_EQ(h.lastOutcome(), Outcome::immediate);
  EXPECT_EQ(c, b);
  EXPECT_EQ(h.statistics().immediate_leftover, 1u);  // recycled
  h.free(a);
  h.free(c);
}

// A mode that does not count hands blocks out without reading their marks: the
// statistics say the source is not known rather than count from stale marks.
TEST(BuddyLeftover, NotCountingLosesTheSourceForGood) {
  Estranged h(4096);
  EXPECT_TRUE(h.statistics().immediate_source_known);
  EXPECT_TRUE(h.blockTable().tracksLeftovers());
  h.setMode(StatisticsMode::none);
  EXPECT_FALSE(h.blockTable().tracksLeftovers());  // a bare policy's bisections set no bits
  h.setMode(StatisticsMode::counts);
  EXPECT_FALSE(h.blockTable().tracksLeftovers());
  EXPECT_FALSE(h.statistics().immediate_source_known);
}

}  // namespace
}  // namespace kith::heap
