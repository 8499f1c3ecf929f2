// The Allotheque policies (policies.h: velox, medius, defero; allotheque_heap.h):
// rounding, pages from the arena, the hint honoured, and the shadow model of a
// million operations with each one's invariant checker.
#include <gtest/gtest.h>

#include <cstdint>
#include <random>
#include <set>
#include <vector>

#include "heap/policies.h"
#include "tests/heap/policy_test_support.h"

namespace kith::heap {
namespace {

using allotheque::kVeloxShift;

static_assert(SizedHeap<VeloxPolicy> && SizedHeap<MediusPolicy> && SizedHeap<DeferoPolicy>);

template <class P>
class Allotheque : public ::testing::Test {};
using Policies = ::testing::Types<VeloxPolicy, MediusPolicy, DeferoPolicy>;
class Names {
 public:
  template <class T>
  static std::string GetName(int) {
    return std::same_as<T, VeloxPolicy> ? "velox" : std::same_as<T, MediusPolicy> ? "medius" : "defero";
  }
};
TYPED_TEST_SUITE(Allotheque, Policies, Names);

TYPED_TEST(Allotheque, IsRegistered) {
  EXPECT_TRUE(testing::isRegisteredAs<TypeParam>(Names::GetName<TypeParam>(0)));
}

TYPED_TEST(Allotheque, TakesTheArenaAPageAtATime) {
  TypeParam h(1 << 20);
  const std::size_t before = h.remaining();
  void* a = h.malloc(40);
  ASSERT_NE(a, nullptr);
  EXPECT_EQ(h.remaining(), before - 4096);
  EXPECT_GE(h.getSize(a), 40u);
  void* b = h.malloc(40);
  EXPECT_EQ(h.remaining(), before - 4096);  // the same page's next chunk
  EXPECT_EQ(static_cast<std::byte*>(b) - static_cast<std::byte*>(a), static_cast<std::ptrdiff_t>(h.getSize(a)));
  void* big = h.malloc(10000);
  ASSERT_NE(big, nullptr);
  EXPECT_EQ(h.getSize(big) % 4096, 0u);
  EXPECT_EQ(reinterpret_cast<std::uintptr_t>(big) % 4096, 0u);
  EXPECT_EQ(h.checkInvariants(), "");
  h.free(a);
  h.free(b);
  h.free(big);
  EXPECT_EQ(h.checkInvariants(), "");
  EXPECT_EQ(h.freeBytes() + h.tailBytes(), h.arenaSize());
}

TYPED_TEST(Allotheque, EdgeSizes) {
  TypeParam h(1 << 16);
  void* z = h.malloc(0);
  ASSERT_NE(z, nullptr);
  EXPECT_EQ(h.getSize(z), 16u);
  EXPECT_EQ(h.malloc(SIZE_MAX), nullptr);
  EXPECT_EQ(h.malloc((1 << 16) + 1), nullptr);
  h.free(nullptr);
  h.free(z);
  EXPECT_EQ(h.checkInvariants(), "");
  TypeParam tiny(100);  // less than a page: nothing to hand out
  EXPECT_EQ(tiny.malloc(16), nullptr);
}

TYPED_TEST(Allotheque, OutOfMemoryIsNullAndRecovers) {
  TypeParam h(64 << 10);
  std::vector<void*> blocks = testing::mallocUntilFull(h, 48);
  EXPECT_GT(blocks.size(), 1000u);
  EXPECT_EQ(h.checkInvariants(), "");
  for (void* p : blocks) h.free(p);
  EXPECT_EQ(testing::mallocUntilFull(h, 48).size(), blocks.size());  // the same chunks again
}

TYPED_TEST(Allotheque, ShadowModelMillionOperations) {
  TypeParam h(16u << 20);
  auto r = testing::runCheckedShadowModel(h, {.seed = 20261125, .operations = 1'000'000, .checkEvery = 20'000});
  EXPECT_EQ(r.error, "");
  EXPECT_EQ(r.mallocs, r.frees);
  EXPECT_GT(r.mallocs, 400'000u);
  EXPECT_EQ(r.failures, 0u);
  EXPECT_EQ(h.freeBytes() + h.tailBytes(), h.arenaSize());
}

TYPED_TEST(Allotheque, HintedShadowModel) {
  // The same traffic, each malloc hinted with a random live block: a hint never
  // breaks what the shadow model checks.
  TypeParam h(16u << 20);
  struct Hinting {
    TypeParam& h;
    std::vector<void*> recent;
    std::size_t next = 0;
    void* malloc(std::size_t n) {
      void* p = h.malloc(n, recent.empty() ? nullptr : recent[next++ % recent.size()]);
      if (p) {
        if (recent.size() < 64) recent.push_back(p);
        else recent[next % 64] = p;
      }
      return p;
    }
    void free(void* p) {
      std::erase(recent, p);
      h.free(p);
    }
    std::size_t getSize(void* p) { return h.getSize(p); }
    std::byte* arenaBase() const { return h.arenaBase(); }
    std::size_t arenaSize() const { return h.arenaSize(); }
  } hinting{h, {}};
  auto r = testing::runShadowModel(hinting, {.seed = 7, .operations = 300'000, .checkEvery = 10'000},
                                   [&] { return h.checkInvariants(); });
  EXPECT_EQ(r.error, "");
  EXPECT_EQ(r.failures, 0u);
}

// TR §6.1: "The returned chunk is guaranteed to be within 2^(32-K) distance from
// the target" when the target's K-class holds a chunk of the size.
TEST(Velox, ReturnsAKCloseChunkWheneverOneOfTheRightSizeIsFree) {
  VeloxPolicy h(8u << 20);
  std::mt19937 rng(11);
  std::vector<void*> live;
  const std::size_t sizes[] = {16, 32, 48, 64, 96, 160, 512, 3000};
  std::size_t checked = 0;
  for (int i = 0; i < 100'000; ++i) {
    if (live.empty() || rng() % 3) {
      const std::size_t size = sizes[rng() % std::size(sizes)];
      const void* hint = live.empty() ? nullptr : live[rng() % live.size()];
      // Is a free chunk of this size in the hint's K-class? (Scan that class.)
      using K = allotheque::KBit<kVeloxShift>;
      bool closeFree = false;
      const std::size_t rounded = allotheque::ExactSizes::round(size);
      if (hint)
        h.partition().bucket(K::read(hint, h.context())).forEachChunk([&](void* c) {
          if (h.getSize(c) == rounded) closeFree = true;
        });
      void* p = h.malloc(size, hint);
      ASSERT_NE(p, nullptr);
      if (closeFree) {
        ++checked;
        ASSERT_EQ(K::read(p, h.context()), K::read(hint, h.context())) << i;
      }
      live.push_back(p);
      if (i % 20'000 == 0) {
        ASSERT_EQ(h.checkInvariants(), "");
      }
    } else {
      std::size_t k = rng() % live.size();
      h.free(live[k]);
      live[k] = live.back();
      live.pop_back();
    }
    if (live.size() > 3000) {  // swing down
      for (std::size_t k = 0; k < 1500; ++k) {
        std::size_t j = rng() % live.size();
        h.free(live[j]);
        live[j] = live.back();
        live.pop_back();
      }
    }
  }
  EXPECT_GT(checked, 5'000u);
  EXPECT_EQ(h.checkInvariants(), "");
}

TEST(Defero, RoundsToSegregatedClassesAndPrefersTheHintsPage) {
  DeferoPolicy h(1 << 20);
  EXPECT_EQ(h.getSize(h.malloc(17)), 32u);
  EXPECT_EQ(h.getSize(h.malloc(129)), 256u);
  EXPECT_EQ(h.getSize(h.malloc(5000)), 8192u);
  void* a = h.malloc(64);
  std::vector<void*> fill;
  for (int i = 0; i < 200; ++i) fill.push_back(h.malloc(64));  // into a second page and beyond
  void* far = fill.back();
  ASSERT_FALSE(allotheque::kClose<12>(a, far));
  h.free(fill[0]);  // a free chunk on a's page (or the next)
  void* near = h.malloc(64, fill[0]);
  EXPECT_EQ(near, fill[0]);
  EXPECT_EQ(h.checkInvariants(), "");
}

}  // namespace
}  // namespace kith::heap
