#include "heap/layers/size_heap.h"

#include <gtest/gtest.h>

#include <cstdint>

#include "heap/layers/fixed_arena.h"
#include "tests/heap/counting_heap.h"

namespace kith::heap {
namespace {

static_assert(SizedHeap<SizeHeap<FixedArena>>);
static_assert(!SizedHeap<FixedArena>);

TEST(SizeHeap, RecordsTheUsableSizeInAHeaderBeforeTheObject) {
  SizeHeap<FixedArena> heap(4096);
  void* p = heap.malloc(100);
  ASSERT_NE(p, nullptr);
  EXPECT_EQ(p, heap.arenaBase() + 16);  // the header takes the first 16 bytes
  EXPECT_TRUE(isAligned(p));
  EXPECT_EQ(heap.getSize(p), 112u);  // 100 rounded up to 16
  EXPECT_EQ(heap.remaining(), 4096u - 16 - 112);
  void* q = heap.malloc(112);
  EXPECT_EQ(static_cast<std::byte*>(q) - static_cast<std::byte*>(p), 112 + 16);
  EXPECT_EQ(heap.getSize(q), 112u);
  EXPECT_EQ(heap.getSize(p), 112u);  // writing q did not disturb p's header
}

TEST(SizeHeap, EdgeSizes) {
  SizeHeap<FixedArena> heap(1 << 16);
  void* zero = heap.malloc(0);
  void* one = heap.malloc(1);
  void* sixteen = heap.malloc(16);
  void* seventeen = heap.malloc(17);
  ASSERT_NE(zero, nullptr);
  ASSERT_NE(one, nullptr);
  EXPECT_EQ(heap.getSize(zero), 16u);  // at least one minimum block
  EXPECT_EQ(heap.getSize(one), 16u);
  EXPECT_EQ(heap.getSize(sixteen), 16u);
  EXPECT_EQ(heap.getSize(seventeen), 32u);
  EXPECT_EQ(heap.malloc(SIZE_MAX), nullptr);
  EXPECT_EQ(heap.malloc(SIZE_MAX - 16), nullptr);
  EXPECT_EQ(heap.malloc(SizeHeap<FixedArena>::kLargestRequest), nullptr);  // too big, no overflow
  EXPECT_EQ(heap.malloc(std::size_t{1} << 40), nullptr);
}

TEST(SizeHeap, OutOfMemoryPropagatesAsNull) {
  SizeHeap<FixedArena> heap(256);
  EXPECT_EQ(heap.malloc(256 - 16 + 1), nullptr);  // header + block would not fit
  void* whole = heap.malloc(256 - 16);
  ASSERT_NE(whole, nullptr);
  EXPECT_EQ(heap.getSize(whole), 240u);
  EXPECT_EQ(heap.malloc(0), nullptr);
}

TEST(SizeHeap, FreeHandsSuperTheBlockItGave) {
  testing::CountingLog log;
  SizeHeap<testing::CountingHeap> heap(log);
  void* p = heap.malloc(40);
  ASSERT_EQ(log.live.size(), 1u);
  EXPECT_EQ(log.live.begin()->first, static_cast<std::byte*>(p) - 16);
  EXPECT_EQ(log.live.begin()->second, 16u + 48);  // header + usable size
  heap.free(p);
  heap.free(nullptr);
  EXPECT_EQ(log.frees, 1u);
  EXPECT_EQ(log.badFrees, 0u);
}

}  // namespace
}  // namespace kith::heap
