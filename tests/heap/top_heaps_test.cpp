// The top heaps over the system: MallocHeap (the `malloc` policy) and MmapHeap.
#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>

#include "heap/adapters/malloc_heap.h"
#include "heap/layers/mmap_heap.h"

namespace kith::heap {
namespace {

template <class H>
void allocatesAlignedUsableBlocks() {
  H heap;
  for (std::size_t size : {0u, 1u, 15u, 16u, 17u, 4096u, 100000u}) {
    auto* p = static_cast<unsigned char*>(heap.malloc(size));
    ASSERT_NE(p, nullptr) << size;
    EXPECT_TRUE(isAligned(p)) << size;
    EXPECT_GE(heap.getSize(p), size < kMinBlock ? kMinBlock : size) << size;
    std::memset(p, 0xAB, heap.getSize(p));  // the whole usable size is writable
    heap.free(p);
  }
  heap.free(nullptr);  // a no-op, as in C
}

TEST(MallocHeap, AllocatesAlignedUsableBlocks) { allocatesAlignedUsableBlocks<MallocHeap>(); }
TEST(MmapHeap, AllocatesAlignedUsableBlocks) { allocatesAlignedUsableBlocks<MmapHeap>(); }

TEST(MallocHeap, ImpossibleRequestsGiveNull) {
  MallocHeap heap;
  EXPECT_EQ(heap.malloc(SIZE_MAX), nullptr);
  EXPECT_EQ(heap.malloc(SIZE_MAX - 20), nullptr);
}

TEST(MmapHeap, ImpossibleRequestsGiveNull) {
  MmapHeap heap;
  EXPECT_EQ(heap.malloc(SIZE_MAX), nullptr);
  EXPECT_EQ(heap.malloc(SIZE_MAX - 20), nullptr);
  EXPECT_EQ(heap.malloc(std::size_t{1} << 62), nullptr);  // the kernel refuses
}

TEST(MmapHeap, UsableSizeIsTheMappingLessItsHeader) {
  MmapHeap heap;
  void* p = heap.malloc(1);
  EXPECT_EQ(heap.getSize(p) + kAlignment, static_cast<std::size_t>(::sysconf(_SC_PAGESIZE)));
  heap.free(p);
}

}  // namespace
}  // namespace kith::heap
