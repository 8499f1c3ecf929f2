#include "vm/compiler_scratch.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <vector>

namespace kith::vm {
namespace {

constexpr CompilerHeap kHeaps[] = {CompilerHeap::zone, CompilerHeap::reap, CompilerHeap::lea, CompilerHeap::malloc};

// The bytes held are sampled after every request: a region keeps what is freed, the
// others give it back, over the same requests.
TEST(CompilerScratch, SamplesTheBytesHeldAtEveryRequest) {
  for (CompilerHeap heap : kHeaps) {
    auto scratch = makeCompilerScratch(heap);
    void* a = scratch->malloc(100);
    void* b = scratch->malloc(50);
    ASSERT_TRUE(a && b);
    scratch->free(a, 100);
    ScratchStats s = scratch->stats();
    EXPECT_EQ(s.requests, 3u);
    EXPECT_EQ(s.frees, 1u);
    EXPECT_EQ(s.peakBytes, 150u);
    if (heap == CompilerHeap::zone)
      EXPECT_DOUBLE_EQ(s.meanBytes, (100 + 150 + 150) / 3.0);
    else
      EXPECT_DOUBLE_EQ(s.meanBytes, (100 + 150 + 50) / 3.0) << compilerHeapName(heap);
    scratch->free(b, 50);
  }
}

TEST(CompilerScratch, ChunksAreCountedForTheRegionAndTheReap) {
  for (CompilerHeap heap : kHeaps) {
    auto scratch = makeCompilerScratch(heap);
    void* p = scratch->malloc(40);
    bool chunked = heap == CompilerHeap::zone || heap == CompilerHeap::reap;
    EXPECT_EQ(scratch->stats().chunkBytes, chunked ? 16u * 1024 : 0u) << compilerHeapName(heap);
    scratch->free(p, 40);  // the malloc heap returns nothing by itself (LeakSanitizer)
  }
}

// A std vector over each heap keeps its contents through growth, and a reap reuses
// what the vector gave back.
TEST(CompilerScratch, ContainersWorkOverEveryHeap) {
  for (CompilerHeap heap : kHeaps) {
    auto scratch = makeCompilerScratch(heap);
    {
      ScratchVector<std::uint64_t> v{ScratchAllocator<std::uint64_t>(scratch.get())};
      for (std::uint64_t i = 0; i < 10'000; ++i) v.push_back(i * i);
      for (std::uint64_t i = 0; i < 10'000; ++i) ASSERT_EQ(v[i], i * i) << compilerHeapName(heap);
    }
    ScratchStats s = scratch->stats();
    EXPECT_EQ(s.requests, 2 * s.frees);  // every buffer went back
    if (heap != CompilerHeap::zone) EXPECT_LT(s.meanBytes, s.peakBytes / 2.0);
  }
}

}  // namespace
}  // namespace kith::vm
