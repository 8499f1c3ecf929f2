#include "heap/buddy/buddy_defragmenter.h"

#include <gtest/gtest.h>

#include <array>
#include <bit>
#include <cstdint>
#include <vector>

#include "heap/policies.h"
#include "tests/heap/buddy_test_support.h"

namespace kith::heap {
namespace {

using testing::BuddyShadow;

template <class P>
std::size_t offsetIn(const P& h, const void* p) {
  return static_cast<std::size_t>(static_cast<const std::byte*>(p) - h.arenaBase());
}

template <class P>
class BuddyDefrag : public ::testing::Test {};
using Policies = ::testing::Types<KnuthPolicy, EstrangedPolicy>;
class PolicyNames {
 public:
  template <class T>
  static std::string GetName(int) {
    return std::same_as<T, KnuthPolicy> ? "knuth" : "estranged";
  }
};
TYPED_TEST_SUITE(BuddyDefrag, Policies, PolicyNames);

// Free blocks of every level, before a request: what bounds its region searches.
template <class P>
std::size_t freeBlockCount(P& h) {
  std::size_t n = 0;
  for (unsigned l = 0; l < BuddyBlockTable::kLevels; ++l) n += h.blockTable().freeBlocks(l);
  return n;
}

// The bounds of one request of level k that moved `moves` blocks and `bytes` bytes
// on a heap with `freeBlocks` free blocks before it: "" or what was exceeded. The
// region searches (one, plus one per move at most) of a level j <= k each take at
// most j + (1 + regionReadBound(j)) * (free blocks), and the free blocks grow by at
// most L per move.
template <class P>
std::string defragBounds(const P& h, unsigned k, std::size_t moves, std::size_t bytes, std::size_t freeBlocks) {
  const unsigned L = h.topLevel();
  if (moves > P::defragMoveBound(k)) return "moved " + std::to_string(moves) + " blocks";
  if (bytes > P::defragBytesBound(k)) return "moved " + std::to_string(bytes) + " bytes";
  const std::size_t search = h.lastRegionSearchSteps();
  std::size_t reads = 0;
  for (unsigned j = 0; j <= k; ++j) reads = std::max(reads, BuddyBlockTable::regionReadBound(j));
  if (search > (1 + moves) * (k + (1 + reads) * (freeBlocks + L * moves)))
    return "region searches took " + std::to_string(search) + " steps";
  if (h.lastSteps() - search > P::mallocStepBound(k, L) + P::defragStepBound(k, L))
    return "took " + std::to_string(h.lastSteps() - search) + " steps besides the region searches";
  return {};
}

// 256 bytes of 16-byte objects with every other one freed: 128 bytes free, but no
// two free blocks are buddies, so nothing larger than 16 can be served.
template <class P>
std::vector<void*> checkerboard(P& h, BuddyShadow& shadow) {
  std::vector<void*> kept;
  std::vector<void*> all;
  while (void* p = h.malloc(16)) all.push_back(p);
  EXPECT_EQ(all.size(), 16u);
  for (std::size_t i = 0; i < all.size(); ++i) {
    if (i % 2 == 0) {
      h.free(all[i]);
    } else {
      EXPECT_EQ(shadow.add(all[i], 16), "");
      kept.push_back(all[i]);
    }
  }
  EXPECT_EQ(h.freeBytes(), 128u);
  EXPECT_EQ(h.largestFreeBlock(), 16u);
  return kept;
}

TYPED_TEST(BuddyDefrag, FailsWithoutARelocatorAndMovesOneObjectWithIt) {
  testing::CheckedHeap<TypeParam> h(256);
  BuddyShadow shadow;
  checkerboard(h, shadow);
  const std::string before = h.layout();
  EXPECT_EQ(before, "16 16* 16 16* 16 16* 16 16* 16 16* 16 16* 16 16* 16 16*");

  EXPECT_EQ(h.malloc(32), nullptr);  // no callback: defragmentation is off
  EXPECT_EQ(h.lastOutcome(), Outcome::failed);
  EXPECT_EQ(h.layout(), before);
  EXPECT_EQ(h.defragMoves(), 0u);
  EXPECT_EQ(h.checkInvariants(), "");

  h.setRelocator(&BuddyShadow::relocate, &shadow);
  void* p = h.malloc(32);
  ASSERT_NE(p, nullptr);
  EXPECT_EQ(h.lastOutcome(), Outcome::defrag);
  EXPECT_EQ(h.getSize(p), 32u);
  // Every 32-byte region holds one live object; the first, at 0, is emptied: its
  // object at 16 moves into the hole the heap's own malloc(16) gives, the most
  // recently freed one (224).
  ASSERT_EQ(shadow.moves().size(), 1u);
  EXPECT_EQ(offsetIn(h, shadow.moves()[0].from), 16u);
  EXPECT_EQ(offsetIn(h, shadow.moves()[0].to), 224u);
  EXPECT_EQ(offsetIn(h, p), 0u);
  EXPECT_EQ(h.layout(), "32* 16 16* 16 16* 16 16* 16 16* 16 16* 16 16* 16* 16*");
  EXPECT_EQ(h.defragMoves(), 1u);
  EXPECT_EQ(h.defragBytesMoved(), 16u);
  EXPECT_EQ(shadow.error(), "");
  EXPECT_EQ(shadow.verifyAll(), "");  // the moved object kept its contents
  EXPECT_EQ(shadow.live().count(h.arenaBase() + 224), 1u);
  EXPECT_EQ(shadow.live().count(h.arenaBase() + 16), 0u);
  EXPECT_EQ(h.checkInvariants(), "");
  EXPECT_EQ(shadow.add(p, 32), "");

  // 96 free bytes in six holes: the emptiest 64-byte region (at 64: two objects)
  // is emptied, two moves.
  void* q = h.malloc(64);
  ASSERT_NE(q, nullptr);
  EXPECT_EQ(h.lastOutcome(), Outcome::defrag);
  EXPECT_EQ(offsetIn(h, q), 64u);
  EXPECT_EQ(h.defragMoves() - 1, 2u);
  EXPECT_EQ(shadow.moves().size(), h.defragMoves());
  EXPECT_EQ(shadow.error(), "");
  EXPECT_EQ(shadow.verifyAll(), "");
  EXPECT_EQ(h.checkInvariants(), "");
  EXPECT_EQ(shadow.add(q, 64), "");

  // 32 bytes left in two holes; then nothing.
  void* r = h.malloc(32);
  ASSERT_NE(r, nullptr);
  EXPECT_EQ(shadow.add(r, 32), "");
  EXPECT_EQ(h.freeBytes(), 0u);
  const std::size_t moves = h.defragMoves();
  EXPECT_EQ(h.malloc(16), nullptr);
  EXPECT_EQ(h.lastOutcome(), Outcome::failed);
  EXPECT_EQ(h.defragMoves(), moves);
  std::size_t bytes = 0;
  for (const auto& m : shadow.moves()) bytes += m.size;
  EXPECT_EQ(bytes, h.defragBytesMoved());
  EXPECT_EQ(shadow.verifyAll(), "");
  EXPECT_EQ(h.checkInvariants(), "");
}

TYPED_TEST(BuddyDefrag, EmptiesTheRegionWithTheFewestLiveBytesLargestFirst) {
  testing::CheckedHeap<TypeParam> h(256);
  BuddyShadow shadow;
  h.setRelocator(&BuddyShadow::relocate, &shadow);
  void* a = h.malloc(64);
  void* b = h.malloc(16);
  void* c = h.malloc(16);
  void* d = h.malloc(32);
  void* e = h.malloc(64);
  void* f = h.malloc(64);
  EXPECT_EQ(h.layout(), "64* 16* 16* 32* 64* 64*");
  for (void* p : {b, d, f}) EXPECT_EQ(shadow.add(p, h.getSize(p)), "");
  h.free(c);
  h.free(e);
  h.free(a);
  EXPECT_EQ(h.freeBytes(), 144u);

  void* big = h.malloc(128);
  ASSERT_NE(big, nullptr);
  EXPECT_EQ(h.lastOutcome(), Outcome::defrag);
  // The region at 0 holds 48 live bytes (b, d), the one at 128 holds 64 (f). d, the
  // larger, moves first, into the free 64 at 128 bisected; then b into the rest.
  EXPECT_EQ(offsetIn(h, big), 0u);
  ASSERT_EQ(shadow.moves().size(), 2u);
  EXPECT_EQ(offsetIn(h, shadow.moves()[0].from), 96u);
  EXPECT_EQ(offsetIn(h, shadow.moves()[0].to), 128u);
  EXPECT_EQ(offsetIn(h, shadow.moves()[1].from), 64u);
  EXPECT_EQ(offsetIn(h, shadow.moves()[1].to), 160u);
  EXPECT_EQ(h.defragBytesMoved(), 48u);  // the least any algorithm could move
  EXPECT_EQ(shadow.error(), "");
  EXPECT_EQ(shadow.verifyAll(), "");
  EXPECT_EQ(h.checkInvariants(), "");
  EXPECT_EQ(h.freeBytes(), 16u);
}

// A block of the emptied region that finds no free block of its size gets a region
// of its own, emptied the same way: here the 32-byte object of the emptiest 64-byte
// region needs the emptiest 32-byte region elsewhere.
TYPED_TEST(BuddyDefrag, ABlockWithNoFreeBlockOfItsSizeGetsARegionEmptiedForIt) {
  testing::CheckedHeap<TypeParam> h(256);
  BuddyShadow shadow;
  h.setRelocator(&BuddyShadow::relocate, &shadow);
  std::vector<void*> small;
  void* big = h.malloc(32);  // 0
  void* hole = h.malloc(32);  // 32: freed below, the region at 0 holds 32 live bytes
  while (void* p = h.malloc(16)) small.push_back(p);  // 64 ... 240
  ASSERT_EQ(small.size(), 12u);
  EXPECT_EQ(shadow.add(big, 32), "");
  h.free(hole);
  // Free the objects at 64, 112, 160 and 208: 64 free bytes in all, no two buddies.
  for (std::size_t i = 0; i < small.size(); ++i) {
    if (i % 3 == 0)
      h.free(small[i]);
    else
      EXPECT_EQ(shadow.add(small[i], 16), "");
  }
  EXPECT_EQ(h.layout(), "32* 32 16 16* 16* 16 16* 16* 16 16* 16* 16 16* 16*");
  void* p = h.malloc(64);
  ASSERT_NE(p, nullptr);
  EXPECT_EQ(h.lastOutcome(), Outcome::defrag);
  EXPECT_EQ(offsetIn(h, p), 0u);
  // The 64-byte regions at 0 and at 64 both hold 32 live bytes; the first is taken
  // (the lowest address among equals). Its 32-byte object finds no free 32, so the
  // emptiest 32-byte region, at 64 (a hole and the object at 80), is emptied into
  // the hole at 208, and the 32 goes there: 48 bytes. Emptying the region at 64
  // would have moved 32; (c) bounds this case by < 2 * 32.
  ASSERT_EQ(shadow.moves().size(), 2u);
  EXPECT_EQ(offsetIn(h, shadow.moves()[0].from), 80u);
  EXPECT_EQ(offsetIn(h, shadow.moves()[0].to), 208u);
  EXPECT_EQ(offsetIn(h, shadow.moves()[1].from), 0u);
  EXPECT_EQ(offsetIn(h, shadow.moves()[1].to), 64u);
  EXPECT_EQ(h.defragBytesMoved(), 48u);
  EXPECT_EQ(h.layout(), "64* 32* 16* 16 16* 16* 16 16* 16* 16* 16* 16*");
  EXPECT_EQ(shadow.error(), "");
  EXPECT_EQ(shadow.verifyAll(), "");
  EXPECT_EQ(h.checkInvariants(), "");
}

TYPED_TEST(BuddyDefrag, TooFewFreeBytesFailsWithoutMovingAnything) {
  testing::CheckedHeap<TypeParam> h(256);
  BuddyShadow shadow;
  h.setRelocator(&BuddyShadow::relocate, &shadow);
  checkerboard(h, shadow);
  const std::string before = h.layout();
  EXPECT_EQ(h.malloc(256), nullptr);  // 128 bytes free
  EXPECT_EQ(h.lastOutcome(), Outcome::failed);
  EXPECT_EQ(h.malloc(512), nullptr);  // larger than the arena
  EXPECT_EQ(h.malloc(SIZE_MAX), nullptr);
  EXPECT_EQ(h.layout(), before);
  EXPECT_EQ(h.defragMoves(), 0u);
  EXPECT_TRUE(shadow.moves().empty());
  // A null callback turns defragmentation off again.
  h.setRelocator(nullptr, nullptr);
  EXPECT_EQ(h.malloc(128), nullptr);
  EXPECT_EQ(h.layout(), before);
  h.setRelocator(&BuddyShadow::relocate, &shadow);
  EXPECT_NE(h.malloc(128), nullptr);  // exactly the free bytes
  EXPECT_EQ(h.freeBytes(), 0u);
  EXPECT_EQ(shadow.verifyAll(), "");
  EXPECT_EQ(h.checkInvariants(), "");
}

// The estranged heap's buddy-free pairs are joinable without moving anything.
TEST(BuddyDefragEstranged, FreePairsAreGluedWithoutMoves) {
  testing::CheckedHeap<EstrangedPolicy> h(256);
  std::vector<void*> all;
  while (void* p = h.malloc(16)) all.push_back(p);
  for (void* p : all) h.free(p);
  EXPECT_EQ(h.malloc(256), nullptr);  // step (5) alone glues one pair per level
  BuddyShadow shadow;
  h.setRelocator(&BuddyShadow::relocate, &shadow);
  void* whole = h.malloc(256);
  ASSERT_NE(whole, nullptr);
  EXPECT_EQ(h.lastOutcome(), Outcome::glue);  // built by the defragmenter, but nothing moved
  EXPECT_EQ(h.defragMoves(), 0u);
  EXPECT_EQ(h.layout(), "256*");
  EXPECT_EQ(defragBounds(h, 4, 0, 0, 16), "");
  h.free(whole);
  EXPECT_EQ(h.checkInvariants(), "");
}

// Exhaustive: with a relocator, a request fails only when the free bytes are too
// few; every request stays within the move bound; every move is seen.
TYPED_TEST(BuddyDefrag, EverySequenceOfSixOperationsServesWhateverFits) {
  std::string fault;
  const std::size_t sequences = testing::forEverySequence<TypeParam>(
      128, {16, 32, 64, 128}, 6,
      [](TypeParam& h, BuddyShadow& shadow) { h.setRelocator(&BuddyShadow::relocate, &shadow); },
      [](TypeParam& h, const BuddyShadow& shadow, const testing::SequenceOp& op) -> std::string {
        if (h.freeBytes() != 128 - shadow.liveBytes()) return "freeBytes() disagrees with the live blocks";
        if (shadow.moves().size() != h.defragMoves()) return "a move was not reported";
        if (!op.wasMalloc) return {};
        const std::size_t block = op.size < 16 ? 16 : std::bit_ceil(op.size);
        if ((op.result != nullptr) != (op.freeBytesBefore >= block))
          return std::string("malloc ") + (op.result ? "succeeded" : "failed") + " with " +
                 std::to_string(op.freeBytesBefore) + " bytes free";
        const unsigned k = BuddyBlockTable::levelFor(op.size);
        std::size_t bytes = 0;
        for (std::size_t i = op.movesBefore; i < shadow.moves().size(); ++i) bytes += shadow.moves()[i].size;
        if (h.lastOutcome() == Outcome::defrag && bytes == 0) return "defrag without a live block moved";
        return defragBounds(h, k, shadow.moves().size() - op.movesBefore, bytes, 8);
      },
      fault);
  EXPECT_EQ(fault, "");
  EXPECT_GT(sequences, 5'000u);
}

// The same on an arena of three maximal blocks (64 | 32 | 16): blocks of the small
// maximal blocks serve as targets of moves but never join across them.
TYPED_TEST(BuddyDefrag, EverySequenceOnANonPowerOfTwoArena) {
  std::string fault;
  const std::size_t sequences = testing::forEverySequence<TypeParam>(
      112, {16, 32, 64}, 6,
      [](TypeParam& h, BuddyShadow& shadow) { h.setRelocator(&BuddyShadow::relocate, &shadow); },
      [](TypeParam& h, const BuddyShadow& shadow, const testing::SequenceOp& op) -> std::string {
        if (h.freeBytes() != 112 - shadow.liveBytes()) return "freeBytes() disagrees with the live blocks";
        if (!op.wasMalloc) return {};
        const std::size_t block = op.size < 16 ? 16 : std::bit_ceil(op.size);
        if ((op.result != nullptr) != (op.freeBytesBefore >= block))
          return std::string("malloc ") + (op.result ? "succeeded" : "failed") + " with " +
                 std::to_string(op.freeBytesBefore) + " bytes free";
        return {};
      },
      fault);
  EXPECT_EQ(fault, "");
  EXPECT_GT(sequences, 5'000u);
}

// Random runs on a small, crowded heap: the defragmenter's moves are followed by
// the test's own shadow, contents are checked, and every malloc is checked
// against its step and move bounds. With a relocator a request fails only when
// the free bytes are too few.
TYPED_TEST(BuddyDefrag, RandomRunsWithinTheBoundsAndLoseNothing) {
  constexpr std::size_t kBytes = 256 * 1024;
  for (auto mix : {SizeMix::fragmenting, SizeMix::jvmLike}) {
    TypeParam h(kBytes);
    const unsigned L = h.topLevel();
    BuddyShadow shadow;
    h.setRelocator(&BuddyShadow::relocate, &shadow);
    std::size_t defrags = 0, movesBefore = 0, bytesBefore = 0, worstMoves = 0, freeBlocks = 0;
    auto r = testing::runBoundedRandom(
        h, shadow,
        {.seed = 3, .operations = 60'000, .mix = mix, .maxLive = 700, .checkEvery = 97,
         .beforeMalloc = [&] { freeBlocks = freeBlockCount(h); }},
        [](unsigned) { return SIZE_MAX; },  // checked by defragBounds, the search apart
        TypeParam::freeStepBound(L),
        [&](std::size_t size, void* p) -> std::string {
          const unsigned k = BuddyBlockTable::levelFor(size);
          const std::size_t moves = h.defragMoves() - movesBefore;
          const std::size_t bytes = h.defragBytesMoved() - bytesBefore;
          movesBefore = h.defragMoves();
          bytesBefore = h.defragBytesMoved();
          worstMoves = std::max(worstMoves, moves);
          defrags += h.lastOutcome() == Outcome::defrag;
          if (h.lastOutcome() == Outcome::defrag && moves == 0) return "defrag without a live block moved";
          if (std::string bad = defragBounds(h, k, moves, bytes, freeBlocks); !bad.empty()) return bad;
          if (shadow.moves().size() != h.defragMoves()) return "a move was not reported";
          if (!p && k <= L && h.freeBytes() >= BuddyBlockTable::blockBytes(k))
            return "failed with " + std::to_string(h.freeBytes()) + " bytes free";
          return {};
        });
    EXPECT_EQ(r.error, "");
    EXPECT_GT(defrags, 100u) << "the workload should make the defragmenter work";
    EXPECT_GT(worstMoves, 10u) << "some requests should move many blocks";
    EXPECT_GT(r.mallocs, 10'000u);
    EXPECT_EQ(h.freeBytes(), kBytes);
    EXPECT_EQ(h.checkInvariants(), "");
  }
}

// The same workload without a relocator: defragmentation never runs and nothing moves.
TYPED_TEST(BuddyDefrag, WithoutARelocatorNothingEverMoves) {
  TypeParam h(256 * 1024);
  const unsigned L = h.topLevel();
  BuddyShadow shadow;
  auto r = testing::runBoundedRandom(
      h, shadow, {.seed = 3, .operations = 60'000, .mix = SizeMix::fragmenting, .maxLive = 500, .checkEvery = 997},
      [&](unsigned k) { return TypeParam::mallocStepBound(k, L); }, TypeParam::freeStepBound(L),
      [&](std::size_t, void*) {
        return h.lastOutcome() == Outcome::defrag ? std::string("defragmented") : std::string();
      });
  EXPECT_EQ(r.error, "");
  EXPECT_GT(r.failures, 0u);
  EXPECT_EQ(h.defragMoves(), 0u);
  EXPECT_TRUE(shadow.moves().empty());
}

TEST(BuddyDefragBounds, FormulasInTheRequestLevel) {
  // Bytes: at most k 2^(k-1) granules, so at most that many moves (s log2(s) / 2
  // granules for a request of s = 2^k).
  EXPECT_EQ(KnuthPolicy::defragMoveBound(0), 0u);
  EXPECT_EQ(KnuthPolicy::defragMoveBound(1), 1u);
  EXPECT_EQ(KnuthPolicy::defragMoveBound(2), 4u);
  EXPECT_EQ(KnuthPolicy::defragMoveBound(3), 12u);
  EXPECT_EQ(KnuthPolicy::defragMoveBound(4), 32u);
  EXPECT_EQ(EstrangedPolicy::defragBytesBound(4), 32u * 16);
  // Steps besides the search: k + (k + 2)(2^k + moves) + moves (1 + the largest malloc bound).
  EXPECT_EQ(KnuthPolicy::defragStepBound(3, 10), 3u + 5 * (8 + 12) + 12 * (1 + 21));
  EXPECT_EQ(EstrangedPolicy::defragStepBound(3, 10), 3u + 5 * (8 + 12) + 12 * (1 + 33));
}

}  // namespace
}  // namespace kith::heap
