#include "heap/buddy/knuth_buddy_heap.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <vector>

#include "heap/layers/fixed_arena.h"
#include "heap/policies.h"
#include "tests/heap/buddy_test_support.h"

namespace kith::heap {
namespace {

using Knuth = KnuthBuddyHeap<FixedArena>;
using CheckedKnuth = testing::CheckedHeap<Knuth>;  // checkInvariants() after every call
using testing::arenaOffset;
using testing::BuddyShadow;

static_assert(testing::BuddyHeapAndPolicy<Knuth, KnuthPolicy>);

// --- the paper's Figures 3 and 4 on a 256-byte heap ---------------------------------

TEST(KnuthBuddy, PaperFigures3And4OnA256ByteHeap) {
  CheckedKnuth h(256);
  EXPECT_EQ(h.layout(), "256");  // Figure 3(a): one free block
  EXPECT_EQ(h.topLevel(), 4u);

  void* a = h.malloc(10);  // Figure 4: bisected down to two 16-byte buddies
  ASSERT_NE(a, nullptr);
  EXPECT_EQ(arenaOffset(h, a), 0u);
  EXPECT_EQ(h.layout(), "16* 16 32 64 128");
  EXPECT_EQ(h.lastOutcome(), Outcome::split);
  EXPECT_EQ(h.lastSteps(), 5u + 4u);  // lists 16..256 inspected, four bisections
  EXPECT_EQ(h.getSize(a), 16u);
  EXPECT_EQ(h.checkInvariants(), "");

  void* b = h.malloc(16);  // Figure 2: the size-16 list has a block: immediate
  EXPECT_EQ(arenaOffset(h, b), 16u);
  EXPECT_EQ(h.lastOutcome(), Outcome::immediate);
  EXPECT_EQ(h.lastSteps(), 1u);
  EXPECT_EQ(h.layout(), "16* 16* 32 64 128");

  void* c = h.malloc(64);
  EXPECT_EQ(arenaOffset(h, c), 64u);
  EXPECT_EQ(h.lastOutcome(), Outcome::immediate);
  EXPECT_EQ(h.layout(), "16* 16* 32 64* 128");
  EXPECT_EQ(h.checkInvariants(), "");

  // Eager recombination: freeing b joins nothing (a is busy); freeing a joins
  // 16+16, then 32+32; c's freeing then rebuilds the whole heap.
  h.free(b);
  EXPECT_EQ(h.layout(), "16* 16 32 64* 128");
  EXPECT_EQ(h.lastFreeSteps(), 1u);
  h.free(a);
  EXPECT_EQ(h.layout(), "64 64* 128");
  EXPECT_EQ(h.lastFreeSteps(), 3u);
  EXPECT_EQ(h.checkInvariants(), "");
  h.free(c);
  EXPECT_EQ(h.layout(), "256");  // back to Figure 3(a)
  EXPECT_EQ(h.lastFreeSteps(), 3u);
  EXPECT_EQ(h.freeBytes(), 256u);
  EXPECT_EQ(h.checkInvariants(), "");
}

TEST(KnuthBuddy, BlockSizesArePowersOfTwoFromSixteen) {
  CheckedKnuth h(1 << 16);
  const std::pair<std::size_t, std::size_t> cases[] = {
      {0, 16}, {1, 16}, {16, 16}, {17, 32}, {32, 32}, {33, 64}, {64, 64}, {100, 128}, {4097, 8192}};
  for (auto [request, block] : cases) {
    void* p = h.malloc(request);
    ASSERT_NE(p, nullptr) << request;
    EXPECT_TRUE(isAligned(p));
    EXPECT_EQ(h.getSize(p), block) << request;
    EXPECT_EQ(arenaOffset(h, p) % block, 0u) << "a block starts at a multiple of its size";
    h.free(p);
    EXPECT_EQ(h.layout(), "65536");
  }
  EXPECT_EQ(h.getSize(nullptr), 0u);
  h.free(nullptr);  // no-op
  EXPECT_EQ(h.checkInvariants(), "");
}

TEST(KnuthBuddy, EdgeSizesAndOutOfMemory) {
  CheckedKnuth h(4096);
  EXPECT_EQ(h.malloc(SIZE_MAX), nullptr);
  EXPECT_EQ(h.lastOutcome(), Outcome::failed);
  EXPECT_EQ(h.malloc(SIZE_MAX - 15), nullptr);
  EXPECT_EQ(h.malloc(4097), nullptr);  // above the arena: fails without searching
  EXPECT_EQ(h.lastSteps(), 0u);
  void* all = h.malloc(4096);  // the arena size: the whole heap
  ASSERT_NE(all, nullptr);
  EXPECT_EQ(h.lastOutcome(), Outcome::immediate);
  EXPECT_EQ(h.freeBytes(), 0u);
  EXPECT_EQ(h.largestFreeBlock(), 0u);
  EXPECT_EQ(h.malloc(0), nullptr);  // full
  EXPECT_EQ(h.lastOutcome(), Outcome::failed);
  EXPECT_EQ(h.lastSteps(), 9u);  // every list 16..4096 inspected
  EXPECT_EQ(h.checkInvariants(), "");
  h.free(all);
  EXPECT_EQ(h.freeBytes(), 4096u);
  EXPECT_EQ(h.largestFreeBlock(), 4096u);
}

TEST(KnuthBuddy, EmptyArenaFailsEverything) {
  CheckedKnuth h(0);
  EXPECT_EQ(h.malloc(0), nullptr);
  EXPECT_EQ(h.malloc(16), nullptr);
  EXPECT_EQ(h.freeBytes(), 0u);
  EXPECT_EQ(h.checkInvariants(), "");
  testing::CheckedHeap<KnuthPolicy> p(8);  // rounds down to nothing
  EXPECT_EQ(p.malloc(1), nullptr);
}

TEST(KnuthBuddy, OutOfMemoryPropagatesThroughThePolicy) {
  testing::CheckedHeap<KnuthPolicy> p(1024);
  std::vector<void*> blocks = testing::mallocUntilFull(p, 16);
  EXPECT_EQ(blocks.size(), 64u);
  EXPECT_EQ(p.lastOutcome(), Outcome::failed);
  EXPECT_EQ(p.malloc(1), nullptr);
  EXPECT_EQ(p.checkInvariants(), "");
  for (void* b : blocks) p.free(b);
  EXPECT_EQ(p.layout(), "1024");
}

// --- the side table: the VM's 16/32/64-byte objects get the whole block ----------------

TEST(KnuthBuddy, SideTableLeavesTheWholeBlockToTheObject) {
  Knuth h(64 * 1024);
  std::size_t n = 0;
  while (void* p = h.malloc(16)) {
    EXPECT_EQ(h.getSize(p), 16u);
    ++n;
  }
  EXPECT_EQ(n, 4096u);  // a header would have halved this
  EXPECT_EQ(h.freeBytes(), 0u);
  // One byte of side table per 16-byte granule, plus the list display.
  EXPECT_GE(h.metadataBytes(), 4096u);
  EXPECT_LT(h.metadataBytes(), 4096u + 2048u);
  EXPECT_EQ(h.checkInvariants(), "");
}

// --- the oscillation of one small block ---------------------------------------------------

TEST(KnuthBuddy, OscillationSplitsAndJoinsEveryTime) {
  CheckedKnuth h(64 * 1024);  // L = log2(65536 / 16) = 12
  const unsigned L = h.topLevel();
  ASSERT_EQ(L, 12u);
  std::size_t splits = 0, bisectingSteps = 0, joins = 0;
  for (int i = 0; i < 1000; ++i) {
    void* p = h.malloc(16);
    ASSERT_NE(p, nullptr);
    splits += h.lastOutcome() == Outcome::split;
    bisectingSteps += h.lastSteps();
    h.free(p);
    joins += h.lastFreeSteps() - 1;
    ASSERT_EQ(h.layout(), "65536");
  }
  EXPECT_EQ(splits, 1000u);                     // never served immediately
  EXPECT_EQ(bisectingSteps, 1000u * (2 * L + 1));  // the worst case, every time
  EXPECT_EQ(joins, 1000u * L);
  EXPECT_EQ(h.checkInvariants(), "");
}

// --- arenas that are not a power of two ---------------------------------------------------

TEST(KnuthBuddy, NonPowerOfTwoArenaIsCoveredByMaximalBlocks) {
  constexpr std::size_t kBytes = 96 * 1024 + 48;
  CheckedKnuth h(kBytes);
  EXPECT_EQ(h.layout(), "65536 | 32768 | 32 | 16");
  EXPECT_EQ(h.topLevel(), 12u);
  EXPECT_EQ(h.freeBytes(), kBytes);
  EXPECT_EQ(h.largestFreeBlock(), 65536u);
  EXPECT_EQ(h.checkInvariants(), "");

  EXPECT_EQ(h.malloc(65537), nullptr);  // no maximal block is larger
  void* big = h.malloc(65536);
  void* mid = h.malloc(32768);
  void* b32 = h.malloc(32);
  void* b16 = h.malloc(16);
  ASSERT_TRUE(big && mid && b32 && b16);
  EXPECT_EQ(arenaOffset(h, big), 0u);
  EXPECT_EQ(arenaOffset(h, mid), 65536u);
  EXPECT_EQ(arenaOffset(h, b32), 98304u);
  EXPECT_EQ(arenaOffset(h, b16), 98336u);
  EXPECT_EQ(h.malloc(16), nullptr);
  EXPECT_EQ(h.checkInvariants(), "");
  // The 32-byte root and the 16-byte root at 98304 ^ 32 are not buddies: they never join.
  h.free(b16);
  h.free(b32);
  EXPECT_EQ(h.layout(), "65536* | 32768* | 32 | 16");
  h.free(mid);
  h.free(big);
  EXPECT_EQ(h.layout(), "65536 | 32768 | 32 | 16");

  // Filled with 16-byte blocks it holds exactly arena / 16 of them, none crossing a root.
  // Filling it checks invariants only at the end (a walk per call would be slow).
  Knuth& raw = h;
  std::vector<void*> all = testing::mallocUntilFull(raw, 16);
  EXPECT_EQ(all.size(), kBytes / 16);
  EXPECT_EQ(h.checkInvariants(), "");
  for (std::size_t i = 0; i < all.size(); i += 2) raw.free(all[i]);
  for (std::size_t i = 1; i < all.size(); i += 2) raw.free(all[i]);
  EXPECT_EQ(h.layout(), "65536 | 32768 | 32 | 16");
  EXPECT_EQ(h.checkInvariants(), "");
}

// --- exhaustive: every short sequence on a tiny heap ---------------------------------------

// Knuth's heap is canonical: a request succeeds iff some aligned region of its block
// size is free of live blocks. The test computes that from its own shadow.
TEST(KnuthBuddy, EverySequenceOfSevenOperationsOnA128ByteHeap) {
  testing::expectEverySequenceOfSevenOn128Bytes<Knuth>(
      [](Knuth& h, const BuddyShadow& shadow, const testing::SequenceOp& op) -> std::string {
        if (!op.wasMalloc) return {};
        void* p = op.result;
        const std::size_t block = op.size < 16 ? 16 : std::bit_ceil(op.size);
        bool regionFree = false;
        // Before this malloc (p, if any, is now live: leave it out).
        for (std::size_t at = 0; at + block <= 128 && !regionFree; at += block) {
          bool clear = true;
          for (const auto& [q, b] : shadow.live())
            if (q != p) {
              const auto o = static_cast<std::size_t>(q - h.arenaBase());
              if (o < at + block && at < o + b.size) clear = false;
            }
          regionFree = clear;
        }
        if (regionFree != (p != nullptr))
          return std::string("malloc ") + (p ? "succeeded" : "failed") + " but an aligned free region " +
                 (regionFree ? "exists" : "does not exist");
        if (p && h.getSize(p) != block) return "wrong block size";
        return {};
      });
}

// --- the invariant checker can fail ---------------------------------------------------------

TEST(KnuthBuddy, CheckerReportsACorruptedFreeList) {
  CheckedKnuth h(256);
  void* a = h.malloc(16);
  void* b = h.malloc(16);
  void* c = h.malloc(64);
  h.free(a);  // a is on the 16-byte list, its links in its first 16 bytes
  ASSERT_EQ(h.checkInvariants(), "");
  auto* links = static_cast<void**>(a);
  void* saved = links[0];
  links[0] = c;  // a wrong back link
  EXPECT_NE(h.checkInvariants(), "");
  links[0] = saved;
  EXPECT_EQ(h.checkInvariants(), "");
  h.free(b);
  h.free(c);
  EXPECT_EQ(h.layout(), "256");
}

// --- bounded time, by counting ----------------------------------------------------------------

TEST(KnuthBuddy, EveryMallocAndFreeStaysWithinTheStepBound) {
  Knuth h(1 << 20);
  const unsigned L = h.topLevel();  // 16
  ASSERT_EQ(L, 16u);
  testing::expectWithinStepBounds(h, 7, 2 * L + 1, L + 1);
  EXPECT_EQ(h.layout(), "1048576");
}

// --- the shared randomized shadow model -------------------------------------------------------

TEST(KnuthBuddy, ShadowModelMillionOperations) { testing::expectMillionShadowOperations<KnuthPolicy>(); }

TEST(KnuthBuddy, ShadowModelFragmentingMix) {
  Knuth h(1u << 20);
  EXPECT_EQ(testing::runFragmentingShadowModel(h).error, "");
  EXPECT_EQ(h.layout(), "1048576");
}

}  // namespace
}  // namespace kith::heap
