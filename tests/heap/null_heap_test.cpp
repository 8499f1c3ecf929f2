#include "heap/layers/null_heap.h"

#include <gtest/gtest.h>

#include <cstdint>

#include "heap/layers/freelist_heap.h"
#include "heap/layer.h"

namespace kith::heap {
namespace {

static_assert(HeapLayer<NullHeap>);
static_assert(!SizedHeap<NullHeap>);

TEST(NullHeap, HasNoMemoryForAnySize) {
  NullHeap heap;
  for (std::size_t size : {std::size_t{0}, std::size_t{1}, std::size_t{16}, std::size_t{1} << 40, SIZE_MAX})
    EXPECT_EQ(heap.malloc(size), nullptr) << size;
}

TEST(NullHeap, FreeIsANoOp) {
  NullHeap heap;
  alignas(16) std::byte block[32]{};
  block[0] = std::byte{7};
  heap.free(nullptr);
  heap.free(block);
  EXPECT_EQ(block[0], std::byte{7});  // untouched
  EXPECT_EQ(heap.malloc(16), nullptr);  // and not handed out again
}

TEST(NullHeap, UnderACacheAMissFallsThroughAsNull) {
  FreelistHeap<NullHeap> bin;
  EXPECT_EQ(bin.malloc(32), nullptr);  // nothing cached: the enclosing heap must supply it
  alignas(16) std::byte block[32];
  bin.free(block);
  EXPECT_EQ(bin.malloc(32), block);
  EXPECT_EQ(bin.malloc(32), nullptr);
}

}  // namespace
}  // namespace kith::heap
