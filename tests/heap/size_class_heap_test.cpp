#include "heap/layers/size_class_heap.h"

#include <gtest/gtest.h>

#include <cstdint>

#include "heap/layers/fixed_arena.h"
#include "heap/layers/size_classes.h"
#include "tests/heap/counting_heap.h"

namespace kith::heap {
namespace {

template <class Super>
using Pow2ClassHeap = SizeClassHeap<kPow2ClassCount, pow2SizeClass, pow2ClassMaxSize, Super>;

static_assert(SizedHeap<Pow2ClassHeap<FixedArena>>);

TEST(SizeClassHeap, RecordsTheClassInAHeaderBeforeTheObject) {
  Pow2ClassHeap<FixedArena> heap(4096);
  void* p = heap.malloc(100);
  ASSERT_NE(p, nullptr);
  EXPECT_EQ(p, heap.arenaBase() + 16);  // the header takes the first 16 bytes
  EXPECT_TRUE(isAligned(p));
  EXPECT_EQ(heap.sizeClassOf(p), 3u);    // 128 B
  EXPECT_EQ(*reinterpret_cast<std::size_t*>(heap.arenaBase()), 3u);  // the index, not the size
  EXPECT_EQ(heap.getSize(p), 128u);     // rounded up to the class
  EXPECT_EQ(heap.remaining(), 4096u - 16 - 128);
  void* q = heap.malloc(17);
  EXPECT_EQ(static_cast<std::byte*>(q) - static_cast<std::byte*>(p), 128 + 16);
  EXPECT_EQ(heap.sizeClassOf(q), 1u);
  EXPECT_EQ(heap.getSize(q), 32u);
  EXPECT_EQ(heap.getSize(p), 128u);  // writing q did not disturb p's header
}

TEST(SizeClassHeap, EdgeSizes) {
  Pow2ClassHeap<FixedArena> heap(1 << 16);
  void* zero = heap.malloc(0);
  void* sixteen = heap.malloc(16);
  void* seventeen = heap.malloc(17);
  ASSERT_NE(zero, nullptr);
  EXPECT_EQ(heap.getSize(zero), 16u);  // at least the first class
  EXPECT_EQ(heap.getSize(sixteen), 16u);
  EXPECT_EQ(heap.getSize(seventeen), 32u);
  EXPECT_EQ(heap.malloc(SIZE_MAX), nullptr);  // beyond every class: no overflow
  EXPECT_EQ(heap.malloc(SIZE_MAX / 2 + 1), nullptr);  // the last class, too big for the arena
  EXPECT_EQ(heap.malloc(std::size_t{1} << 40), nullptr);
}

TEST(SizeClassHeap, RequestsAboveTheLastClassFail) {
  SizeClassHeap<4, pow2SizeClass, pow2ClassMaxSize, FixedArena> heap(4096);
  void* last = heap.malloc(128);
  ASSERT_NE(last, nullptr);
  EXPECT_EQ(heap.sizeClassOf(last), 3u);
  EXPECT_EQ(heap.malloc(129), nullptr);
  EXPECT_EQ(heap.remaining(), 4096u - 16 - 128);
}

TEST(SizeClassHeap, OutOfMemoryPropagatesAsNull) {
  Pow2ClassHeap<FixedArena> heap(256);
  EXPECT_EQ(heap.malloc(129), nullptr);  // header + 256 would not fit
  void* whole = heap.malloc(128);
  ASSERT_NE(whole, nullptr);
  EXPECT_EQ(heap.malloc(65), nullptr);  // 112 left: 16 + 128 does not fit
  EXPECT_NE(heap.malloc(64), nullptr);  // 16 + 64 does
}

// Super sees the header plus the whole class, and gets back exactly what it gave.
TEST(SizeClassHeap, FreeHandsSuperTheBlockItGave) {
  testing::CountingLog log;
  Pow2ClassHeap<testing::CountingHeap> heap(log);
  std::byte* small = static_cast<std::byte*>(heap.malloc(40));
  std::byte* large = static_cast<std::byte*>(heap.malloc(3000));
  EXPECT_EQ(log.live.at(small - 16), 16u + 64);
  EXPECT_EQ(log.live.at(large - 16), 16u + 4096);
  heap.free(large);
  heap.free(nullptr);
  heap.free(small);
  EXPECT_EQ(log.frees, 2u);
  EXPECT_TRUE(log.live.empty());
  EXPECT_EQ(log.badFrees, 0u);
}

}  // namespace
}  // namespace kith::heap
