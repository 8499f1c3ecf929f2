#include "heap/layers/fixed_arena.h"

#include <gtest/gtest.h>

namespace kith::heap {
namespace {

TEST(FixedArena, CarvesAlignedBlocksUntilFullThenReturnsNull) {
  FixedArena arena(256);
  EXPECT_EQ(arena.arenaSize(), 256u);
  void* a = arena.malloc(1);
  void* b = arena.malloc(17);
  ASSERT_NE(a, nullptr);
  ASSERT_NE(b, nullptr);
  EXPECT_TRUE(isAligned(a));
  EXPECT_TRUE(isAligned(b));
  EXPECT_EQ(static_cast<std::byte*>(b) - static_cast<std::byte*>(a), 16);  // minimum block
  EXPECT_EQ(arena.remaining(), 256u - 16 - 32);
  EXPECT_EQ(arena.malloc(arena.remaining() + 1), nullptr);
  EXPECT_NE(arena.malloc(arena.remaining()), nullptr);
  EXPECT_EQ(arena.malloc(1), nullptr);  // full: null, never grows
  EXPECT_TRUE(arena.arenaContains(a));
  EXPECT_FALSE(arena.arenaContains(arena.arenaBase() + 256));
}

TEST(FixedArena, HugeRequestsFailInsteadOfOverflowing) {
  FixedArena arena(4096);
  EXPECT_EQ(arena.malloc(SIZE_MAX), nullptr);
  EXPECT_EQ(arena.malloc(SIZE_MAX - 8), nullptr);
  EXPECT_NE(arena.malloc(0), nullptr);
}

TEST(FixedArena, TakesBackOnlyItsNewestBlock) {
  FixedArena arena(256);
  void* a = arena.malloc(100);  // 112 bytes
  void* b = arena.malloc(1);    // 16
  ASSERT_NE(b, nullptr);
  EXPECT_FALSE(arena.takeBack(a, 100));  // not the newest: stays used
  EXPECT_FALSE(arena.takeBack(b, 17));   // the wrong size
  EXPECT_FALSE(arena.takeBack(nullptr, 0));
  EXPECT_FALSE(arena.takeBack(arena.arenaBase() + 200, 16));  // never handed out
  EXPECT_EQ(arena.remaining(), 256u - 128);
  EXPECT_TRUE(arena.takeBack(b, 1));
  EXPECT_EQ(arena.remaining(), 256u - 112);
  EXPECT_TRUE(arena.takeBack(a, 100));  // now the newest
  EXPECT_EQ(arena.remaining(), 256u);
  EXPECT_EQ(arena.malloc(256), arena.arenaBase());  // all of it again
  EXPECT_FALSE(arena.takeBack(arena.arenaBase(), SIZE_MAX));
}

TEST(FixedArena, SizeIsRoundedDownToAlignment) {
  FixedArena arena(100);
  EXPECT_EQ(arena.arenaSize(), 96u);
}

}  // namespace
}  // namespace kith::heap
