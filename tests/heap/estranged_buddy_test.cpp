#include "heap/buddy/estranged_buddy_heap.h"

#include <gtest/gtest.h>

#include <array>
#include <cstdint>
#include <vector>

#include "heap/layers/fixed_arena.h"
#include "heap/buddy/knuth_buddy_heap.h"
#include "heap/policies.h"
#include "tests/heap/buddy_test_support.h"

namespace kith::heap {
namespace {

using Estranged = EstrangedBuddyHeap<FixedArena>;
using CheckedEstranged = testing::CheckedHeap<Estranged>;  // checkInvariants() after every call
using testing::arenaOffset;
using testing::BuddyShadow;

static_assert(testing::BuddyHeapAndPolicy<Estranged, EstrangedPolicy>);

// Layouts: a block's size, then "*" busy, "+" on buddy-free, "-" implied (free, its
// buddy is the listed one of the pair); no mark = free on buddy-busy.

TEST(EstrangedBuddy, PaperFiguresThenTheFreedBlockIsKeptForReuse) {
  CheckedEstranged h(256);
  EXPECT_EQ(h.layout(), "256");  // a maximal block has no buddy: buddy-busy
  void* a = h.malloc(10);
  ASSERT_NE(a, nullptr);
  EXPECT_EQ(arenaOffset(h, a), 0u);
  EXPECT_EQ(h.layout(), "16* 16 32 64 128");  // Figure 4; each upper half's buddy is busy
  EXPECT_EQ(h.lastOutcome(), Outcome::split);
  // Two lists at 16, two each at 32, 64, 128, buddy-busy at 256, four bisections.
  EXPECT_EQ(h.lastSteps(), 2u + 2 + 2 + 2 + 1 + 4);
  EXPECT_EQ(h.checkInvariants(), "");

  h.free(a);  // no recombination: the two 16s become a free pair
  EXPECT_EQ(h.layout(), "16+ 16- 32 64 128");
  EXPECT_EQ(h.lastFreeSteps(), 2u);
  EXPECT_EQ(h.freeBytes(), 256u);
  EXPECT_EQ(h.largestFreeBlock(), 128u);
  EXPECT_EQ(h.checkInvariants(), "");

  void* again = h.malloc(16);  // step (2): buddy-free at 16; its buddy becomes buddy-busy
  EXPECT_EQ(again, a);
  EXPECT_EQ(h.lastOutcome(), Outcome::immediate);
  EXPECT_EQ(h.lastSteps(), 2u);
  EXPECT_EQ(h.layout(), "16* 16 32 64 128");
  EXPECT_EQ(h.checkInvariants(), "");
}

TEST(EstrangedBuddy, OscillationIsServedImmediatelyAfterTheFirstTime) {
  CheckedEstranged h(64 * 1024);
  std::size_t immediate = 0, split = 0, steps = 0;
  for (int i = 0; i < 1000; ++i) {
    void* p = h.malloc(16);
    ASSERT_NE(p, nullptr);
    immediate += h.lastOutcome() == Outcome::immediate;
    split += h.lastOutcome() == Outcome::split;
    if (i > 0) steps += h.lastSteps();
    h.free(p);
    ASSERT_EQ(h.lastFreeSteps(), 2u);
  }
  EXPECT_EQ(split, 1u);  // Knuth splits all 1000 times (knuth_buddy_test)
  EXPECT_EQ(immediate, 999u);
  EXPECT_EQ(steps, 999u * 2);  // two list heads, every time
  EXPECT_EQ(h.checkInvariants(), "");
}

TEST(EstrangedBuddy, StepOneBuddyBusyIsPreferredOverBuddyFree) {
  CheckedEstranged h(256);
  std::array<void*, 4> p{};
  for (auto& q : p) q = h.malloc(16);
  EXPECT_EQ(h.layout(), "16* 16* 16* 16* 64 128");
  h.free(p[0]);  // its buddy p[1] is busy
  h.free(p[2]);
  h.free(p[3]);  // its buddy p[2] is free: the pair goes to buddy-free
  EXPECT_EQ(h.layout(), "16 16* 16- 16+ 64 128");
  EXPECT_EQ(h.checkInvariants(), "");

  EXPECT_EQ(h.malloc(16), p[0]);  // (1) buddy-busy, keeping the pair for recombination
  EXPECT_EQ(h.lastOutcome(), Outcome::immediate);
  EXPECT_EQ(h.lastSteps(), 1u);
  EXPECT_EQ(h.malloc(16), p[3]);  // (2) buddy-free; its buddy p[2] moves to buddy-busy
  EXPECT_EQ(h.lastOutcome(), Outcome::immediate);
  EXPECT_EQ(h.lastSteps(), 2u);
  EXPECT_EQ(h.layout(), "16* 16* 16 16* 64 128");
  EXPECT_EQ(h.checkInvariants(), "");
}

TEST(EstrangedBuddy, StepThreeGluesTwoHalfSizeBuddies) {
  CheckedEstranged h(256);
  void* a = h.malloc(16);
  void* b = h.malloc(16);
  void* c = h.malloc(32);
  h.free(a);
  h.free(b);
  EXPECT_EQ(h.layout(), "16- 16+ 32* 64 128");
  void* d = h.malloc(32);  // (1), (2) empty at 32; (3) glues the pair instead of splitting 64
  EXPECT_EQ(d, a);
  EXPECT_EQ(h.lastOutcome(), Outcome::glue);
  EXPECT_EQ(h.lastSteps(), 2u + 1 + 1);
  EXPECT_EQ(h.layout(), "32* 32* 64 128");
  EXPECT_EQ(h.checkInvariants(), "");
  h.free(c);
  h.free(d);  // 32 + 32 is a free pair now, not a 64; the last freed is the listed one
  EXPECT_EQ(h.layout(), "32+ 32- 64 128");
  EXPECT_EQ(h.checkInvariants(), "");
}

TEST(EstrangedBuddy, StepFiveGluesAChainOfPairsUpToTheRequest) {
  CheckedEstranged h(128);
  void* a = h.malloc(16);
  void* b = h.malloc(16);
  void* c = h.malloc(32);
  void* d = h.malloc(64);
  h.free(c);  // its buddy (a, b) is split: buddy-busy
  h.free(a);
  h.free(b);
  EXPECT_EQ(h.layout(), "16- 16+ 32 64*");
  EXPECT_EQ(h.checkInvariants(), "");
  // 64: (1)-(3) find nothing at 64 or at 32's buddy-free, (4) nothing above; (5)
  // glues 16+16 into 32, which pairs with c, then glues that pair into 64.
  void* e = h.malloc(64);
  EXPECT_EQ(e, a);
  EXPECT_EQ(h.lastOutcome(), Outcome::glue);
  EXPECT_EQ(h.lastSteps(), 2u + 1 + 2 + 2 + 2);
  EXPECT_EQ(h.layout(), "64* 64*");
  EXPECT_EQ(h.checkInvariants(), "");
  h.free(e);
  h.free(d);
  EXPECT_EQ(h.layout(), "64- 64+");
}

// Step (5) glues at most one pair per level, so a heap that is entirely free but
// shattered into small pairs cannot serve a large request at once. Each failed
// request moves the recombination forward; with a relocator the defragmenter glues
// whatever it needs (buddy_defrag_test).
TEST(EstrangedBuddy, StepFiveIsBoundedToOneGluePerLevel) {
  CheckedEstranged h(256);
  std::vector<void*> all = testing::mallocUntilFull(h, 16);
  ASSERT_EQ(all.size(), 16u);
  for (void* p : all) h.free(p);
  EXPECT_EQ(h.layout(), "16- 16+ 16- 16+ 16- 16+ 16- 16+ 16- 16+ 16- 16+ 16- 16+ 16- 16+");
  EXPECT_EQ(h.freeBytes(), 256u);
  int attempts = 0;
  void* whole = nullptr;
  while (!whole && attempts < 20) {
    whole = h.malloc(256);
    ++attempts;
    EXPECT_LE(h.lastSteps(), Estranged::mallocStepBound(4, 4));
    ASSERT_EQ(h.checkInvariants(), "");
    if (!whole) {
      EXPECT_EQ(h.lastOutcome(), Outcome::failed);
    }
  }
  ASSERT_NE(whole, nullptr);
  EXPECT_EQ(h.lastOutcome(), Outcome::glue);
  EXPECT_GT(attempts, 1);  // the first request could not be served
  EXPECT_EQ(h.layout(), "256*");
}

TEST(EstrangedBuddy, ClassificationFollowsTheBuddyThroughSplitsAndFrees) {
  CheckedEstranged h(256);
  void* a = h.malloc(32);
  EXPECT_EQ(h.layout(), "32* 32 64 128");
  void* b = h.malloc(16);  // (4) splits a's free buddy: a's buddy is now split
  EXPECT_EQ(h.layout(), "32* 16* 16 64 128");
  h.free(a);  // its buddy is split, so busy for classification
  EXPECT_EQ(h.layout(), "32 16* 16 64 128");
  EXPECT_EQ(h.checkInvariants(), "");
  h.free(b);  // a pair at 16; a's buddy is still split (two blocks), a stays buddy-busy
  EXPECT_EQ(h.layout(), "32 16+ 16- 64 128");
  EXPECT_EQ(h.checkInvariants(), "");
  void* c = h.malloc(32);  // (1) buddy-busy at 32
  EXPECT_EQ(c, a);
  EXPECT_EQ(h.lastOutcome(), Outcome::immediate);
  void* d = h.malloc(32);  // (3): glues the pair at 16
  EXPECT_EQ(h.lastOutcome(), Outcome::glue);
  EXPECT_EQ(h.layout(), "32* 32* 64 128");
  h.free(c);  // its buddy d is busy
  EXPECT_EQ(h.layout(), "32 32* 64 128");
  h.free(d);  // d's buddy c is free on buddy-busy: c becomes implied, d goes to buddy-free
  EXPECT_EQ(h.layout(), "32- 32+ 64 128");
  EXPECT_EQ(h.checkInvariants(), "");
  void* e = h.malloc(64);  // (1) buddy-busy at 64: its buddy (the pair of 32s) is split
  EXPECT_EQ(h.lastOutcome(), Outcome::immediate);
  EXPECT_EQ(arenaOffset(h, e), 64u);
  void* f = h.malloc(128);  // (1): 128's buddy (0..128) is split
  EXPECT_EQ(arenaOffset(h, f), 128u);
  EXPECT_EQ(h.layout(), "32- 32+ 64* 128*");
  h.free(f);
  EXPECT_EQ(h.layout(), "32- 32+ 64* 128");
  EXPECT_EQ(h.checkInvariants(), "");
}

TEST(EstrangedBuddy, EdgeSizesAndOutOfMemory) {
  CheckedEstranged h(4096);
  EXPECT_EQ(h.malloc(SIZE_MAX), nullptr);
  EXPECT_EQ(h.lastOutcome(), Outcome::failed);
  EXPECT_EQ(h.malloc(4097), nullptr);
  EXPECT_EQ(h.lastSteps(), 0u);
  void* zero = h.malloc(0);
  ASSERT_NE(zero, nullptr);
  EXPECT_EQ(h.getSize(zero), 16u);
  h.free(zero);
  EXPECT_EQ(h.layout(), "16+ 16- 32 64 128 256 512 1024 2048");
  // (5) glues the chain the split left: one pair per level, all the way up.
  void* whole = h.malloc(4096);
  ASSERT_NE(whole, nullptr);
  EXPECT_EQ(h.lastOutcome(), Outcome::glue);
  EXPECT_EQ(h.lastSteps(), 2u + 1 + 8 + 8);
  EXPECT_EQ(h.getSize(whole), 4096u);
  EXPECT_EQ(h.malloc(1), nullptr);
  EXPECT_EQ(h.lastOutcome(), Outcome::failed);
  h.free(whole);
  EXPECT_EQ(h.layout(), "4096");
  EXPECT_EQ(h.checkInvariants(), "");

  CheckedEstranged empty(0);
  EXPECT_EQ(empty.malloc(0), nullptr);
  EXPECT_EQ(empty.checkInvariants(), "");
  testing::CheckedHeap<EstrangedPolicy> p(1024);
  std::vector<void*> blocks = testing::mallocUntilFull(p, 16);
  EXPECT_EQ(blocks.size(), 64u);
  EXPECT_EQ(p.malloc(16), nullptr);
  EXPECT_EQ(p.lastOutcome(), Outcome::failed);
  for (void* b : blocks) p.free(b);
  EXPECT_EQ(p.checkInvariants(), "");
}

TEST(EstrangedBuddy, NonPowerOfTwoArenaIsCoveredByMaximalBlocks) {
  constexpr std::size_t kBytes = 96 * 1024 + 48;
  CheckedEstranged h(kBytes);
  EXPECT_EQ(h.layout(), "65536 | 32768 | 32 | 16");
  EXPECT_EQ(h.malloc(65537), nullptr);
  void* b16 = h.malloc(16);  // the 16-byte maximal block serves it at once
  EXPECT_EQ(arenaOffset(h, b16), 98336u);
  EXPECT_EQ(h.lastOutcome(), Outcome::immediate);
  void* b32 = h.malloc(32);
  EXPECT_EQ(arenaOffset(h, b32), 98304u);
  h.free(b16);  // a maximal block has no buddy: always buddy-busy
  h.free(b32);
  EXPECT_EQ(h.layout(), "65536 | 32768 | 32 | 16");
  EXPECT_EQ(h.checkInvariants(), "");

  // Filling it checks invariants only at the end (a walk per call would be slow).
  Estranged& raw = h;
  std::vector<void*> all = testing::mallocUntilFull(raw, 16);
  EXPECT_EQ(all.size(), kBytes / 16);
  EXPECT_EQ(h.checkInvariants(), "");
  for (void* p : all) raw.free(p);
  EXPECT_EQ(h.freeBytes(), kBytes);
  EXPECT_EQ(h.largestFreeBlock(), 16u);
  EXPECT_EQ(h.checkInvariants(), "");
}

TEST(EstrangedBuddy, EverySequenceOfSevenOperationsOnA128ByteHeap) {
  testing::expectEverySequenceOfSevenOn128Bytes<Estranged>(
      [](Estranged& h, const BuddyShadow&, const testing::SequenceOp& op) -> std::string {
        const std::size_t size = op.size;
        void* p = op.result;
        if (op.wasMalloc && p && h.getSize(p) != (size < 16 ? 16 : std::bit_ceil(size))) return "wrong block size";
        // A request fails only if no single free block of its size or larger exists
        // afterwards (steps 1, 2 and 4 would have used it).
        if (op.wasMalloc && !p && h.largestFreeBlock() >= std::bit_ceil(size)) return "failed with a block free";
        return {};
      });
}

TEST(EstrangedBuddy, EveryMallocAndFreeStaysWithinTheStepBound) {
  Estranged h(1 << 20);
  const unsigned L = h.topLevel();
  ASSERT_EQ(L, 16u);
  testing::expectWithinStepBounds(h, 11, 3 * L + 4, 2);
  EXPECT_EQ(h.freeBytes(), 1u << 20);
}

// The paper's Figure 10: with delayed recombination far more requests are served
// from their own size's lists than with Knuth's eager recombination.
TEST(EstrangedBuddy, ServesMoreRequestsImmediatelyThanKnuth) {
  constexpr std::size_t kBytes = 4u << 20;
  KnuthBuddyHeap<FixedArena> knuth(kBytes);
  Estranged estranged(kBytes);
  std::array<std::size_t, kOutcomeCount> kOut{}, eOut{};
  const auto steps = makeWorkload(SizeMix::jvmLike, 5, 200'000, 2000);
  std::vector<void*> kSlots(2000), eSlots(2000);
  for (const WorkloadStep& s : steps) {
    if (s.size == 0) {
      knuth.free(kSlots[s.slot]);
      estranged.free(eSlots[s.slot]);
      continue;
    }
    kSlots[s.slot] = knuth.malloc(s.size);
    ++kOut[static_cast<int>(knuth.lastOutcome())];
    eSlots[s.slot] = estranged.malloc(s.size);
    ++eOut[static_cast<int>(estranged.lastOutcome())];
  }
  const auto immediate = static_cast<int>(Outcome::immediate);
  EXPECT_EQ(kOut[static_cast<int>(Outcome::failed)], 0u);
  EXPECT_EQ(eOut[static_cast<int>(Outcome::failed)], 0u);
  EXPECT_GT(eOut[immediate], kOut[immediate] + 200'000 / 10);
  EXPECT_GT(eOut[immediate], 200'000u * 8 / 10);
  EXPECT_EQ(estranged.checkInvariants(), "");
  EXPECT_EQ(knuth.checkInvariants(), "");
}

TEST(EstrangedBuddy, ShadowModelMillionOperations) { testing::expectMillionShadowOperations<EstrangedPolicy>(); }

TEST(EstrangedBuddy, ShadowModelFragmentingMix) {
  Estranged h(1u << 20);
  EXPECT_EQ(testing::runFragmentingShadowModel(h).error, "");
  EXPECT_EQ(h.freeBytes(), 1u << 20);
}

}  // namespace
}  // namespace kith::heap
