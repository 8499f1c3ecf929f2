// LeaBinsHeap: Lea's 64 size-segregated bins with best fit and a non-empty
// bitmap. Tested under CoalesceHeap without the quick lists, so every free lands
// in a bin; lea_policy_test.cpp covers the whole `lea` policy.
#include "heap/lea_bins_heap.h"

#include <gtest/gtest.h>

#include <vector>

#include "heap/coalesce_heap.h"
#include "heap/coalesceable_heap.h"
#include "heap/fixed_arena.h"

namespace kith::heap {
namespace {

using Bins = CoalesceHeap<LeaBinsHeap<CoalesceableHeap<FixedArena>>>;
using Layer = LeaBinsHeap<CoalesceableHeap<FixedArena>>;

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
  EXPECT_EQ(f.h.nonEmptyBins(), (std::uint64_t{1} << 1) | (std::uint64_t{1} << 63));
  EXPECT_EQ(f.h.malloc(33), f.holes[2]);  // the most recently freed
  EXPECT_EQ(f.h.lastSteps(), 1u);
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
  void* p = f.h.malloc(800);  // needs 816: bin 33 is empty, so bin 34's block, split
  EXPECT_EQ(p, f.holes[0]);
  EXPECT_EQ(f.h.lastOutcome(), Outcome::split);
  EXPECT_EQ(f.h.lastSteps(), 1u);  // one node looked at, however many bins were empty
  EXPECT_EQ(f.h.binBlockCount(38), 1u);  // the larger hole is untouched
  EXPECT_EQ(f.h.binBlockCount(Layer::binOf(1008 - 816)), 1u);  // the rest was filed
  EXPECT_EQ(f.h.checkInvariants(), "");
}

TEST(LeaBinsHeap, LargeRequestsTakeTheBestFitOfTheLargeBin) {
  Holes f{300 * 1024, 150 * 1024};
  ASSERT_EQ(f.h.binBlockCount(Layer::kLargeBin), 3u);  // both holes and the arena's rest
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

}  // namespace
}  // namespace kith::heap
