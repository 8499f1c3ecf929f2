// Where an immediate request's block came from, for every policy that tracks it
// (leftover_source.h): recycled (a free returned it) or a leftover (a split's rest, or
// never-used memory). Checked against a shadow that knows nothing of the marks: it
// walks the free blocks after every call and gives each free block that appeared its
// origin from what the call was, then compares every immediate request's count.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <iterator>
#include <map>
#include <random>
#include <set>
#include <vector>

#include "heap/policies.h"
#include "heap/statistics/stats_heap.h"

namespace kith::heap {
namespace {

struct FreeBlock {
  std::size_t bytes;
  bool leftover;
};
using FreeBlocks = std::map<std::size_t, FreeBlock>;  // by offset from the arena

// --- what the shadow sees of each policy --------------------------------------------
// offsetOf(h, p): a block's offset; freeBlocks(h): every free block, its bytes (from
// its offset to the next block's); cachedBlocks(h, live): blocks freed but held
// unmerged (lea's quick lists), with their bytes.
template <class H>
concept BuddyBlocks = requires(H h) { h.blockTable(); };

template <class H>
std::size_t offsetOf(H& h, const void* p) {
  if constexpr (BuddyBlocks<H>) return h.blockTable().offsetOf(p);
  else return static_cast<std::size_t>(static_cast<const std::byte*>(p) - h.arenaBase());
}

template <class H>
FreeBlocks freeBlocks(H& h) {
  FreeBlocks blocks;
  if constexpr (BuddyBlocks<H>) {
    h.blockTable().forEachBlock([&](std::size_t off, unsigned level, BuddyState s) {
      if (isFreeState(s)) blocks[off] = {BuddyBlockTable::blockBytes(level), false};
    });
  } else {
    // Both representations keep 8 bytes of a block's size apart from its payload.
    h.forEachFreeBlock([&](void* b) { blocks[offsetOf(h, b)] = {h.getSize(b) + 8, false}; });
  }
  return blocks;
}

template <class H>
FreeBlocks cachedBlocks(H& h, const std::set<void*>& live) {
  FreeBlocks cached;
  if constexpr (CachesFrees<H>) {
    h.forEachBlock([&](void* b) {
      if (!h.isFree(b) && !live.count(b)) cached[offsetOf(h, b)] = {h.getSize(b) + 8, false};
    });
  }
  return cached;
}

// Adjacent blocks joined, as a consolidation joins them: leftover if all parts were.
FreeBlocks joined(const FreeBlocks& blocks) {
  FreeBlocks out;
  for (const auto& [off, b] : blocks) {
    if (!out.empty()) {
      auto& [lastOff, last] = *out.rbegin();
      if (lastOff + last.bytes == off) {
        last.bytes += b.bytes;
        last.leftover = last.leftover && b.leftover;
        continue;
      }
    }
    out[off] = b;
  }
  return out;
}

// The free blocks after a call, with their origins: a block free before keeps its own;
// one that appeared in a free is recycled; one that appeared in a malloc is a leftover
// if it lies strictly inside a block free before (a split's rest), else it was glued
// from blocks free before and is recycled unless all of them were leftovers.
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

struct ShadowRun {
  std::uint64_t immediates = 0, leftovers = 0, consolidations = 0;
};

// Random requests (mostly small, some up to 600 bytes) and frees on a small arena, so
// that mallocs split, frees merge, requests fail and lea's quick lists consolidate.
template <class P>
ShadowRun checkAgainstShadow(std::uint32_t seed, std::size_t arena, bool* failedOut) {
  StatsHeap<P> h(arena);
  std::mt19937 rng(seed);
  ShadowRun run;
  FreeBlocks shadow = freeBlocks(h);
  for (auto& [off, block] : shadow) block.leftover = true;  // never used
  std::vector<void*> live;
  std::set<void*> liveSet;
  FreeBlocks cached;  // recycled, unmerged
  *failedOut = true;
  for (int op = 0; op < 4000; ++op) {
    const bool doFree = !live.empty() && (rng() % 100 < 45 || live.size() > 200);
    FreeBlocks before = shadow;
    before.insert(cached.begin(), cached.end());
    void* p = nullptr;
    if (doFree) {
      std::size_t i = rng() % live.size();
      h.free(live[i]);
      liveSet.erase(live[i]);
      live[i] = live.back();
      live.pop_back();
    } else {
      p = h.malloc(1 + rng() % (rng() % 4 == 0 ? 600 : 70));
      if (p) {
        live.push_back(p);
        liveSet.insert(p);
      }
    }
    FreeBlocks cachedNow = cachedBlocks(h, liveSet);
    // A malloc that left a cached block neither cached nor handed out consolidated.
    const bool consolidated = !doFree && std::any_of(cached.begin(), cached.end(), [&](const auto& c) {
      return !cachedNow.count(c.first) && !(p && offsetOf(h, p) == c.first);
    });
    if (consolidated) {
      ++run.consolidations;
      before = joined(before);
    }
    if (p && h.lastOutcome() == Outcome::immediate) {
      ++run.immediates;
      const std::size_t off = offsetOf(h, p);
      if (!before.count(off)) {
        ADD_FAILURE() << "an immediate block was not free before, seed " << seed << ", op " << op;
        return run;
      }
      run.leftovers += before[off].leftover;
    }
    shadow = followOrigins(before, freeBlocks(h), doFree);
    for (auto& [off, c] : cachedNow) c.leftover = false;
    cached = cachedNow;
    if (h.statistics().immediate_leftover != run.leftovers) {
      ADD_FAILURE() << "leftovers counted " << h.statistics().immediate_leftover << ", the shadow says "
                    << run.leftovers << ": seed " << seed << ", op " << op;
      return run;
    }
  }
  EXPECT_TRUE(h.statistics().immediate_source_known);
  *failedOut = false;
  return run;
}

template <class P>
class Leftover : public ::testing::Test {};
using TrackedPolicies =
    ::testing::Types<KnuthPolicy, EstrangedPolicy, ListPolicy, KingsleyCoalescingPolicy, LeaPolicy, TlsfPolicy>;
TYPED_TEST_SUITE(Leftover, TrackedPolicies);

TYPED_TEST(Leftover, MatchesTheShadowOnRandomRequests) {
  ShadowRun all;
  for (std::uint32_t seed = 1; seed <= 8; ++seed) {
    bool failed = false;
    const ShadowRun run = checkAgainstShadow<TypeParam>(seed, 16 << 10, &failed);
    if (failed) return;
    all.immediates += run.immediates;
    all.leftovers += run.leftovers;
    all.consolidations += run.consolidations;
  }
  // The workload must have exercised both kinds, and lea's consolidations.
  EXPECT_GT(all.leftovers, 0u);
  EXPECT_LT(all.leftovers, all.immediates);
  if constexpr (CachesFrees<TypeParam>) {
    EXPECT_GT(all.consolidations, 0u);
  }
}

// A program that never frees recycles nothing: the buddy systems' split floor (the
// paper's Figure 4: one 10-byte request bisects 256 bytes down to 16, and the next
// takes the 16 bytes left over), and on the coalescing heaps the end of the arena,
// which the last request takes whole. Freed and asked again, a block is recycled.
TYPED_TEST(Leftover, AProgramThatNeverFreesRecyclesNothing) {
  StatsHeap<TypeParam> h(1 << 16);
  std::vector<void*> blocks;
  std::uint64_t immediates = 0;
  for (void* p; (p = h.malloc(16)) != nullptr;) {
    blocks.push_back(p);
    immediates += h.lastOutcome() == Outcome::immediate;
  }
  ASSERT_GT(immediates, 0u);
  EXPECT_EQ(h.statistics().immediate_leftover, immediates);
  h.free(blocks[5]);
  void* again = h.malloc(16);
  ASSERT_EQ(h.lastOutcome(), Outcome::immediate);
  EXPECT_EQ(again, blocks[5]);
  EXPECT_EQ(h.statistics().immediate_leftover, immediates);  // recycled
}

// A mode that does not count hands blocks out without reading their marks: the
// statistics say the source is not known rather than count from stale marks.
TYPED_TEST(Leftover, NotCountingLosesTheSourceForGood) {
  StatsHeap<TypeParam> h(1 << 16);
  EXPECT_TRUE(h.statistics().immediate_source_known);
  h.setMode(StatisticsMode::none);
  h.setMode(StatisticsMode::counts);
  EXPECT_FALSE(h.statistics().immediate_source_known);
}

TEST(Leftover, BareBuddyBisectionsSetNoBits) {
  StatsHeap<EstrangedPolicy> h(4096);
  EXPECT_TRUE(h.blockTable().tracksLeftovers());
  h.setMode(StatisticsMode::none);
  EXPECT_FALSE(h.blockTable().tracksLeftovers());
  h.setMode(StatisticsMode::counts);
  EXPECT_FALSE(h.blockTable().tracksLeftovers());
}

// Kingsley never splits: its bins hold only freed blocks, so every immediate request
// is recycled, and it says so.
TEST(Leftover, KingsleyRecyclesEveryImmediateBlock) {
  StatsHeap<KingsleyPolicy> h(1 << 16);
  void* a = h.malloc(24);
  h.free(a);
  EXPECT_EQ(h.malloc(24), a);
  ASSERT_EQ(h.statistics().satisfied[static_cast<int>(Outcome::immediate)], 1u);
  EXPECT_EQ(h.statistics().immediate_leftover, 0u);
  EXPECT_TRUE(h.statistics().immediate_source_known);
}

// The Allotheque policies report no outcomes, so there is no immediate to split.
TEST(Leftover, PoliciesWithoutOutcomesDoNotClaimASource) {
  StatsHeap<VeloxPolicy> h(1 << 20);
  h.free(h.malloc(24));
  EXPECT_FALSE(h.statistics().immediate_source_known);
}

}  // namespace
}  // namespace kith::heap
