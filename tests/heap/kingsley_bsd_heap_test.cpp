// KingsleyBsdHeap: the hand-written Kingsley allocator, the `kingsley-bsd`
// reference. It must give the very blocks the `kingsley` composition gives (it is
// what the composition is measured against), reserve its arena without touching it,
// and check its own structure. Its registration as a reference: policy_references_test;
// through makeHeap it runs the shadow model with every policy (policy_random_test).
#include "heap/classic/kingsley_bsd_heap.h"

#include <gtest/gtest.h>
#include <sys/mman.h>
#include <unistd.h>

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "heap/policies.h"
#include "heap/workload.h"
#include "tests/heap/shadow_model.h"

namespace kith::heap {
namespace {

static_assert(SizedHeap<KingsleyBsdHeap>);

std::size_t offsetIn(const void* p, const std::byte* base) {
  return static_cast<std::size_t>(static_cast<const std::byte*>(p) - base);
}

// Same sequence, same blocks: every malloc answers the same arena offset and size
// as the composition's, so the two differ in their code alone.
TEST(KingsleyBsdHeap, GivesTheSameBlocksAsTheKingsleyComposition) {
  for (auto mix : {SizeMix::jvmLike, SizeMix::fragmenting}) {
    KingsleyBsdHeap bsd(16 << 20);
    KingsleyPolicy composed(16 << 20);
    std::vector<void*> bsdSlots(4000), composedSlots(4000);
    for (const WorkloadStep& s : makeWorkload(mix, 9, 100'000, 4000)) {
      if (s.size == 0) {
        bsd.free(bsdSlots[s.slot]);
        composed.free(composedSlots[s.slot]);
        continue;
      }
      bsdSlots[s.slot] = bsd.malloc(s.size);
      composedSlots[s.slot] = composed.malloc(s.size);
      ASSERT_NE(bsdSlots[s.slot], nullptr);
      ASSERT_EQ(offsetIn(bsdSlots[s.slot], bsd.arenaBase()), offsetIn(composedSlots[s.slot], composed.arenaBase()));
      ASSERT_EQ(bsd.getSize(bsdSlots[s.slot]), composed.getSize(composedSlots[s.slot]));
    }
    EXPECT_EQ(bsd.remaining(), composed.remaining());
    EXPECT_EQ(bsd.freeBytes(), composed.freeBytes());
    EXPECT_EQ(bsd.largestFreeBlock(), composed.largestFreeBlock());
    EXPECT_EQ(bsd.checkInvariants(), "");
  }
}

// Pages of [base, base + bytes) in memory now.
std::size_t residentPages(const std::byte* base, std::size_t bytes) {
  const std::size_t page = static_cast<std::size_t>(::sysconf(_SC_PAGESIZE));
  std::vector<unsigned char> in((bytes + page - 1) / page);
  if (::mincore(const_cast<std::byte*>(base), bytes, in.data()) != 0) return SIZE_MAX;
  std::size_t n = 0;
  for (unsigned char c : in) n += c & 1;
  return n;
}

// The arena is reserved, not populated: what a program touches becomes resident,
// as under glibc (the preloaded malloc's memory consumption depends on it).
// Built under ArenaPretouch (heap_bench, --pretouch), it is populated up front.
TEST(KingsleyBsdHeap, ReservesItsArenaAndPopulatesItOnlyWhenAskedTo) {
  const std::size_t bytes = 64u << 20;
  KingsleyBsdHeap lazy(bytes);
  EXPECT_EQ(lazy.arenaSize(), bytes);
  EXPECT_EQ(residentPages(lazy.arenaBase(), bytes), 0u);
  void* p = lazy.malloc(100);
  *static_cast<char*>(p) = 1;
  const std::size_t page = static_cast<std::size_t>(::sysconf(_SC_PAGESIZE));
  EXPECT_GE(residentPages(lazy.arenaBase(), bytes), 1u);
  EXPECT_LE(residentPages(lazy.arenaBase(), bytes), (2u << 20) / page);  // one page, or a huge page

  auto populated = makeHeapPretouched<KingsleyBsdHeap>(true, bytes);
  EXPECT_EQ(residentPages(populated->arenaBase(), bytes), bytes / page);
  EXPECT_FALSE(ArenaPretouch::now());  // only while it was built
}

TEST(KingsleyBsdHeap, PretouchHoldsForTheHeapsBuiltInItsScope) {
  const std::size_t bytes = 4u << 20;
  const std::size_t page = static_cast<std::size_t>(::sysconf(_SC_PAGESIZE));
  {
    ArenaPretouch outer(true);
    {
      ArenaPretouch inner(false);
      KingsleyBsdHeap lazy(bytes);
      EXPECT_EQ(residentPages(lazy.arenaBase(), bytes), 0u);
    }
    KingsleyBsdHeap populated(bytes);
    EXPECT_EQ(residentPages(populated.arenaBase(), bytes), bytes / page);
  }
  KingsleyBsdHeap afterwards(bytes);
  EXPECT_EQ(residentPages(afterwards.arenaBase(), bytes), 0u);
}

TEST(KingsleyBsdHeap, EdgeSizes) {
  KingsleyBsdHeap h(4096);
  EXPECT_EQ(h.getSize(h.malloc(0)), 16u);
  EXPECT_EQ(h.getSize(h.malloc(17)), 32u);
  EXPECT_EQ(h.malloc(SIZE_MAX), nullptr);
  EXPECT_EQ(h.malloc((std::size_t{1} << 62) + 1), nullptr);
  EXPECT_EQ(h.malloc(std::size_t{1} << 62), nullptr);  // its class fits no arena
  EXPECT_EQ(h.malloc(4096), nullptr);                  // the arena size: its bucket plus header do not fit
  EXPECT_NE(h.malloc(2048), nullptr);
  h.free(nullptr);
  EXPECT_EQ(h.checkInvariants(), "");
  KingsleyBsdHeap empty(0);
  EXPECT_EQ(empty.malloc(1), nullptr);
  EXPECT_EQ(empty.checkInvariants(), "");
}

// The checker walks the region and the buckets: each of these is caught.
TEST(KingsleyBsdHeap, CheckInvariantsCatchesADoubleFreeAForeignLinkAndADamagedHeader) {
  {
    KingsleyBsdHeap h(1 << 16);
    void* a = h.malloc(40);
    h.malloc(40);
    h.free(a);
    ASSERT_EQ(h.checkInvariants(), "");
    h.free(a);  // the bucket's list now loops through a
    EXPECT_NE(h.checkInvariants().find("listed twice"), std::string::npos) << h.checkInvariants();
  }
  {
    KingsleyBsdHeap h(1 << 16);
    void* a = h.malloc(40);
    h.malloc(40);
    h.free(a);
    std::uint64_t elsewhere[4] = {};
    *static_cast<void**>(a) = &elsewhere[2];  // a's link overwritten (a use after free)
    EXPECT_NE(h.checkInvariants().find("bucket 2 (64 B): holds an address that is no block"), std::string::npos)
        << h.checkInvariants();
  }
  {
    KingsleyBsdHeap h(1 << 16);
    void* a = h.malloc(40);
    h.malloc(40);
    *reinterpret_cast<std::size_t*>(static_cast<std::byte*>(a) - 16) = 40;  // a bucket far bigger than the region
    EXPECT_NE(h.checkInvariants().find("has bucket 40"), std::string::npos) << h.checkInvariants();
  }
  {
    KingsleyBsdHeap h(1 << 16);
    void* a = h.malloc(40);  // bucket 2, 64 B
    void* b = h.malloc(40);
    h.malloc(100);
    h.free(b);
    *reinterpret_cast<std::size_t*>(static_cast<std::byte*>(a) - 16) = 3;  // a claims 128 B: b is no block now
    EXPECT_NE(h.checkInvariants(), "");
  }
}

TEST(KingsleyBsdHeap, ShadowModel) {
  for (auto mix : {testing::SizeMix::jvmLike, testing::SizeMix::fragmenting}) {
    KingsleyBsdHeap heap(32u << 20);
    auto r = testing::runShadowModel(heap, {.seed = 17, .operations = 200'000, .mix = mix, .checkEvery = 5'000},
                                     [&] { return heap.checkInvariants(); });
    EXPECT_EQ(r.error, "");
    EXPECT_EQ(r.failures, 0u);
    EXPECT_EQ(r.mallocs, r.frees);
  }
}

}  // namespace
}  // namespace kith::heap
