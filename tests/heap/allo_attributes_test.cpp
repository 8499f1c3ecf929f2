// Allotheque attributes (heap/allotheque/allo_attributes.h): implicit ones computed from the
// address relative to the arena, the explicit size from the page table.
#include <gtest/gtest.h>

#include <vector>

#include "heap/allotheque/allo_attributes.h"

namespace kith::heap::allotheque {
namespace {

static_assert(Attribute<KBit<16>> && Attribute<SKBit<12, 4>> && Attribute<Size> && Attribute<SegregatedSize>);
static_assert(KBit<16>::kImplicit && Page::kImplicit && CacheLine::kImplicit && !Size::kImplicit);

struct Arena {
  std::vector<std::byte> bytes = std::vector<std::byte>(1 << 20);
  Context ctx{bytes.data(), bytes.size()};
};

TEST(AlloAttributes, ImplicitAttributesComeFromTheAddress) {
  Arena a;
  std::byte* b = a.ctx.base();
  EXPECT_EQ(Page::read(b, a.ctx), 0u);
  EXPECT_EQ(Page::read(b + 4095, a.ctx), 0u);
  EXPECT_EQ(Page::read(b + 4096, a.ctx), 1u);
  EXPECT_EQ(CacheLine::read(b + 130, a.ctx), 2u);
  EXPECT_EQ(KBit<16>::read(b + 3 * 65536 + 5, a.ctx), 3u);
  EXPECT_EQ(KBit<16>::classes(a.ctx), 16u);
  EXPECT_EQ(Page::classes(a.ctx), 256u);
  // SK-bit: pages modulo 2^4 — pages 1 and 17 share a class, 16 pages apart.
  using SK = SKBit<12, 4>;
  EXPECT_EQ(SK::read(b + 4096, a.ctx), 1u);
  EXPECT_EQ(SK::read(b + 17 * 4096, a.ctx), 1u);
  EXPECT_EQ(SK::classes(a.ctx), 16u);
}

TEST(AlloAttributes, RequestTargetsTheHintsClassOrNone) {
  Arena a;
  std::byte* b = a.ctx.base();
  EXPECT_EQ(KBit<16>::target({32, b + 70000}, a.ctx), std::optional<Key>(1));
  EXPECT_EQ(KBit<16>::target({32, nullptr}, a.ctx), std::nullopt);
  int outside = 0;
  EXPECT_EQ(KBit<16>::target({32, &outside}, a.ctx), std::nullopt);
  EXPECT_EQ(Size::target({48, nullptr}, a.ctx), std::optional<Key>(48));
}

TEST(AlloAttributes, SizeIsStoredOncePerPage) {
  Arena a;
  a.ctx.setPageSize(2, 48);
  EXPECT_EQ(Size::read(a.ctx.base() + 2 * 4096 + 96, a.ctx), 48u);
  EXPECT_EQ(Size::read(a.ctx.base() + 3 * 4096, a.ctx), 0u);
}

TEST(AlloAttributes, SegregatedSizeClasses) {
  EXPECT_EQ(SegregatedSize::classOf(1), 0u);
  EXPECT_EQ(SegregatedSize::classOf(16), 0u);
  EXPECT_EQ(SegregatedSize::classOf(17), 1u);
  EXPECT_EQ(SegregatedSize::classOf(128), 7u);
  EXPECT_EQ(SegregatedSize::classOf(129), 8u);
  EXPECT_EQ(SegregatedSize::classOf(256), 8u);
  EXPECT_EQ(SegregatedSize::classOf(257), 9u);
  for (Key k = 0; k < 30; ++k) EXPECT_EQ(SegregatedSize::classOf(SegregatedSize::classSize(k)), k);
}

TEST(AlloAttributes, KCloseMeansSameAlignedRegion) {
  alignas(64) std::byte line[128];
  EXPECT_TRUE(kClose<6>(line, line + 63));
  EXPECT_FALSE(kClose<6>(line, line + 64));
}

}  // namespace
}  // namespace kith::heap::allotheque
