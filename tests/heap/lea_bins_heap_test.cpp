// LeaBinsHeap: Lea's 64 size-segregated bins (exact lists, then size-ordered
// tries) with best fit and a non-empty bitmap. Tested under CoalesceHeap without
// the quick lists, so every free lands in a bin; lea_policy_test.cpp covers the
// whole `lea` policy. Step bounds are checked by counting (stepCount()).
#include "heap/classic/lea_bins_heap.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <vector>

#include "heap/layers/coalesce_heap.h"
#include "heap/layers/coalesceable_heap.h"
#include "heap/layers/fixed_arena.h"
#include "heap/workload.h"

namespace kith::heap {
namespace {

using Bins = CoalesceHeap<LeaBinsHeap<CoalesceableHeap<FixedArena>>>;
using Layer = LeaBinsHeap<CoalesceableHeap<FixedArena>>;

// The steps `call` costs the heap.
template <class Call>
std::size_t stepsOf(const Bins& h, Call&& call) {
  std::size_t before = h.stepCount();
  call();
  return h.stepCount() - before;
}

TEST(LeaBinsHeap, StepBoundsFollowFromThePathLengths) {
  EXPECT_EQ(Layer::trieTopBit(31), 6u);  // [528, 640): bits 6..4 tell its 8 sizes apart
  EXPECT_EQ(Layer::trieTopBit(62), 13u);
  EXPECT_EQ(Layer::trieTopBit(Layer::kLargeBin), 47u);
  EXPECT_EQ(SizeTrie::pathNodes(Layer::trieTopBit(62)), 11u);
  EXPECT_EQ(Layer::kPathNodes, 45u);
  EXPECT_EQ(Layer::kMaxMallocSteps, 226u);
  EXPECT_EQ(Layer::kMaxFreeSteps, 136u);
  // Each ranged bin's sizes agree above the trie's top bit, so the key bits tell them apart.
  for (unsigned b = Layer::kExactBinCount; b < Layer::kLargeBin; ++b) {
    std::size_t lower = Layer::binLowerBound(b), upper = Layer::binLowerBound(b + 1) - 16;
    unsigned top = Layer::trieTopBit(b);
    EXPECT_EQ(lower >> (top + 1), upper >> (top + 1)) << b;
  }
}

TEST(LeaBinsHeap, BinOfMapsExactThenFourPerPowerOfTwoThenLarge) {
  EXPECT_EQ(Layer::binOf(32), 0u);
  EXPECT_EQ(Layer::binOf(48), 1u);
  EXPECT_EQ(Layer::binOf(512), 30u);
  EXPECT_EQ(Layer::binOf(528), 31u);
  EXPECT_EQ(Layer::binOf(624), 31u);
  EXPECT_EQ(Layer::binOf(640), 32u);
  EXPECT_EQ(Layer::binOf(1008), 34u);
  EXPECT_EQ(Layer::binOf(1024), 35u);
  EXPECT_EQ(Layer::binOf(128 * 1024 - 16), 62u);
  EXPECT_EQ(Layer::binOf(128 * 1024), 63u);
  EXPECT_EQ(Layer::binOf(std::size_t{1} << 40), 63u);
  // Bounds and map agree, and the bins' ranges are increasing and gapless.
  for (unsigned b = 0; b < Layer::kBinCount; ++b) {
    EXPECT_EQ(Layer::binOf(Layer::binLowerBound(b)), b) << b;
    if (b > 0) {
      EXPECT_EQ(Layer::binOf(Layer::binLowerBound(b) - 16), b - 1) << b;
    }
  }
}

// Guarded free blocks of the given request sizes, so none coalesce.
struct Holes {
  Bins h{1 << 20};
  std::vector<void*> holes;
  explicit Holes(std::initializer_list<std::size_t> sizes) {
    std::vector<void*> guards;
    for (std::size_t s : sizes) {
      holes.push_back(h.malloc(s));
      guards.push_back(h.malloc(16));
    }
    for (void* p : holes) h.free(p);
  }
};

TEST(LeaBinsHeap, ExactBinsAnswerWithTheirHead) {
  Holes f{40, 40, 40};  // three 48-byte blocks in bin 1
  EXPECT_EQ(f.h.binBlockCount(1), 3u);
  EXPECT_EQ(f.h.nonEmptyBins(), std::uint64_t{1} << 1);  // the arena's rest is the victim
  EXPECT_NE(f.h.victim(), nullptr);
  void* p = nullptr;
  EXPECT_EQ(stepsOf(f.h, [&] { p = f.h.malloc(33); }), 2u);  // look at the head, unlink it
  EXPECT_EQ(p, f.holes[2]);  // the most recently freed
  EXPECT_EQ(f.h.lastOutcome(), Outcome::immediate);
  EXPECT_EQ(f.h.checkInvariants(), "");
}

TEST(LeaBinsHeap, BestFitWithinARangedBin) {
  Holes f{700, 660, 740};  // blocks of 720, 672, 752 bytes: all in bin 32 [640, 768)
  ASSERT_EQ(f.h.binBlockCount(32), 3u);
  EXPECT_EQ(f.h.malloc(690), f.holes[0]);  // needs 704: 720 beats 752; 672 is too small
  EXPECT_EQ(f.h.lastOutcome(), Outcome::immediate);  // 16 left over: not worth a block
  EXPECT_EQ(f.h.malloc(650), f.holes[1]);  // needs 672: an exact fit
  EXPECT_EQ(f.h.checkInvariants(), "");
}

TEST(LeaBinsHeap, NextNonEmptyLargerBinComesFromTheBitmap) {
  Holes f{1000, 2000};  // blocks of 1008 (bin 34) and 2016 (bin 38) bytes
  ASSERT_EQ(f.h.binBlockCount(34), 1u);
  ASSERT_EQ(f.h.binBlockCount(38), 1u);
  void* p = nullptr;
  // Needs 816: bin 33 is empty, so bin 34's block, split. One node looked at
  // (however many bins were empty), the victim looked at (a worse fit), one
  // unlink, the rest filed in an exact bin.
  EXPECT_EQ(stepsOf(f.h, [&] { p = f.h.malloc(800); }), 4u);
  EXPECT_EQ(p, f.holes[0]);
  EXPECT_EQ(f.h.lastOutcome(), Outcome::split);
  EXPECT_EQ(f.h.binBlockCount(38), 1u);  // the larger hole is untouched
  EXPECT_EQ(f.h.binBlockCount(Layer::binOf(1008 - 816)), 1u);  // the rest was filed
  EXPECT_EQ(f.h.checkInvariants(), "");
}

TEST(LeaBinsHeap, LargeRequestsTakeTheBestFitOfTheLargeBin) {
  Holes f{300 * 1024, 150 * 1024};
  ASSERT_EQ(f.h.binBlockCount(Layer::kLargeBin), 2u);  // both holes; the arena's rest is the victim
  EXPECT_EQ(f.h.malloc(140 * 1024), f.holes[1]);
  EXPECT_EQ(f.h.lastOutcome(), Outcome::split);
  EXPECT_EQ(f.h.malloc(200 * 1024), f.holes[0]);
  EXPECT_EQ(f.h.checkInvariants(), "");
}

TEST(LeaBinsHeap, CoalescedBlocksMoveToTheBinOfTheirNewSize) {
  Bins h(1 << 16);
  void* a = h.malloc(40);
  void* b = h.malloc(40);
  void* guard = h.malloc(16);
  h.free(a);
  EXPECT_EQ(h.binBlockCount(1), 1u);
  h.free(b);  // a + b: 96 bytes
  EXPECT_EQ(h.binBlockCount(1), 0u);
  EXPECT_EQ(h.binBlockCount(Layer::binOf(96)), 1u);
  EXPECT_EQ(h.nonEmptyBins() & 2, 0u);
  EXPECT_EQ(h.checkInvariants(), "");
  (void)guard;
}

TEST(LeaBinsHeap, CheckFreeStructureCatchesABlockInTheWrongBin) {
  Holes f{40};
  ASSERT_EQ(f.h.checkInvariants(), "");
  // A block whose size word claims another bin.
  auto* sizeWord = reinterpret_cast<std::size_t*>(static_cast<std::byte*>(f.holes[0]) - 8);
  *sizeWord += 16;
  EXPECT_NE(f.h.checkFreeStructure(), "");
  *sizeWord -= 16;
  EXPECT_EQ(f.h.checkInvariants(), "");
}

TEST(LeaBinsHeap, SmallRequestsCarveTheVictimInAddressOrder) {
  Bins h(1 << 20);
  void* a = h.malloc(100);  // the arena block split: its rest becomes the victim
  ASSERT_NE(h.victim(), nullptr);
  EXPECT_EQ(h.victim(), static_cast<std::byte*>(a) + 112);
  EXPECT_EQ(h.nonEmptyBins(), 0u);
  void* b = nullptr;
  EXPECT_EQ(stepsOf(h, [&] { b = h.malloc(40); }), 2u);  // look at the victim; its rest succeeds it
  EXPECT_EQ(b, static_cast<std::byte*>(a) + 112);
  void* c = h.malloc(200);
  EXPECT_EQ(c, static_cast<std::byte*>(b) + 48);
  EXPECT_EQ(h.checkInvariants(), "");
  // An exact fit still comes first.
  h.free(b);
  EXPECT_EQ(h.binBlockCount(Layer::binOf(48)), 1u);
  EXPECT_EQ(h.malloc(33), b);
  // Freeing the block next to the victim coalesces with it; the result is the victim.
  h.free(c);
  EXPECT_EQ(h.victim(), c);
  EXPECT_EQ(h.nonEmptyBins(), 0u);
  EXPECT_EQ(h.largestFreeBlock(), h.freeBytes());
  EXPECT_EQ(h.checkInvariants(), "");
}

TEST(LeaBinsHeap, CheckFreeStructureCatchesAVictimThatIsNotFree) {
  Bins h(1 << 16);
  h.malloc(100);
  void* victim = h.victim();
  ASSERT_NE(victim, nullptr);
  ASSERT_EQ(h.checkInvariants(), "");
  Layer::markInUse(victim);
  EXPECT_NE(h.checkFreeStructure(), "");
  Layer::markFree(victim);
  EXPECT_EQ(h.checkInvariants(), "");
}

TEST(LeaBinsHeap, SmallRequestsReuseAHoleBeforeCarvingTheTop) {
  Bins h(1 << 20);
  void* hole = h.malloc(1000);
  h.malloc(16);  // the arena's rest is now the victim, and it is the top
  h.free(hole);
  void* a = h.malloc(100);
  EXPECT_EQ(a, hole);  // carved from the hole, not from the top
  void* b = h.malloc(100);
  EXPECT_EQ(b, static_cast<std::byte*>(hole) + 112);  // the hole's rest is the victim now
  EXPECT_EQ(h.victim(), static_cast<std::byte*>(hole) + 224);
  EXPECT_EQ(h.checkInvariants(), "");
  // A request the hole's rest cannot meet goes to the top (filed in the large bin
  // when the hole's rest took over as victim); the next small one carves the rest.
  void* c = h.malloc(800);
  EXPECT_GT(c, hole);
  EXPECT_EQ(h.malloc(200), static_cast<std::byte*>(hole) + 224);
  EXPECT_EQ(h.checkInvariants(), "");
}

TEST(LeaBinsHeap, AMediumRequestTakesTheVictimOnlyWhenItFitsMoreClosely) {
  Bins h(1 << 20);
  void* hole = h.malloc(2000);
  h.malloc(16);  // the rest of the arena is now the victim
  h.free(hole);
  EXPECT_EQ(h.malloc(1500), hole);  // the hole fits more closely than the victim
  void* fromVictim = h.malloc(1500);
  EXPECT_GT(fromVictim, hole);
  EXPECT_EQ(h.checkInvariants(), "");
}

// The pathology of unsorted bins: many free blocks of one size share a bin, and a
// request needs a slightly bigger block of the same bin. An unsorted bin is walked
// whole; the trie finds the bigger block down one path.
std::size_t stepsPastEqualBlocks(std::size_t n) {
  Bins h(64 << 20);
  std::vector<void*> holes;
  for (std::size_t i = 0; i < n; ++i) {
    holes.push_back(h.malloc(700));  // 720-byte blocks, bin 32 [640, 768)
    h.malloc(16);                    // a guard, so they do not coalesce
  }
  void* bigger = h.malloc(740);  // 752 bytes, the same bin
  h.malloc(16);
  for (void* p : holes) h.free(p);
  h.free(bigger);
  EXPECT_EQ(h.binBlockCount(32), n + 1);
  void* got = nullptr;
  std::size_t steps = stepsOf(h, [&] { got = h.malloc(730); });  // needs 752
  EXPECT_EQ(got, bigger);
  EXPECT_EQ(h.checkInvariants(), "");
  return steps;
}

TEST(LeaBinsHeap, ManyEqualFreeBlocksInOneBinDoNotLengthenASearch) {
  std::size_t few = stepsPastEqualBlocks(10);
  EXPECT_LE(few, SizeTrie::pathNodes(Layer::trieTopBit(32)) * 2 + 1);
  EXPECT_EQ(stepsPastEqualBlocks(1000), few);
  EXPECT_EQ(stepsPastEqualBlocks(50'000), few);
}

// Random malloc/free over the bins alone (every free coalesces and is filed):
// each call's steps within kMaxMallocSteps / kMaxFreeSteps, invariants holding.
void expectEveryCallWithinBounds(SizeMix mix, std::uint64_t seed, std::size_t arena) {
  Bins h(arena);
  std::vector<WorkloadStep> steps = makeWorkload(mix, seed, 100'000, 3000);
  std::vector<void*> slots(3000);
  std::size_t maxMalloc = 0, maxFree = 0, i = 0;
  for (const WorkloadStep& s : steps) {
    if (s.size) {
      std::size_t n = stepsOf(h, [&] { slots[s.slot] = h.malloc(s.size); });
      ASSERT_NE(slots[s.slot], nullptr);
      maxMalloc = std::max(maxMalloc, n);
    } else {
      maxFree = std::max(maxFree, stepsOf(h, [&] { h.free(slots[s.slot]); }));
    }
    if (++i % 5000 == 0) {
      ASSERT_EQ(h.checkInvariants(), "") << i;
    }
  }
  EXPECT_LE(maxMalloc, Layer::kMaxMallocSteps);
  EXPECT_LE(maxFree, Layer::kMaxFreeSteps);
  // What these workloads reach (medium tries are at most 11 deep).
  EXPECT_LE(maxMalloc, 60u);
  EXPECT_LE(maxFree, 40u);
  EXPECT_EQ(h.freeBytes(), arena - 40);
}

TEST(LeaBinsHeap, EveryCallWithinItsStepBoundJvmLike) {
  expectEveryCallWithinBounds(SizeMix::jvmLike, 5, 32 << 20);
}

TEST(LeaBinsHeap, EveryCallWithinItsStepBoundFragmenting) {
  expectEveryCallWithinBounds(SizeMix::fragmenting, 6, 8 << 20);
}

// mallocFastPath is malloc's victim carve in one pass: two heaps given the same
// calls, one trying the fast path before every malloc, hand out the same offsets
// with the same steps and outcomes, and keep the same victim, free bytes and bins.
void expectFastPathIsMallocsCarve(SizeMix mix, std::uint64_t seed) {
  const std::size_t arena = 8 << 20;
  Bins fast(arena), plain(arena);
  auto offset = [](const Bins& h, const void* p) {
    return p ? static_cast<const std::byte*>(p) - h.arenaBase() : std::ptrdiff_t{-1};
  };
  std::vector<WorkloadStep> steps = makeWorkload(mix, seed, 60'000, 2000);
  std::vector<void*> fastSlots(2000), plainSlots(2000);
  std::size_t taken = 0, takenMedium = 0, i = 0;
  for (const WorkloadStep& s : steps) {
    if (s.size) {
      std::size_t fastSteps = stepsOf(fast, [&] {
        fastSlots[s.slot] = fast.mallocFastPath(s.size);
        if (fastSlots[s.slot] != nullptr) {
          ++taken;
          takenMedium += s.size > Layer::kExactMaxRequest;
        } else {
          fastSlots[s.slot] = fast.malloc(s.size);
        }
      });
      std::size_t plainSteps = stepsOf(plain, [&] { plainSlots[s.slot] = plain.malloc(s.size); });
      ASSERT_EQ(offset(fast, fastSlots[s.slot]), offset(plain, plainSlots[s.slot])) << i;
      ASSERT_EQ(fastSteps, plainSteps) << i;
      ASSERT_EQ(fast.lastOutcome(), plain.lastOutcome()) << i;
    } else {
      fast.free(fastSlots[s.slot]);
      plain.free(plainSlots[s.slot]);
    }
    ASSERT_EQ(offset(fast, fast.victim()), offset(plain, plain.victim())) << i;
    ASSERT_EQ(fast.freeBytes(), plain.freeBytes()) << i;
    ASSERT_EQ(fast.nonEmptyBins(), plain.nonEmptyBins()) << i;
    if (++i % 5000 == 0) {
      ASSERT_EQ(fast.checkInvariants(), "") << i;
    }
  }
  EXPECT_EQ(fast.checkInvariants(), "");
  EXPECT_GT(taken, 1000u);  // the fast path did serve (a test of it, not of malloc alone)
  EXPECT_GT(takenMedium, 0u);  // medium requests too
}

TEST(LeaBinsHeap, FastPathIsMallocsCarveJvmLike) { expectFastPathIsMallocsCarve(SizeMix::jvmLike, 11); }
TEST(LeaBinsHeap, FastPathIsMallocsCarveFragmenting) { expectFastPathIsMallocsCarve(SizeMix::fragmenting, 12); }

TEST(LeaBinsHeap, FastPathDeclinesWhatItDoesNotCarve) {
  Bins h(1 << 20);
  EXPECT_EQ(h.mallocFastPath(16), nullptr);  // no victim yet: the arena block is in the large bin
  void* a = h.malloc(100);
  ASSERT_NE(h.victim(), nullptr);
  EXPECT_EQ(h.mallocFastPath(1u << 20), nullptr);  // bigger than the victim
  void* b = h.mallocFastPath(40);
  EXPECT_EQ(b, static_cast<std::byte*>(a) + 112);  // the victim's first 48 bytes
  EXPECT_EQ(h.lastOutcome(), Outcome::split);
  EXPECT_EQ(h.victim(), static_cast<std::byte*>(b) + 48);
  h.malloc(40);
  h.free(b);  // between two busy blocks: it goes to its exact bin, which malloc takes first
  ASSERT_EQ(h.binBlockCount(Layer::binOf(48)), 1u);
  std::size_t before = h.stepCount();
  EXPECT_EQ(h.mallocFastPath(40), nullptr);
  EXPECT_EQ(h.stepCount(), before);  // declining changes nothing
  EXPECT_EQ(h.checkInvariants(), "");
}

// Adversarial for the trie: every size of the widest medium bin free at once, each
// several times, then requests for each size in turn, and frees that coalesce
// neighbours out of the middle of the trie.
TEST(LeaBinsHeap, AFullMediumBinStaysWithinTheBound) {
  Bins h(256 << 20);
  const unsigned bin = Layer::kLargeBin - 1;  // [112 KiB, 128 KiB): 1024 sizes
  const std::size_t lower = Layer::binLowerBound(bin);
  std::vector<void*> blocks;
  for (int copy = 0; copy < 3; ++copy)
    for (std::size_t bytes = lower; bytes < Layer::kLargeBytes; bytes += 16 * 7) {
      blocks.push_back(h.malloc(bytes - 8));
      h.malloc(16);
    }
  std::size_t maxFree = 0, maxMalloc = 0;
  for (void* p : blocks) maxFree = std::max(maxFree, stepsOf(h, [&] { h.free(p); }));
  ASSERT_EQ(h.checkInvariants(), "");
  EXPECT_EQ(h.binBlockCount(bin), blocks.size());
  const std::size_t path = SizeTrie::pathNodes(Layer::trieTopBit(bin));
  EXPECT_LE(maxFree, path + 1);
  for (std::size_t bytes = lower; bytes < Layer::kLargeBytes; bytes += 16 * 5) {
    void* p = nullptr;
    maxMalloc = std::max(maxMalloc, stepsOf(h, [&] { p = h.malloc(bytes - 8); }));
    ASSERT_NE(p, nullptr);
    EXPECT_GE(Layer::blockBytes(p), bytes);
    EXPECT_LT(Layer::blockBytes(p), bytes + 16 * 7 + 32);  // best fit, split or not
  }
  // Search (2P - 1) + unlink (P) + the rest filed (its own trie's P + 1).
  EXPECT_LE(maxMalloc, 2 * path - 1 + path + path + 1);
  ASSERT_EQ(h.checkInvariants(), "");
}

TEST(LeaBinsHeap, LargestFreeBlockIsTheLargestRequestThatSucceeds) {
  Holes f{300 * 1024, 150 * 1024, 2000};
  std::size_t largest = f.h.largestFreeBlock();
  void* p = f.h.malloc(largest);
  ASSERT_NE(p, nullptr);
  EXPECT_EQ(f.h.malloc(f.h.largestFreeBlock() + 1), nullptr);
  f.h.free(p);
  EXPECT_EQ(f.h.largestFreeBlock(), largest);
  EXPECT_EQ(f.h.malloc(largest + 1), nullptr);
  EXPECT_EQ(f.h.checkInvariants(), "");
}

}  // namespace
}  // namespace kith::heap
