#include "heap/layers/coalesceable_heap.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <vector>

#include "heap/layers/fixed_arena.h"
#include "heap/adapters/malloc_heap.h"

namespace kith::heap {
namespace {

using Blocks = CoalesceableHeap<FixedArena>;
using GrowableBlocks = CoalesceableHeap<MallocHeap>;

std::ptrdiff_t offset(const Blocks& h, const void* p) {
  return static_cast<const std::byte*>(p) - h.arenaBase();
}

TEST(CoalesceableHeap, BlockBytesForRoundsUpPastTheSizeWord) {
  EXPECT_EQ(Blocks::blockBytesFor(0), 32u);
  EXPECT_EQ(Blocks::blockBytesFor(1), 32u);
  EXPECT_EQ(Blocks::blockBytesFor(16), 32u);
  EXPECT_EQ(Blocks::blockBytesFor(24), 32u);  // 24 usable: the next block's prevSize word
  EXPECT_EQ(Blocks::blockBytesFor(25), 48u);
  EXPECT_EQ(Blocks::blockBytesFor(40), 48u);
  EXPECT_EQ(Blocks::blockBytesFor(41), 64u);
  EXPECT_EQ(Blocks::blockBytesFor(1000), 1008u);
}

TEST(CoalesceableHeap, FirstChunkOfAFixedArenaIsTheWholeArenaBetweenSentinels) {
  Blocks h(4096);
  void* p = h.malloc(0);
  ASSERT_NE(p, nullptr);
  EXPECT_TRUE(isAligned(p));
  EXPECT_EQ(offset(h, p), 32);  // chunk record, then the block's header
  EXPECT_EQ(Blocks::blockBytes(p), 4096u - 32);
  EXPECT_EQ(Blocks::getSize(p), 4096u - 40);
  EXPECT_EQ(h.remaining(), 0u);
  EXPECT_EQ(h.chunkBytes(), 4096u);
  EXPECT_FALSE(Blocks::isFree(p));
  EXPECT_EQ(Blocks::blockAfter(p), nullptr);       // end sentinel
  EXPECT_EQ(Blocks::freeBlockBefore(p), nullptr);  // start of the chunk
  EXPECT_EQ(h.checkBlocks(), "");
  EXPECT_EQ(h.malloc(0), nullptr);  // the arena is all taken
}

TEST(CoalesceableHeap, ArenaTooSmallForOneBlockGivesNull) {
  Blocks none(0), tiny(48);
  EXPECT_EQ(none.malloc(0), nullptr);
  EXPECT_EQ(tiny.malloc(0), nullptr);  // 32 bytes of overhead + a 32-byte block do not fit
  EXPECT_EQ(tiny.checkBlocks(), "");
  Blocks smallest(64);
  void* p = smallest.malloc(24);
  ASSERT_NE(p, nullptr);
  EXPECT_EQ(Blocks::getSize(p), 24u);
  EXPECT_EQ(smallest.checkBlocks(), "");
}

TEST(CoalesceableHeap, HugeRequestsFailWithoutOverflow) {
  Blocks h(4096);
  EXPECT_EQ(h.malloc(SIZE_MAX), nullptr);
  EXPECT_EQ(h.malloc(Blocks::kMaxRequest + 1), nullptr);
  EXPECT_EQ(h.malloc(4096), nullptr);  // needs more than the arena
  EXPECT_EQ(h.remaining(), 4096u);     // nothing was taken
  GrowableBlocks g;
  EXPECT_EQ(g.malloc(SIZE_MAX), nullptr);
}

TEST(CoalesceableHeap, SplitCarvesTheRestIntoANewBlockAbove) {
  Blocks h(4096);
  void* p = h.malloc(0);
  void* rest = Blocks::split(p, 100);
  ASSERT_NE(rest, nullptr);
  EXPECT_EQ(Blocks::blockBytes(p), 112u);
  EXPECT_EQ(Blocks::getSize(p), 104u);
  EXPECT_EQ(static_cast<std::byte*>(rest) - static_cast<std::byte*>(p), 112);
  EXPECT_EQ(Blocks::blockBytes(rest), 4096u - 32 - 112);
  EXPECT_EQ(Blocks::blockAfter(p), rest);
  EXPECT_EQ(Blocks::blockAfter(rest), nullptr);
  EXPECT_FALSE(Blocks::isFree(rest));
  EXPECT_EQ(h.checkBlocks(), "");
}

TEST(CoalesceableHeap, SplitRefusesToLeaveARestSmallerThanAMinimumBlock) {
  Blocks h(256);  // one block of 224 bytes
  void* p = h.malloc(0);
  ASSERT_EQ(Blocks::blockBytes(p), 224u);
  EXPECT_EQ(Blocks::split(p, 200), nullptr);  // 224 - 208 = 16 < 32
  EXPECT_EQ(Blocks::blockBytes(p), 224u);
  void* rest = Blocks::split(p, 184);  // 224 - 192 = 32: exactly a minimum block
  ASSERT_NE(rest, nullptr);
  EXPECT_EQ(Blocks::blockBytes(rest), 32u);
  EXPECT_EQ(h.checkBlocks(), "");
}

TEST(CoalesceableHeap, MarkFreeWritesTheFooterTheBlockAboveReads) {
  Blocks h(4096);
  void* a = h.malloc(0);
  void* b = Blocks::split(a, 48);
  void* c = Blocks::split(b, 64);
  ASSERT_NE(c, nullptr);
  EXPECT_EQ(Blocks::freeBlockBefore(b), nullptr);  // a is in use: its size is not recorded
  Blocks::markFree(a);
  EXPECT_TRUE(Blocks::isFree(a));
  EXPECT_EQ(Blocks::freeBlockBefore(b), a);
  EXPECT_EQ(h.checkBlocks(), "");
  Blocks::markFree(c);  // the last block: its footer lands in the end sentinel
  EXPECT_EQ(h.checkBlocks(), "");
  Blocks::markInUse(a);
  EXPECT_EQ(Blocks::freeBlockBefore(b), nullptr);
  EXPECT_EQ(h.checkBlocks(), "");
}

TEST(CoalesceableHeap, MergeJoinsNeighboursAndKeepsTheLeftBlocksState) {
  Blocks h(4096);
  void* a = h.malloc(0);
  void* b = Blocks::split(a, 48);
  void* c = Blocks::split(b, 64);
  void* d = Blocks::split(c, 80);
  std::size_t ab = Blocks::blockBytes(a) + Blocks::blockBytes(b);
  Blocks::markFree(a);
  EXPECT_EQ(Blocks::merge(a, b), a);  // free + in use -> free
  EXPECT_TRUE(Blocks::isFree(a));
  EXPECT_EQ(Blocks::blockBytes(a), ab);
  EXPECT_EQ(Blocks::blockAfter(a), c);
  EXPECT_EQ(Blocks::freeBlockBefore(c), a);  // the footer moved with the merge
  EXPECT_EQ(h.checkBlocks(), "");
  Blocks::markFree(d);
  std::size_t cd = Blocks::blockBytes(c) + Blocks::blockBytes(d);
  EXPECT_EQ(Blocks::merge(c, d), c);  // in use + free -> in use
  EXPECT_FALSE(Blocks::isFree(c));
  EXPECT_EQ(Blocks::blockBytes(c), cd);
  EXPECT_EQ(Blocks::blockAfter(c), nullptr);
  EXPECT_EQ(h.checkBlocks(), "");
}

TEST(CoalesceableHeap, CarveTakesAFreeBlockIntoUseAndLeavesTheRestFree) {
  Blocks h(4096);
  void* a = h.malloc(0);
  void* b = Blocks::split(a, 200);
  Blocks::markFree(a);
  void* rest = Blocks::carve(a, 40);  // 48 of a's 208 bytes: a free rest of 160
  ASSERT_NE(rest, nullptr);
  EXPECT_FALSE(Blocks::isFree(a));
  EXPECT_EQ(Blocks::blockBytes(a), 48u);
  EXPECT_TRUE(Blocks::isFree(rest));
  EXPECT_EQ(Blocks::blockBytes(rest), 160u);
  EXPECT_EQ(Blocks::blockAfter(a), rest);
  EXPECT_EQ(Blocks::freeBlockBefore(rest), nullptr);  // a is in use
  EXPECT_EQ(Blocks::freeBlockBefore(b), rest);        // b reads the rest's footer
  EXPECT_EQ(h.checkBlocks(), "");
  EXPECT_EQ(Blocks::carve(rest, 150 - 8 - 16), nullptr);  // a rest of 16 bytes is no block
  EXPECT_FALSE(Blocks::isFree(rest));
  EXPECT_EQ(Blocks::blockBytes(rest), 160u);
  EXPECT_EQ(Blocks::freeBlockBefore(b), nullptr);
  EXPECT_EQ(h.checkBlocks(), "");
}

TEST(CoalesceableHeap, CarveOfAFreshChunkMarksTheRestFreeForTheSentinel) {
  GrowableBlocks g;
  void* a = g.malloc(1000);  // in use, spanning its chunk
  void* rest = GrowableBlocks::carve(a, 100);
  ASSERT_NE(rest, nullptr);
  EXPECT_TRUE(GrowableBlocks::isFree(rest));
  EXPECT_EQ(GrowableBlocks::blockBytes(a) + GrowableBlocks::blockBytes(rest), GrowableBlocks::blockBytesFor(1000));
  EXPECT_EQ(g.checkBlocks(), "");  // the end sentinel's previous-free bit and footer agree
}

TEST(CoalesceableHeap, CoalesceMakesOneFreeBlockOfAdjacentBlocks) {
  Blocks h(4096);
  void* a = h.malloc(0);
  void* b = Blocks::split(a, 48);
  void* c = Blocks::split(b, 64);
  void* d = Blocks::split(c, 80);
  void* e = Blocks::split(d, 96);
  ASSERT_NE(e, nullptr);
  std::size_t bcd = Blocks::blockBytes(b) + Blocks::blockBytes(c) + Blocks::blockBytes(d);
  EXPECT_EQ(Blocks::coalesce(b, d), b);
  EXPECT_TRUE(Blocks::isFree(b));
  EXPECT_EQ(Blocks::blockBytes(b), bcd);
  EXPECT_EQ(Blocks::blockAfter(b), e);
  EXPECT_EQ(Blocks::freeBlockBefore(e), b);
  EXPECT_EQ(h.checkBlocks(), "");
  EXPECT_EQ(Blocks::coalesce(e, e), e);  // the last block: its footer lands in the end sentinel
  EXPECT_TRUE(Blocks::isFree(e));
  EXPECT_EQ(h.checkBlocks(), "");
}

TEST(CoalesceableHeap, TheWholeUsableSizeIsWritableWithoutDamagingTheBlockAbove) {
  Blocks h(4096);
  void* a = h.malloc(0);
  void* b = Blocks::split(a, 40);
  ASSERT_EQ(Blocks::getSize(a), 40u);
  std::memset(a, 0xAB, Blocks::getSize(a));
  EXPECT_EQ(Blocks::blockAfter(a), b);
  EXPECT_FALSE(Blocks::isFree(b));
  EXPECT_EQ(Blocks::blockBytes(b), 4096u - 32 - 48);
  EXPECT_EQ(h.checkBlocks(), "");
}

TEST(CoalesceableHeap, ForEachBlockWalksEveryBlockOfEveryChunk) {
  GrowableBlocks g;
  void* a = g.malloc(100);
  void* b = g.malloc(5000);
  ASSERT_NE(a, nullptr);
  ASSERT_NE(b, nullptr);
  EXPECT_EQ(GrowableBlocks::blockBytes(a), GrowableBlocks::blockBytesFor(100));  // just big enough
  void* b2 = GrowableBlocks::split(b, 1000);
  ASSERT_NE(b2, nullptr);
  std::vector<void*> seen;
  g.forEachBlock([&](void* p) { seen.push_back(p); });
  EXPECT_EQ(seen.size(), 3u);
  EXPECT_NE(std::find(seen.begin(), seen.end(), a), seen.end());
  EXPECT_NE(std::find(seen.begin(), seen.end(), b), seen.end());
  EXPECT_NE(std::find(seen.begin(), seen.end(), b2), seen.end());
  EXPECT_EQ(GrowableBlocks::blockAfter(a), nullptr);  // chunks never run into each other
  EXPECT_EQ(g.chunkBytes(), GrowableBlocks::blockBytesFor(100) + GrowableBlocks::blockBytesFor(5000) +
                                2 * GrowableBlocks::kChunkOverhead);
  EXPECT_EQ(g.checkBlocks(), "");
  g.free(a);  // a spans its chunk: the chunk goes back to the C library
  EXPECT_EQ(g.chunkBytes(), GrowableBlocks::blockBytesFor(5000) + GrowableBlocks::kChunkOverhead);
  EXPECT_EQ(GrowableBlocks::merge(b, b2), b);
  g.free(b);
  EXPECT_EQ(g.chunkBytes(), 0u);
  EXPECT_EQ(g.checkBlocks(), "");
}

TEST(CoalesceableHeap, CheckBlocksReportsDamagedHeaders) {
  Blocks h(4096);
  void* a = h.malloc(0);
  void* b = Blocks::split(a, 48);
  ASSERT_EQ(h.checkBlocks(), "");
  auto* sizeWordOfB = reinterpret_cast<std::size_t*>(static_cast<std::byte*>(b) - 8);
  std::size_t saved = *sizeWordOfB;
  *sizeWordOfB = 40;  // not a multiple of 16
  EXPECT_NE(h.checkBlocks().find("bad size"), std::string::npos) << h.checkBlocks();
  *sizeWordOfB = saved + 4096;  // runs past the chunk
  EXPECT_NE(h.checkBlocks().find("bad size"), std::string::npos);
  *sizeWordOfB = saved | 2;  // claims a free block below, which a is not
  EXPECT_NE(h.checkBlocks().find("previous-free bit"), std::string::npos);
  *sizeWordOfB = saved;
  Blocks::markFree(a);
  *reinterpret_cast<std::size_t*>(static_cast<std::byte*>(b) - 16) = 32;  // wrong footer (a has 64)
  EXPECT_NE(h.checkBlocks().find("footer"), std::string::npos);
  Blocks::markFree(a);
  EXPECT_EQ(h.checkBlocks(), "");
  auto* sentinel = reinterpret_cast<std::size_t*>(h.arenaBase() + 4096 - 8);
  *sentinel = 16;
  EXPECT_NE(h.checkBlocks(), "");
}

}  // namespace
}  // namespace kith::heap
