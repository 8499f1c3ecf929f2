#include "heap/classic/tlsf_heap.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <cstdint>
#include <vector>

#include "heap/layers/fixed_arena.h"
#include "heap/policies.h"
#include "heap/workload.h"
#include "tests/heap/shadow_model.h"

namespace kith::heap {
namespace {

using Tlsf = TlsfHeap<FixedArena>;
using Index = Tlsf::ListIndex;

static_assert(std::same_as<TlsfPolicy, Tlsf>);
static_assert(SizedHeap<Tlsf> && ReportsOutcome<Tlsf>);

constexpr std::size_t kMiB = std::size_t{1} << 20;

// The list after `i` in size order, for checking that the map has no gaps.
Index nextList(Index i) {
  return i.second + 1 < Tlsf::kSecondLevelCount ? Index{i.first, i.second + 1} : Index{i.first + 1, 0};
}

std::byte* bytes(void* p) { return static_cast<std::byte*>(p); }

// --- the mapping functions -----------------------------------------------------

TEST(TlsfMapping, InsertEdgeSizes) {
  EXPECT_EQ(Tlsf::mapInsert(32), (Index{0, 2}));  // the smallest block
  EXPECT_EQ(Tlsf::mapInsert(48), (Index{0, 3}));
  EXPECT_EQ(Tlsf::mapInsert(496), (Index{0, 31}));
  EXPECT_EQ(Tlsf::mapInsert(511), (Index{0, 31}));
  EXPECT_EQ(Tlsf::mapInsert(512), (Index{1, 0}));  // first logarithmic range, slices of 16
  EXPECT_EQ(Tlsf::mapInsert(528), (Index{1, 1}));
  EXPECT_EQ(Tlsf::mapInsert(1023), (Index{1, 31}));
  EXPECT_EQ(Tlsf::mapInsert(1024), (Index{2, 0}));  // slices of 32 from here
  EXPECT_EQ(Tlsf::mapInsert(1055), (Index{2, 0}));
  EXPECT_EQ(Tlsf::mapInsert(1056), (Index{2, 1}));
  EXPECT_EQ(Tlsf::mapInsert(2047), (Index{2, 31}));
  EXPECT_EQ(Tlsf::mapInsert(2048), (Index{3, 0}));
  EXPECT_EQ(Tlsf::mapInsert(std::size_t{1} << 39), (Index{31, 0}));
  EXPECT_EQ(Tlsf::mapInsert(Tlsf::kMaxBlockSize), (Index{31, 31}));
}

TEST(TlsfMapping, SearchRoundsUpToTheNextListBoundary) {
  EXPECT_EQ(Tlsf::mapSearch(32), (Index{0, 2}));    // linear lists hold one size each
  EXPECT_EQ(Tlsf::mapSearch(496), (Index{0, 31}));
  EXPECT_EQ(Tlsf::mapSearch(512), (Index{1, 0}));
  EXPECT_EQ(Tlsf::mapSearch(513), (Index{1, 1}));
  EXPECT_EQ(Tlsf::mapSearch(1008), (Index{1, 31}));
  EXPECT_EQ(Tlsf::mapSearch(1009), (Index{2, 0}));  // rounding crosses into the next range
  EXPECT_EQ(Tlsf::mapSearch(1024), (Index{2, 0}));
  EXPECT_EQ(Tlsf::mapSearch(1025), (Index{2, 1}));
  EXPECT_EQ(Tlsf::mapSearch(1040), (Index{2, 1}));  // 1040 lives in (2,0) but may not be found there
  Index top{31, 31};
  EXPECT_EQ(Tlsf::mapSearch(Tlsf::listLowerBound(top)), top);
  EXPECT_EQ(Tlsf::mapSearch(Tlsf::listLowerBound(top) + 16).first, Tlsf::kFirstLevelCount);  // no list
  EXPECT_EQ(Tlsf::mapSearch(Tlsf::kMaxBlockSize).first, Tlsf::kFirstLevelCount);
}

TEST(TlsfMapping, ListsTileTheSizesWithoutGaps) {
  // Every list starts where the one before ends, all the way up.
  Index i{0, 2};
  for (; i.first < Tlsf::kFirstLevelCount; i = nextList(i)) {
    Index n = nextList(i);
    std::size_t lower = Tlsf::listLowerBound(i);
    EXPECT_EQ(Tlsf::mapInsert(lower), i);
    if (n.first < Tlsf::kFirstLevelCount) {
      std::size_t upper = Tlsf::listLowerBound(n);
      ASSERT_GT(upper, lower);
      EXPECT_EQ(Tlsf::mapInsert(upper - 1), i);
    }
  }
  EXPECT_EQ(Tlsf::listLowerBound({Tlsf::kFirstLevelCount, 0}) - 16, Tlsf::kMaxBlockSize);
}

TEST(TlsfMapping, SearchFindsTheSmallestListWhoseBlocksAllFit) {
  std::vector<std::size_t> sizes;
  for (std::size_t s = 32; s <= 4 * kMiB; s += 16) sizes.push_back(s);
  for (unsigned log = 22; log < 40; ++log)
    for (std::size_t d : {0, 16, 48, 4096}) sizes.push_back((std::size_t{1} << log) + d);
  for (std::size_t s : sizes) {
    Index in = Tlsf::mapInsert(s);
    ASSERT_LE(Tlsf::listLowerBound(in), s) << s;
    ASSERT_LT(s, Tlsf::listLowerBound(nextList(in))) << s;
    Index found = Tlsf::mapSearch(s);
    ASSERT_GE(Tlsf::listLowerBound(found), s) << s;  // any block there fits
    // and the list just below it may hold a block too small.
    Index below = found.second > 0 ? Index{found.first, found.second - 1}
                                   : Index{found.first - 1, Tlsf::kSecondLevelCount - 1};
    ASSERT_LT(Tlsf::listLowerBound(below), s) << s;
  }
}

// --- scripted split and coalesce ------------------------------------------------

TEST(TlsfHeap, FreshHeapIsOneFreeBlockAndTheFirstMallocSplitsIt) {
  Tlsf h(kMiB);
  EXPECT_EQ(h.checkInvariants(), "");
  const std::size_t whole = kMiB - 16;  // less the 8-byte pad and the 8-byte sentinel
  EXPECT_EQ(h.freeBytes(), whole - 8);
  EXPECT_EQ(h.largestFreeBlock(), Tlsf::listLowerBound(Tlsf::mapInsert(whole)) - 8);

  void* p = h.malloc(16);
  ASSERT_NE(p, nullptr);
  EXPECT_EQ(bytes(p), h.arenaBase() + 16);
  EXPECT_EQ(h.getSize(p), 24u);  // a 32-byte block less its header
  EXPECT_EQ(h.lastOutcome(), Outcome::split);
  EXPECT_EQ(h.lastSteps(), Tlsf::kMaxMallocSteps);  // the worst path: both levels searched, split
  EXPECT_EQ(h.freeBytes(), whole - 8 - 32);
  EXPECT_EQ(h.checkInvariants(), "");
  h.free(p);
  EXPECT_EQ(h.lastFreeSteps(), 2u);  // coalesce with the rest, reinsert
  EXPECT_EQ(h.freeBytes(), whole - 8);
  EXPECT_EQ(h.checkInvariants(), "");
}

TEST(TlsfHeap, FreeCoalescesWithNextPreviousAndBoth) {
  Tlsf h(64 * 1024);
  const std::size_t initialFree = h.freeBytes();
  const std::size_t initialLargest = h.largestFreeBlock();
  void* a = h.malloc(100);  // 112-byte blocks
  void* b = h.malloc(100);
  void* c = h.malloc(100);
  void* d = h.malloc(100);
  ASSERT_TRUE(a && b && c && d);
  EXPECT_EQ(bytes(b) - bytes(a), 112);
  EXPECT_EQ(bytes(d) - bytes(c), 112);
  EXPECT_EQ(h.checkInvariants(), "");

  h.free(b);  // both neighbours in use: insert only
  EXPECT_EQ(h.lastFreeSteps(), 1u);
  EXPECT_EQ(h.checkInvariants(), "");
  h.free(a);  // merges with the next block, b
  EXPECT_EQ(h.lastFreeSteps(), 2u);
  EXPECT_EQ(h.checkInvariants(), "");
  h.free(c);  // merges with the previous block, a+b
  EXPECT_EQ(h.lastFreeSteps(), 2u);
  EXPECT_EQ(h.checkInvariants(), "");
  // a+b+c is one 336-byte block now: a request for exactly it reuses it whole.
  void* abc = h.malloc(336 - 8);
  EXPECT_EQ(abc, a);
  EXPECT_EQ(h.lastOutcome(), Outcome::immediate);
  EXPECT_EQ(h.lastSteps(), 2u);  // one bitmap search, one removal
  EXPECT_EQ(h.checkInvariants(), "");
  h.free(abc);
  h.free(d);  // merges with both neighbours
  EXPECT_EQ(h.lastFreeSteps(), Tlsf::kMaxFreeSteps);
  EXPECT_EQ(h.checkInvariants(), "");
  EXPECT_EQ(h.freeBytes(), initialFree);
  EXPECT_EQ(h.largestFreeBlock(), initialLargest);
  EXPECT_EQ(h.malloc(16), a);  // back to one block: carving starts at the front again
}

TEST(TlsfHeap, ExactFitIsImmediateAndARemainderBelowTheMinimumIsNotSplitOff) {
  Tlsf h(64 * 1024);
  void* p = h.malloc(40);  // a 48-byte block
  void* guard = h.malloc(16);
  ASSERT_TRUE(p && guard);
  h.free(p);
  EXPECT_EQ(h.checkInvariants(), "");
  // 48 - 32 leaves 16 bytes, too small for a block: the whole 48 is handed out.
  void* q = h.malloc(24);
  EXPECT_EQ(q, p);
  EXPECT_EQ(h.lastOutcome(), Outcome::immediate);
  EXPECT_EQ(h.getSize(q), 40u);
  EXPECT_EQ(h.checkInvariants(), "");
  h.free(q);
  void* r = h.malloc(8);  // a 32-byte block out of the 48: still no split
  EXPECT_EQ(r, p);
  EXPECT_EQ(h.getSize(r), 40u);
  h.free(r);
  void* big = h.malloc(200);  // does not fit the 48: split from the big block
  EXPECT_EQ(h.lastOutcome(), Outcome::split);
  EXPECT_GT(bytes(big), bytes(guard));
  EXPECT_EQ(h.checkInvariants(), "");
}

TEST(TlsfHeap, SplitRemainderIsReinsertedAndReused) {
  Tlsf h(64 * 1024);
  void* big = h.malloc(1000);  // 1008-byte block
  void* guard = h.malloc(16);
  ASSERT_TRUE(big && guard);
  h.free(big);
  void* small = h.malloc(100);  // 112 out of 1008: the 896-byte rest goes back
  EXPECT_EQ(small, big);
  EXPECT_EQ(h.lastOutcome(), Outcome::split);
  EXPECT_EQ(h.checkInvariants(), "");
  void* rest = h.malloc(896 - 8);
  EXPECT_EQ(bytes(rest), bytes(big) + 112);
  EXPECT_EQ(h.lastOutcome(), Outcome::immediate);
  EXPECT_EQ(h.checkInvariants(), "");
}

TEST(TlsfHeap, ASplitRestAtItsListsFloorStaysInTheListAndOneBelowMovesDown) {
  Tlsf h(kMiB);
  const std::size_t whole = kMiB - 16;
  const std::size_t floor = Tlsf::listLowerBound(Tlsf::mapInsert(whole));  // 1 MiB - 16 KiB
  ASSERT_EQ(Tlsf::mapInsert(floor), Tlsf::mapInsert(whole));
  ASSERT_NE(Tlsf::mapInsert(floor - 16), Tlsf::mapInsert(whole));

  void* p = h.malloc(whole - floor - 8);  // leaves a rest of exactly `floor` bytes
  ASSERT_NE(p, nullptr);
  EXPECT_EQ(h.largestFreeBlock(), floor - 8);
  EXPECT_EQ(h.checkInvariants(), "");  // the rest is in whole's list
  h.free(p);                           // the merged block goes back to the same list
  EXPECT_EQ(h.checkInvariants(), "");
  EXPECT_EQ(h.largestFreeBlock(), floor - 8);

  p = h.malloc(whole - floor + 16 - 8);  // a rest 16 bytes below the floor
  ASSERT_NE(p, nullptr);
  EXPECT_EQ(h.largestFreeBlock(), Tlsf::listLowerBound(Tlsf::mapInsert(floor - 16)) - 8);
  EXPECT_EQ(h.checkInvariants(), "");  // the rest moved to the list below
  h.free(p);                           // the merged block moves back up
  EXPECT_EQ(h.checkInvariants(), "");
  EXPECT_EQ(h.freeBytes(), whole - 8);
}

TEST(TlsfHeap, GoodFitPassesOverABlockInTheListBelowTheRequest) {
  // 16 + 1040 + 32: one 1040-byte block and one 32-byte block fill the arena.
  Tlsf h(1088);
  void* p = h.malloc(1040 - 8);
  void* q = h.malloc(16);
  ASSERT_TRUE(p && q);
  EXPECT_EQ(h.freeBytes(), 0u);
  EXPECT_EQ(h.malloc(1), nullptr);
  h.free(p);
  EXPECT_EQ(h.checkInvariants(), "");
  // The free 1040-byte block sits in list (2,0), [1024, 1056); a request for all of
  // it searches from (2,1) up, so it fails although the block would fit.
  EXPECT_EQ(h.malloc(1040 - 8), nullptr);
  EXPECT_EQ(h.lastOutcome(), Outcome::failed);
  EXPECT_EQ(h.largestFreeBlock(), 1024u - 8);
  EXPECT_EQ(h.malloc(1024 - 8 + 1), nullptr);
  void* r = h.malloc(1024 - 8);
  EXPECT_EQ(r, p);
  EXPECT_EQ(h.lastOutcome(), Outcome::immediate);  // the 16 left over cannot be a block
  EXPECT_EQ(h.getSize(r), 1032u);
  EXPECT_EQ(h.checkInvariants(), "");
}

TEST(TlsfHeap, FreeOfNullIsANoOp) {
  Tlsf h(4096);
  std::size_t before = h.freeBytes();
  h.free(nullptr);
  EXPECT_EQ(h.freeBytes(), before);
  EXPECT_EQ(h.lastFreeSteps(), 0u);
  EXPECT_EQ(h.checkInvariants(), "");
}

// --- out of memory and edge sizes -----------------------------------------------

TEST(TlsfHeap, TinyArenaRunsOutAndReturnsNull) {
  Tlsf h(64);  // one 48-byte block
  EXPECT_EQ(h.malloc(41), nullptr);
  EXPECT_EQ(h.lastOutcome(), Outcome::failed);
  void* p = h.malloc(40);
  ASSERT_NE(p, nullptr);
  EXPECT_EQ(h.lastOutcome(), Outcome::immediate);
  EXPECT_EQ(h.malloc(0), nullptr);
  EXPECT_EQ(h.lastOutcome(), Outcome::failed);
  EXPECT_EQ(h.largestFreeBlock(), 0u);
  EXPECT_EQ(h.checkInvariants(), "");
  h.free(p);
  EXPECT_NE(h.malloc(1), nullptr);
  EXPECT_EQ(h.checkInvariants(), "");
}

TEST(TlsfHeap, EachMallocReportsItsOwnOutcomeAndSteps) {
  // Outcome and steps share one stored byte: each malloc must overwrite both.
  Tlsf h(kMiB);
  void* first = h.malloc(16);  // both levels searched, the arena's block split
  EXPECT_EQ(h.lastOutcome(), Outcome::split);
  EXPECT_EQ(h.lastSteps(), 5u);
  EXPECT_EQ(h.malloc(SIZE_MAX), nullptr);  // refused before any search
  EXPECT_EQ(h.lastOutcome(), Outcome::failed);
  EXPECT_EQ(h.lastSteps(), 0u);
  EXPECT_EQ(h.malloc(2 * kMiB), nullptr);  // both searches find nothing
  EXPECT_EQ(h.lastOutcome(), Outcome::failed);
  EXPECT_EQ(h.lastSteps(), 2u);
  void* second = h.malloc(16);
  h.free(first);  // a 32-byte hole before second, alone in its list
  EXPECT_EQ(h.malloc(16), first);  // found at the first search, taken whole
  EXPECT_EQ(h.lastOutcome(), Outcome::immediate);
  EXPECT_EQ(h.lastSteps(), 2u);
  EXPECT_NE(second, nullptr);
  EXPECT_EQ(h.checkInvariants(), "");
}

TEST(TlsfHeap, ArenaTooSmallForOneBlockFailsEveryRequest) {
  for (std::size_t size : {0, 16, 32, 47}) {
    Tlsf h(size);
    EXPECT_EQ(h.malloc(0), nullptr) << size;
    EXPECT_EQ(h.malloc(1), nullptr) << size;
    EXPECT_EQ(h.freeBytes(), 0u);
    EXPECT_EQ(h.largestFreeBlock(), 0u);
    EXPECT_EQ(h.checkInvariants(), "");
  }
}

TEST(TlsfHeap, FillsToTheLastByteThenFailsAndRecoversOnFree) {
  Tlsf h(4096);  // one 4080-byte block: 126 splits of 32, then the last 48 whole
  std::vector<void*> blocks;
  while (void* p = h.malloc(16)) blocks.push_back(p);
  EXPECT_EQ(blocks.size(), 127u);
  EXPECT_EQ(h.lastOutcome(), Outcome::failed);
  EXPECT_EQ(h.freeBytes(), 0u);
  EXPECT_EQ(h.getSize(blocks.back()), 40u);
  EXPECT_EQ(h.checkInvariants(), "");
  for (std::size_t i = 0; i + 1 < blocks.size(); i += 2) h.free(blocks[i]);  // no two adjacent
  EXPECT_EQ(h.checkInvariants(), "");
  EXPECT_EQ(h.freeBytes(), 63u * 24);
  EXPECT_EQ(h.largestFreeBlock(), 24u);
  EXPECT_EQ(h.malloc(25), nullptr);  // 1512 bytes free in 63 holes, none holds 25
  for (std::size_t i = 1; i < blocks.size(); i += 2) h.free(blocks[i]);
  h.free(blocks.back());
  EXPECT_EQ(h.checkInvariants(), "");
  EXPECT_EQ(h.freeBytes(), 4080u - 8);
}

TEST(TlsfHeap, EdgeSizes) {
  Tlsf h(kMiB);
  std::size_t freeBefore = h.freeBytes();
  for (std::size_t size : {std::size_t{0}, std::size_t{1}, std::size_t{16}}) {
    void* p = h.malloc(size);
    ASSERT_NE(p, nullptr) << size;
    EXPECT_TRUE(isAligned(p));
    EXPECT_GE(h.getSize(p), kMinBlock);
    EXPECT_TRUE(h.arenaContains(p));
    h.free(p);
  }
  for (std::size_t size : {h.arenaSize(), h.arenaSize() - 24 + 1, Tlsf::kMaxBlockSize,
                           Tlsf::kMaxBlockSize + 1, SIZE_MAX - 8, SIZE_MAX}) {
    EXPECT_EQ(h.malloc(size), nullptr) << size;
    EXPECT_EQ(h.lastOutcome(), Outcome::failed);
  }
  EXPECT_EQ(h.freeBytes(), freeBefore);
  EXPECT_EQ(h.checkInvariants(), "");
}

TEST(TlsfHeap, WholeArenaInOneBlockWhenItsSizeIsAListBoundary) {
  Tlsf h(kMiB + 16);  // the one free block is exactly 1 MiB, the lower bound of its list
  EXPECT_EQ(h.largestFreeBlock(), kMiB - 8);
  void* p = h.malloc(kMiB - 8);
  ASSERT_NE(p, nullptr);
  EXPECT_EQ(bytes(p), h.arenaBase() + 16);
  EXPECT_EQ(h.lastOutcome(), Outcome::immediate);
  EXPECT_EQ(h.freeBytes(), 0u);
  EXPECT_EQ(h.malloc(0), nullptr);
  EXPECT_EQ(h.checkInvariants(), "");
  h.free(p);
  EXPECT_EQ(h.freeBytes(), kMiB - 8);
  EXPECT_EQ(h.checkInvariants(), "");
}

TEST(TlsfHeap, LargestFreeBlockIsExactlyTheLargestRequestThatSucceeds) {
  Tlsf h(kMiB);
  std::size_t largest = h.largestFreeBlock();
  EXPECT_GT(largest, kMiB - kMiB / 32 - 32);  // within one slice of the whole arena
  EXPECT_EQ(h.malloc(largest + 1), nullptr);
  EXPECT_NE(h.malloc(largest), nullptr);
}

// --- the constant bound, counted over random workloads --------------------------

TEST(TlsfHeap, StepsStayWithinTheBoundAndMallocSucceedsExactlyUpToLargestFreeBlock) {
  std::array<std::size_t, Tlsf::kMaxMallocSteps + 2> mallocSteps{};
  std::array<std::size_t, Tlsf::kMaxFreeSteps + 2> freeSteps{};
  std::size_t failures = 0;
  for (std::uint64_t seed : {1u, 2u, 3u}) {
    Tlsf h(2 * kMiB);  // small enough that big requests fail now and then
    SeededRandom rng(seed);
    std::vector<void*> live;
    for (int op = 0; op < 100'000; ++op) {
      bool grow = live.empty() || rng.chance((op / 5000) % 2 ? 30 : 70);
      if (grow) {
        // log-uniform 1 B .. 128 KiB: every first-level range gets traffic
        std::size_t size = rng.between(1, std::size_t{2} << rng.below(17));
        bool shouldFit = size <= h.largestFreeBlock();
        void* p = h.malloc(size);
        ASSERT_EQ(p != nullptr, shouldFit) << "seed " << seed << " op " << op << " size " << size;
        ++mallocSteps[std::min(h.lastSteps(), mallocSteps.size() - 1)];
        if (p) live.push_back(p);
        else ++failures;
      } else {
        std::size_t i = rng.below(live.size());
        h.free(live[i]);
        live[i] = live.back();
        live.pop_back();
        ++freeSteps[std::min(h.lastFreeSteps(), freeSteps.size() - 1)];
      }
      if (op % 10'000 == 0) {
        ASSERT_EQ(h.checkInvariants(), "") << "seed " << seed << " op " << op;
      }
    }
  }
  EXPECT_EQ(mallocSteps.back(), 0u) << "a malloc took more than kMaxMallocSteps";
  EXPECT_EQ(freeSteps.back(), 0u) << "a free took more than kMaxFreeSteps";
  // The worst paths were really taken, so the bound is tight, not vacuous.
  EXPECT_GT(mallocSteps[Tlsf::kMaxMallocSteps], 0u);
  EXPECT_GT(freeSteps[Tlsf::kMaxFreeSteps], 0u);
  EXPECT_GT(failures, 0u);
}

// Adversarial: many free blocks of one size share a list, and the request needs
// the next list up. Good fit never walks a list: the steps are those of any other
// request, however long the list.
std::size_t stepsPastEqualBlocks(std::size_t n) {
  Tlsf h(64 * kMiB);
  std::vector<void*> holes;
  for (std::size_t i = 0; i < n; ++i) {
    holes.push_back(h.malloc(1000));  // 1008-byte blocks, one list
    h.malloc(16);                     // guards: nothing coalesces
  }
  void* bigger = h.malloc(1200);
  h.malloc(16);
  for (void* p : holes) h.free(p);
  h.free(bigger);
  void* p = h.malloc(1010);  // rounds up past the 1008-byte list
  EXPECT_EQ(p, bigger);
  EXPECT_LE(h.lastSteps(), Tlsf::kMaxMallocSteps);
  EXPECT_EQ(h.checkInvariants(), "");
  return h.lastSteps();
}

TEST(TlsfHeap, ManyEqualFreeBlocksDoNotLengthenARequest) {
  std::size_t few = stepsPastEqualBlocks(10);
  EXPECT_EQ(stepsPastEqualBlocks(10'000), few);
  EXPECT_EQ(stepsPastEqualBlocks(50'000), few);
}

// --- the shared shadow model -----------------------------------------------------

TEST(TlsfHeap, ShadowModelMillionOperations) {
  Tlsf h(16 * kMiB);
  auto r = testing::runShadowModel(h, {.seed = 7, .operations = 1'000'000, .checkEvery = 1'000},
                                   [&] { return h.checkInvariants(); });
  EXPECT_EQ(r.error, "");
  EXPECT_GT(r.mallocs, 400'000u);
  EXPECT_EQ(r.mallocs, r.frees);
  EXPECT_EQ(r.failures, 0u);
  EXPECT_EQ(h.freeBytes(), 16 * kMiB - 24);  // everything coalesced back into one block
}

TEST(TlsfHeap, ShadowModelFragmentingUnderMemoryPressure) {
  Tlsf h(kMiB);  // too small for the live set: failures must come back as nullptr
  auto r = testing::runShadowModel(h, {.seed = 11, .operations = 200'000,
                                       .mix = testing::SizeMix::fragmenting, .checkEvery = 1'000},
                                   [&] { return h.checkInvariants(); });
  EXPECT_EQ(r.error, "");
  EXPECT_GT(r.failures, 0u);
  EXPECT_EQ(r.mallocs, r.frees);
  EXPECT_EQ(h.freeBytes(), kMiB - 24);
}

}  // namespace
}  // namespace kith::heap
