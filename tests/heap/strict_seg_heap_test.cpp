#include "heap/layers/strict_seg_heap.h"

#include <gtest/gtest.h>

#include <cstddef>
#include <cstdint>
#include <vector>

#include "heap/layers/fixed_arena.h"
#include "heap/layers/freelist_heap.h"
#include "heap/layers/null_heap.h"
#include "heap/layers/size_classes.h"
#include "heap/layers/size_class_heap.h"
#include "heap/layers/size_heap.h"
#include "heap/workload.h"
#include "tests/heap/counting_heap.h"

namespace kith::heap {
namespace {

// Four classes: 16, 32, 64, 128 bytes; anything bigger goes to Super.
using Strict4 = StrictSegHeap<4, pow2SizeClass, pow2ClassMaxSize, FreelistHeap<NullHeap>,
                              SizeHeap<FixedArena>>;

// --- the power-of-two size classes -------------------------------------------

static_assert(pow2SizeClass(0) == 0 && pow2SizeClass(1) == 0 && pow2SizeClass(16) == 0);
static_assert(pow2SizeClass(17) == 1 && pow2SizeClass(32) == 1 && pow2SizeClass(33) == 2);
static_assert(pow2ClassMaxSize(0) == 16 && pow2ClassMaxSize(1) == 32 && pow2ClassMaxSize(5) == 512);
static_assert(kPow2ClassCount == 60 && pow2ClassMaxSize(kPow2ClassCount - 1) == std::size_t{1} << 63);
static_assert(pow2SizeClass(SIZE_MAX) == kPow2ClassCount);  // beyond every class

TEST(Pow2SizeClasses, EachSizeMapsToTheSmallestClassThatHoldsIt) {
  for (std::size_t size = 1; size <= (1u << 20); size += (size < 4096 ? 1 : 4093)) {
    int c = pow2SizeClass(size);
    EXPECT_GE(pow2ClassMaxSize(c), size) << size;
    if (c > 0) {
      EXPECT_LT(pow2ClassMaxSize(c - 1), size) << size;
    }
  }
  for (int c = 0; c < kPow2ClassCount; ++c) {
    EXPECT_EQ(pow2SizeClass(pow2ClassMaxSize(c)), c);
    EXPECT_EQ(pow2SizeClass(pow2ClassMaxSize(c) + 1), c + 1);
  }
}

// --- StrictSegHeap -----------------------------------------------------------

TEST(StrictSegHeap, RoundsEachRequestUpToItsClass) {
  Strict4 heap(1 << 16);
  EXPECT_EQ(heap.getSize(heap.malloc(1)), 16u);
  EXPECT_EQ(heap.getSize(heap.malloc(17)), 32u);
  EXPECT_EQ(heap.getSize(heap.malloc(33)), 64u);
  EXPECT_EQ(heap.getSize(heap.malloc(100)), 128u);
  EXPECT_EQ(heap.getSize(heap.malloc(129)), 144u);  // above the classes: Super's own rounding
  EXPECT_EQ(heap.checkInvariants(), "");
}

TEST(StrictSegHeap, ReusesAFreedBlockOnlyForItsOwnClass) {
  Strict4 heap(1 << 16);
  void* p32 = heap.malloc(30);
  void* p64 = heap.malloc(60);
  heap.free(p32);
  heap.free(p64);
  std::size_t before = heap.remaining();
  EXPECT_EQ(heap.malloc(20), p32);  // same class (32): reused, nothing carved
  EXPECT_EQ(heap.remaining(), before);
  void* small = heap.malloc(8);  // class 16: the cached 64 is not split or borrowed
  EXPECT_NE(small, p64);
  EXPECT_EQ(heap.remaining(), before - 32);  // a fresh 16 + header from the arena
  EXPECT_EQ(heap.malloc(64), p64);
  EXPECT_EQ(heap.checkInvariants(), "");
}

TEST(StrictSegHeap, BinsGetFreshBlocksFromTheOneArena) {
  Strict4 heap(4096);
  for (std::size_t size : {1u, 20u, 40u, 100u, 500u}) {
    void* p = heap.malloc(size);
    ASSERT_NE(p, nullptr);
    EXPECT_TRUE(heap.arenaContains(p));
    EXPECT_TRUE(isAligned(p));
  }
  // 16+16, 16+32, 16+64, 16+128, 16+512 bytes carved from the single arena.
  EXPECT_EQ(heap.remaining(), 4096u - (32 + 48 + 80 + 144 + 528));
}

// Four bins over Super: a block above the last bin's class goes straight back to
// Super, a smaller one is cached and handed out again. Super records the size
// (SizeHeap) or the class (SizeClassHeap); either way free finds the same bin.
template <class Recording>
void expectBigBlocksGoBackToSuper() {
  testing::CountingLog log;
  StrictSegHeap<4, pow2SizeClass, pow2ClassMaxSize, FreelistHeap<NullHeap>, Recording> heap(log);
  void* big = heap.malloc(1000);
  void* small = heap.malloc(100);
  EXPECT_EQ(log.mallocs, 2u);
  heap.free(big);
  EXPECT_EQ(log.frees, 1u);  // straight to Super
  heap.free(small);
  EXPECT_EQ(log.frees, 1u);  // cached in its bin
  EXPECT_EQ(heap.malloc(128), small);
  heap.free(small);
  EXPECT_EQ(log.badFrees, 0u);
}

TEST(StrictSegHeap, BigBlocksGoBackToSuper) { expectBigBlocksGoBackToSuper<SizeHeap<testing::CountingHeap>>(); }

// Classes that are not multiples of 16: SizeHeap rounds a 24-byte class block to
// 32, which is between the classes 24 and 40, so free must file it under 24.
constexpr int oddClass(std::size_t size) { return size <= 24 ? 0 : size <= 40 ? 1 : 2; }
constexpr std::size_t oddClassMax(int c) { return c == 0 ? 24 : 40; }

TEST(StrictSegHeap, FilesABlockBetweenTwoClassesUnderTheSmaller) {
  StrictSegHeap<2, oddClass, oddClassMax, FreelistHeap<NullHeap>, SizeHeap<FixedArena>> heap(4096);
  void* p = heap.malloc(20);
  ASSERT_EQ(heap.getSize(p), 32u);
  heap.free(p);
  EXPECT_NE(heap.malloc(40), p);  // 32 bytes cannot hold a 40-byte request
  EXPECT_EQ(heap.malloc(24), p);
  EXPECT_EQ(heap.checkInvariants(), "");
}

TEST(StrictSegHeap, InvariantCheckCatchesADoubleFree) {
  Strict4 heap(4096);
  void* p = heap.malloc(64);
  heap.free(p);
  EXPECT_EQ(heap.checkInvariants(), "");
  heap.free(p);
  EXPECT_NE(heap.checkInvariants().find("loops"), std::string::npos);
  // The looping list is left as it is: the bins drop their blocks unread when destroyed.
}

TEST(StrictSegHeap, IsDestroyedHoldingBlocksInEveryBin) {
  // The bins, its first base, are destroyed after Super has unmapped the arena.
  for (int round = 0; round < 2; ++round) {
    Strict4 heap(4096);
    std::vector<void*> blocks;
    for (std::size_t size : {16u, 32u, 64u, 128u, 100u, 1u}) blocks.push_back(heap.malloc(size));
    for (void* p : blocks) heap.free(p);
    EXPECT_EQ(heap.checkInvariants(), "");
  }
}

TEST(StrictSegHeap, OutOfMemoryPropagatesAsNullAndFreedBlocksStillServe) {
  Strict4 heap(1024);
  std::vector<void*> blocks;
  while (void* p = heap.malloc(64)) blocks.push_back(p);
  EXPECT_EQ(blocks.size(), 12u);  // 12 * (16 header + 64) = 960
  EXPECT_EQ(heap.remaining(), 64u);
  EXPECT_NE(heap.malloc(1), nullptr);  // the tail still serves the 16-byte class
  EXPECT_NE(heap.malloc(1), nullptr);
  EXPECT_EQ(heap.remaining(), 0u);
  EXPECT_EQ(heap.malloc(1), nullptr);    // every class fails: one arena, all used
  EXPECT_EQ(heap.malloc(500), nullptr);  // and so does Super
  heap.free(blocks[3]);
  EXPECT_EQ(heap.malloc(16), nullptr);  // no cross-class reuse
  EXPECT_EQ(heap.malloc(50), blocks[3]);
  EXPECT_EQ(heap.checkInvariants(), "");
}

TEST(StrictSegHeap, EdgeSizes) {
  Strict4 heap(4096);
  void* zero = heap.malloc(0);
  ASSERT_NE(zero, nullptr);
  EXPECT_EQ(heap.getSize(zero), 16u);
  EXPECT_EQ(heap.getSize(heap.malloc(16)), 16u);
  EXPECT_EQ(heap.malloc(SIZE_MAX), nullptr);
  EXPECT_EQ(heap.malloc(SIZE_MAX - 15), nullptr);
  EXPECT_EQ(heap.malloc(std::size_t{1} << 40), nullptr);
  EXPECT_EQ(heap.malloc(4096), nullptr);  // the arena size: no room for the header
  heap.free(nullptr);

  // With every power-of-two class, a huge request still fails cleanly.
  StrictSegHeap<kPow2ClassCount, pow2SizeClass, pow2ClassMaxSize, FreelistHeap<NullHeap>,
                SizeHeap<FixedArena>> all(4096);
  EXPECT_EQ(all.malloc(std::size_t{1} << 63), nullptr);        // the last class
  EXPECT_EQ(all.malloc((std::size_t{1} << 63) + 1), nullptr);  // beyond it: Super
  EXPECT_EQ(all.malloc(SIZE_MAX), nullptr);
  EXPECT_NE(all.malloc(1), nullptr);
}

// --- over a layer that records the class (SizeClassHeap) ------------------------

template <class Super>
using Pow2ClassHeap = SizeClassHeap<kPow2ClassCount, pow2SizeClass, pow2ClassMaxSize, Super>;
// Every size a class (Kingsley's): SizeClassHeap rounds any request it gets to its
// class, so with fewer bins the big blocks Super serves directly would differ.
using AllClassesBySize = StrictSegHeap<kPow2ClassCount, pow2SizeClass, pow2ClassMaxSize,
                                       FreelistHeap<NullHeap>, SizeHeap<FixedArena>>;
using AllClassesByClass = StrictSegHeap<kPow2ClassCount, pow2SizeClass, pow2ClassMaxSize,
                                        FreelistHeap<NullHeap>, Pow2ClassHeap<FixedArena>>;

// Counts getSize calls: free must file a block by its recorded class, not its size.
class SizeCountingClassHeap : public Pow2ClassHeap<FixedArena> {
 public:
  using Pow2ClassHeap<FixedArena>::Pow2ClassHeap;
  std::size_t getSize(void* ptr) const {
    ++getSizeCalls;
    return Pow2ClassHeap<FixedArena>::getSize(ptr);
  }
  mutable std::size_t getSizeCalls = 0;
};

TEST(StrictSegHeap, FreeFilesABlockByTheClassSuperRecorded) {
  StrictSegHeap<4, pow2SizeClass, pow2ClassMaxSize, FreelistHeap<NullHeap>, SizeCountingClassHeap> heap(4096);
  void* a = heap.malloc(20);
  void* b = heap.malloc(100);
  heap.free(a);
  heap.free(b);
  EXPECT_EQ(heap.getSizeCalls, 0u);
  EXPECT_EQ(heap.malloc(128), b);
  EXPECT_EQ(heap.malloc(32), a);
  EXPECT_EQ(heap.checkInvariants(), "");
}

// Fewer bins than Super's classes: a block of a class with no bin goes back to Super.
TEST(StrictSegHeap, BigBlocksGoBackToSuperByTheirRecordedClass) {
  expectBigBlocksGoBackToSuper<Pow2ClassHeap<testing::CountingHeap>>();
}

// The recorded class changes how free finds the bin, not which blocks are chosen:
// both compositions hand out the same offsets at every step of a random sequence,
// and the free space counted by walking the bins matches a shadow count of the
// blocks cached in each class.
TEST(StrictSegHeap, RecordingTheClassChoosesTheSameBlocksAsRecordingTheSize) {
  for (SizeMix mix : {SizeMix::jvmLike, SizeMix::fragmenting}) {
    AllClassesBySize bySize(1 << 20);
    AllClassesByClass byClass(1 << 20);
    std::vector<void*> sizeSlots(300), classSlots(300);
    std::size_t cached[kPow2ClassCount] = {};
    std::size_t step = 0;
    for (const WorkloadStep& s : makeWorkload(mix, 7, 3000, 300)) {
      if (s.size) {
        sizeSlots[s.slot] = bySize.malloc(s.size);
        std::size_t before = byClass.remaining();
        classSlots[s.slot] = byClass.malloc(s.size);
        int c = pow2SizeClass(s.size);
        if (byClass.remaining() == before) --cached[c];  // reused from its bin
        ASSERT_NE(sizeSlots[s.slot], nullptr);
        ASSERT_EQ(static_cast<std::byte*>(classSlots[s.slot]) - byClass.arenaBase(),
                  static_cast<std::byte*>(sizeSlots[s.slot]) - bySize.arenaBase())
            << "step " << step;
        ASSERT_EQ(byClass.getSize(classSlots[s.slot]), bySize.getSize(sizeSlots[s.slot]));
      } else {
        ++cached[byClass.sizeClassOf(classSlots[s.slot])];
        bySize.free(sizeSlots[s.slot]);
        byClass.free(classSlots[s.slot]);
      }
      if (++step % 97 == 0) {
        std::size_t expected = byClass.remaining();
        for (int c = 0; c < kPow2ClassCount; ++c) expected += cached[c] * pow2ClassMaxSize(c);
        ASSERT_EQ(byClass.freeBytes(), expected) << "step " << step;
        ASSERT_EQ(byClass.freeBytes(), bySize.freeBytes()) << "step " << step;
        ASSERT_EQ(byClass.largestFreeBlock(), bySize.largestFreeBlock()) << "step " << step;
        ASSERT_EQ(byClass.checkInvariants(), "");
      }
    }
  }
}

}  // namespace
}  // namespace kith::heap
