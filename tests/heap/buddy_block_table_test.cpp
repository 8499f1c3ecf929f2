#include "heap/buddy/buddy_block_table.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>
#include <memory>

#include "heap/layers/fixed_arena.h"

namespace kith::heap {
namespace {

using Table = BuddyBlockTable;

// The malloc's branch-free first look: ceilLog2(size / 16) on every size a level
// serves, and for 0 or a size no level serves a level whose list is always empty.
TEST(BuddyBlockTable, ListLevelsAreTheLevelsOrAnAlwaysEmptyList) {
  for (unsigned k = 1; k <= Table::kMaxLevel; ++k) {
    const std::size_t top = Table::blockBytes(k);
    EXPECT_EQ(Table::listLevelFor(top), ceilLog2(top) - 4) << top;
    EXPECT_EQ(Table::listLevelFor(top / 2 + 1), k) << top;
    EXPECT_EQ(Table::listLevelFor(top / 2), k - 1) << top;
  }
  EXPECT_EQ(Table::listLevelFor(1), 0u);
  for (std::size_t size : {std::size_t{0}, Table::blockBytes(Table::kMaxLevel) + 1, SIZE_MAX}) {
    EXPECT_GE(Table::listLevelFor(size), Table::kLevels) << size;
    EXPECT_LT(Table::listLevelFor(size), Table::kListLevels) << size;
  }
}

TEST(BuddyBlockTable, LevelsAreCeilLog2OfTheRequestOverSixteen) {
  EXPECT_EQ(Table::levelFor(0), 0u);
  EXPECT_EQ(Table::levelFor(1), 0u);
  EXPECT_EQ(Table::levelFor(16), 0u);
  EXPECT_EQ(Table::levelFor(17), 1u);
  EXPECT_EQ(Table::levelFor(32), 1u);
  EXPECT_EQ(Table::levelFor(33), 2u);
  EXPECT_EQ(Table::levelFor(65536), 12u);
  EXPECT_EQ(Table::levelFor(Table::blockBytes(Table::kMaxLevel)), Table::kMaxLevel);
  EXPECT_EQ(Table::levelFor(Table::blockBytes(Table::kMaxLevel) + 1), Table::kLevels);
  EXPECT_EQ(Table::levelFor(SIZE_MAX), Table::kLevels);
  EXPECT_EQ(Table::blockBytes(0), 16u);
  EXPECT_EQ(Table::blockBytes(31), std::size_t{32} << 30);
  // A buddy is the offset with bit (level + 4) flipped.
  EXPECT_EQ(Table::buddyOf(0, 0), 16u);
  EXPECT_EQ(Table::buddyOf(16, 0), 0u);
  EXPECT_EQ(Table::buddyOf(64, 2), 0u);
  EXPECT_EQ(Table::buddyOf(192, 2), 128u);
}

TEST(BuddyBlockTable, MaximalBlocksOfANonPowerOfTwoArena) {
  FixedArena arena(96 * 1024 + 48);
  auto table = Table::adopt(arena);
  EXPECT_EQ(arena.remaining(), 0u);  // the whole arena, in one allocation
  EXPECT_EQ(table.base(), arena.arenaBase());
  std::vector<std::pair<std::size_t, unsigned>> roots;
  table.forEachRoot([&](std::size_t off, unsigned level) { roots.emplace_back(off, level); });
  const std::vector<std::pair<std::size_t, unsigned>> expected = {
      {0, 12}, {65536, 11}, {98304, 1}, {98336, 0}};
  EXPECT_EQ(roots, expected);
  for (auto [off, level] : roots) EXPECT_TRUE(table.isRoot(off, level));
  EXPECT_FALSE(table.isRoot(0, 11));
  EXPECT_FALSE(table.isRoot(65536, 10));
  EXPECT_FALSE(table.isRoot(98304, 0));
  EXPECT_FALSE(table.isRoot(98336, 1));
  EXPECT_EQ(table.topLevel(), 12u);
  EXPECT_EQ(table.freeBytes(), 96u * 1024 + 48);
  EXPECT_EQ(table.freeBytesBelow(2), 48u);
  EXPECT_EQ(table.largestFreeBlock(), 65536u);
  // The side table (a byte per granule) and the live summary: 6147 granules, so 24
  // two-byte counters of 256 granules, and one more for the tail; while leftovers are
  // tracked (the default), a bit per granule in 97 words.
  EXPECT_EQ(table.metadataBytes(), (96u * 1024 + 48) / 16 + 1 + 25 * 2 + sizeof(Table) + 97 * 8);
  table.trackLeftovers(false);
  EXPECT_EQ(table.metadataBytes(), (96u * 1024 + 48) / 16 + 1 + 25 * 2 + sizeof(Table));
  // The regions of each level lie in the maximal blocks of that level or larger.
  EXPECT_EQ(table.regionCount(12), 1u);
  EXPECT_EQ(table.regionCount(11), 3u);
  EXPECT_EQ(table.regionCount(0), 6147u);
  EXPECT_TRUE(table.isRegion(65536 + 32768 - 2048, 11));
  EXPECT_FALSE(table.isRegion(65536 + 32768, 11));  // the 32 | 16 tail is no region of level 11
  EXPECT_EQ(table.checkStructure(), "");
}

TEST(BuddyBlockTable, CheckerFindsEachKindOfDamage) {
  {
    FixedArena arena(256);
    auto table = Table::adopt(arena);
    ASSERT_EQ(table.checkStructure(), "");
    EXPECT_EQ(table.layout(), "256");
    table.setBusy(16, 0);  // a block start inside the free 256
    EXPECT_NE(table.checkStructure().find("covers"), std::string::npos) << table.checkStructure();
    table.clear(16);
    EXPECT_EQ(table.checkStructure(), "");
  }
  {
    FixedArena arena(256);
    auto table = Table::adopt(arena);
    table.clear(0);  // no block starts where the arena does, yet the list holds it
    EXPECT_NE(table.checkStructure().find("not a block"), std::string::npos) << table.checkStructure();
  }
  {
    FixedArena arena(256);
    auto table = Table::adopt(arena);
    table.popFree(BuddyState::listedA, 4);
    table.clear(0);  // off the list, and no block starts at 0 any more
    EXPECT_NE(table.checkStructure().find("should start a block"), std::string::npos)
        << table.checkStructure();
  }
  {
    FixedArena arena(256);
    auto table = Table::adopt(arena);
    table.popFree(BuddyState::listedA, 4);
    table.setBusy(0, 8);  // a 4 KiB block in a 256-byte heap
    EXPECT_NE(table.checkStructure().find("not aligned"), std::string::npos) << table.checkStructure();
  }
  {
    FixedArena arena(256);
    auto table = Table::adopt(arena);
    // A free block that is on no list although its state says listed.
    ASSERT_EQ(table.popFree(BuddyState::listedA, 4), 0u);
    table.addFree(0, 4, BuddyState::implied);
    EXPECT_EQ(table.layout(), "256-");
    EXPECT_EQ(table.checkStructure(), "");  // implied blocks are on no list: fine here
    table.restate(0, BuddyState::listedB);
    EXPECT_EQ(table.layout(), "256+");
    EXPECT_EQ(table.checkStructure(), "");
    table.setBusy(0, 4);  // busy, but still on list B
    EXPECT_NE(table.checkStructure().find("holds"), std::string::npos) << table.checkStructure();
  }
  {
    FixedArena arena(256);
    auto table = Table::adopt(arena);
    const std::size_t off = table.popFree(BuddyState::listedA, 4);
    table.setBusy(off, 4);  // handed out without the live summary knowing
    EXPECT_NE(table.checkStructure().find("live summary"), std::string::npos) << table.checkStructure();
    table.addLive(off, 4);  // as BuddyHeapCore hands a block out
    EXPECT_EQ(table.checkStructure(), "");
    table.removeLive(off, 4);
    table.addFree(off, 4, BuddyState::listedA);
    table.removeFree(off);  // leaves the byte saying "listed" but unlinked
    EXPECT_NE(table.checkStructure(), "");
  }
}

// The reads free() makes without asking the side table first: one byte compare for a
// block of a given level and state, the lists' own level and state on a pop, and the
// extra zero byte where a power-of-two arena's one root would have its buddy.
TEST(BuddyBlockTable, KnownStateReadsAndThePowerOfTwoRootsBuddy) {
  FixedArena arena(1024);
  auto table = Table::adopt(arena);
  EXPECT_TRUE(table.isRoot(0, 6));
  EXPECT_EQ(Table::buddyOf(0, 6), table.bytes());
  for (BuddyState s : {BuddyState::none, BuddyState::busy, BuddyState::listedA, BuddyState::listedB,
                       BuddyState::implied, BuddyState::held})
    for (unsigned level = 0; level < Table::kLevels; ++level)
      EXPECT_EQ(table.isBlock(table.bytes(), level, s), s == BuddyState::none && level == 0);
  EXPECT_TRUE(table.isBlock(0, 6, BuddyState::listedA));
  EXPECT_FALSE(table.isBlock(0, 5, BuddyState::listedA));
  EXPECT_FALSE(table.isBlock(0, 6, BuddyState::listedB));

  void* block = table.popFreeBlock(BuddyState::listedA, 6);
  ASSERT_EQ(block, table.address(0));
  EXPECT_EQ(table.popFreeBlock(BuddyState::listedA, 6), nullptr);
  EXPECT_EQ(table.freeBlocks(6), 0u);
  EXPECT_EQ(table.freeBytes(), 0u);
  // Split by hand into two free halves: a pair (B + implied), then restated with
  // the states the caller knows, as the estranged heap does.
  table.clear(0);
  table.addFree(0, 5, BuddyState::listedB);
  table.addFree(512, 5, BuddyState::implied);
  EXPECT_EQ(table.layout(), "512+ 512-");
  EXPECT_EQ(table.freeBytes(), 1024u);
  EXPECT_EQ(table.checkStructure(), "");
  table.restate(512, 5, BuddyState::implied, BuddyState::listedA);
  table.restate(0, 5, BuddyState::listedB, BuddyState::listedA);
  EXPECT_EQ(table.layout(), "512 512");
  EXPECT_EQ(table.checkStructure(), "");
  EXPECT_TRUE(table.isBlock(512, 5, BuddyState::listedA));
  table.removeFree(512, 5, BuddyState::listedA);
  table.clear(512);
  table.removeFree(0, 5, BuddyState::listedA);
  EXPECT_EQ(table.freeBytes(), 0u);
  table.addFree(0, 6, BuddyState::listedA);  // rejoined, as Knuth's free does
  EXPECT_EQ(table.layout(), "1024");
  EXPECT_EQ(table.freeBytes(), 1024u);
  EXPECT_EQ(table.checkStructure(), "");
}

// A bisection's upper halves start lists the search found empty: addFreeOnEmpty
// links each as a whole list (no stale links from the bytes it held), and a later
// push links back to it.
TEST(BuddyBlockTable, UpperHalvesStartEmptyLists) {
  FixedArena arena(256);
  auto table = Table::adopt(arena);
  const std::size_t off = table.popFree(BuddyState::listedA, 4);
  ASSERT_EQ(off, 0u);
  std::memset(table.address(0), 0xAB, 256);  // a block's old contents
  for (unsigned level = 4; level > 1;) {
    --level;
    table.addFreeOnEmpty(Table::blockBytes(level), level, BuddyState::listedA);
  }
  table.setBusy(0, 1);
  table.addLive(0, 1);
  EXPECT_EQ(table.layout(), "32* 32 64 128");
  EXPECT_EQ(table.freeBytes(), 224u);
  EXPECT_EQ(table.checkStructure(), "");
  table.clear(32);
  table.removeFree(32, 1, BuddyState::listedA);
  table.setBusy(32, 0);
  table.addLive(32, 0);
  table.addFree(48, 0, BuddyState::listedA);
  table.removeLive(0, 1);
  table.clear(0);
  table.addFree(0, 0, BuddyState::listedA);
  table.addFree(16, 0, BuddyState::listedA);  // pushed in front of 0's list entry
  EXPECT_EQ(table.layout(), "16 16 16* 16 64 128");
  EXPECT_EQ(table.checkStructure(), "");
  EXPECT_EQ(table.popFree(BuddyState::listedA, 0), 16u);
  EXPECT_EQ(table.popFree(BuddyState::listedA, 0), 0u);
  EXPECT_EQ(table.popFree(BuddyState::listedA, 0), 48u);
  EXPECT_EQ(table.popFree(BuddyState::listedA, 0), Table::kNone);
}

TEST(BuddyBlockTable, EmptyArena) {
  FixedArena arena(0);
  auto table = Table::adopt(arena);
  EXPECT_EQ(table.bytes(), 0u);
  EXPECT_EQ(table.freeBytes(), 0u);
  EXPECT_EQ(table.largestFreeBlock(), 0u);
  EXPECT_EQ(table.layout(), "");
  EXPECT_EQ(table.checkStructure(), "");
}

}  // namespace
}  // namespace kith::heap
