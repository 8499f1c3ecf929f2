// Tests of the harness itself: it must catch the faults it exists to catch.
#include "tests/heap/shadow_model.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <unordered_set>

#include "heap/adapters/malloc_heap.h"

namespace kith::heap::testing {
namespace {

TEST(ShadowModel, SystemMallocPasses) {
  MallocHeap heap;
  auto r = runShadowModel(heap, {.seed = 7, .operations = 50'000});
  EXPECT_EQ(r.error, "");
  EXPECT_GT(r.mallocs, 20'000u);
  EXPECT_EQ(r.mallocs, r.frees);
}

// The faulty heaps below make the harness stop early, with blocks still live:
// this base frees whatever is left when the test ends, so leak checks stay clean.
struct OwningMallocHeap : MallocHeap {
  std::unordered_set<void*> owned;
  void* malloc(std::size_t sz) {
    void* p = MallocHeap::malloc(sz);
    owned.insert(p);
    return p;
  }
  void free(void* p) {
    if (owned.erase(p)) MallocHeap::free(p);
  }
  ~OwningMallocHeap() {
    for (void* p : owned) MallocHeap::free(p);
  }
};

// Hands out the same block twice: the overlap check must fire.
struct OverlappingHeap : OwningMallocHeap {
  void* last = nullptr;
  void* malloc(std::size_t sz) {
    if (last && sz <= 16) return last;
    return last = OwningMallocHeap::malloc(sz < 64 ? 64 : sz);
  }
};

TEST(ShadowModel, CatchesOverlap) {
  OverlappingHeap heap;
  auto r = runShadowModel(heap, {.seed = 3, .operations = 10'000});
  EXPECT_NE(r.error.find("overlaps"), std::string::npos) << r.error;
  EXPECT_NE(r.error.find("seed 3"), std::string::npos);
}

// Scribbles on a block after handing it out: the contents check must fire.
struct ScribblingHeap : OwningMallocHeap {
  std::byte* previous = nullptr;
  void* malloc(std::size_t sz) {
    auto* p = static_cast<std::byte*>(OwningMallocHeap::malloc(sz));
    if (previous) previous[0] = std::byte{0};  // fill bytes are odd, never 0
    previous = p;
    return p;
  }
  void free(void* p) {
    if (p == previous) previous = nullptr;
    OwningMallocHeap::free(p);
  }
};

TEST(ShadowModel, CatchesCorruptedContents) {
  ScribblingHeap heap;
  auto r = runShadowModel(heap, {.seed = 5, .operations = 10'000});
  EXPECT_NE(r.error.find("contents"), std::string::npos) << r.error;
}

TEST(ShadowModel, ReportsBrokenInvariant) {
  OwningMallocHeap heap;
  int calls = 0;
  auto r = runShadowModel(heap, {.seed = 1, .operations = 1000, .checkEvery = 100},
                          [&] { return ++calls == 3 ? std::string("list corrupt") : std::string(); });
  EXPECT_NE(r.error.find("list corrupt"), std::string::npos) << r.error;
}

TEST(ShadowModel, SameSeedSameSequence) {
  SeededRandom a(99), b(99);
  for (int i = 0; i < 1000; ++i) ASSERT_EQ(drawSize(a, SizeMix::jvmLike, i), drawSize(b, SizeMix::jvmLike, i));
}

}  // namespace
}  // namespace kith::heap::testing
