#include "heap/layers/debug_heap.h"

#include <gtest/gtest.h>

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "heap/layers/fixed_arena.h"
#include "heap/adapters/malloc_heap.h"
#include "tests/heap/test_arenas.h"

namespace kith::heap {
namespace {

struct Report {
  DebugHeapError kind;
  std::string message;
};

// Collects the reports instead of aborting.
struct Capture {
  std::vector<Report> reports;
  static void handler(void* self, DebugHeapError kind, const std::string& message) {
    static_cast<Capture*>(self)->reports.push_back({kind, message});
  }
  template <class H>
  void attach(H& heap) {
    heap.setErrorHandler(&handler, this);
  }
};

bool contains(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

// CountingArena counts what reaches the heap below DebugHeap, to show invalid frees
// stop at it. MovingArena moves blocks as buddy defragmentation does.
using testing::CountingArena;
using testing::MovingArena;

TEST(DebugHeap, ValidUseReportsNothing) {
  DebugHeap<FixedArena> heap(1 << 16);
  Capture capture;
  capture.attach(heap);
  std::vector<unsigned char*> blocks;
  for (std::size_t size : {0, 1, 15, 16, 17, 100, 4096}) {
    auto* p = static_cast<unsigned char*>(heap.malloc(size));
    ASSERT_NE(p, nullptr) << size;
    EXPECT_TRUE(isAligned(p)) << size;
    EXPECT_EQ(heap.getSize(p), size);
    for (std::size_t i = 0; i < size; ++i) EXPECT_EQ(p[i], DebugHeap<FixedArena>::kFreshByte);
    std::memset(p, 0x42, size);  // the whole block is the user's
    blocks.push_back(p);
  }
  EXPECT_EQ(heap.liveBlocks(), 7u);
  EXPECT_EQ(heap.checkAll(), 0u);
  EXPECT_EQ(heap.checkInvariants(), "");
  for (auto* p : blocks) heap.free(p);
  EXPECT_EQ(heap.liveBlocks(), 0u);
  EXPECT_TRUE(capture.reports.empty());
}

TEST(DebugHeap, DoubleFreeIsReportedAndNotPassedDown) {
  DebugHeap<CountingArena> heap(4096);
  Capture capture;
  capture.attach(heap);
  heap.malloc(16);
  void* p = heap.malloc(48);  // allocation #2
  heap.free(p);
  EXPECT_EQ(heap.frees, 1);
  heap.free(p);
  EXPECT_EQ(heap.frees, 1);  // ignored
  ASSERT_EQ(capture.reports.size(), 1u);
  EXPECT_EQ(capture.reports[0].kind, DebugHeapError::doubleFree);
  EXPECT_TRUE(contains(capture.reports[0].message, "kith heap: double free of 0x"));
  EXPECT_TRUE(contains(capture.reports[0].message, "(block of 48 bytes allocated as #2)"))
      << capture.reports[0].message;
}

TEST(DebugHeap, GetSizeOfAFreedBlockIsUseAfterFree) {
  DebugHeap<FixedArena> heap(4096);
  Capture capture;
  capture.attach(heap);
  void* p = heap.malloc(24);
  heap.free(p);
  EXPECT_EQ(heap.getSize(p), 0u);
  ASSERT_EQ(capture.reports.size(), 1u);
  EXPECT_EQ(capture.reports[0].kind, DebugHeapError::useAfterFree);
}

TEST(DebugHeap, ForeignPointerIsReportedAndNotPassedDown) {
  DebugHeap<CountingArena> heap(4096);
  Capture capture;
  capture.attach(heap);
  heap.malloc(32);
  alignas(16) static std::byte elsewhere[64];
  heap.free(elsewhere);
  EXPECT_EQ(heap.frees, 0);
  EXPECT_EQ(heap.getSize(elsewhere + 16), 0u);
  ASSERT_EQ(capture.reports.size(), 2u);
  EXPECT_EQ(capture.reports[0].kind, DebugHeapError::foreignPointer);
  EXPECT_TRUE(contains(capture.reports[0].message, "never returned (foreign pointer)"))
      << capture.reports[0].message;
  EXPECT_EQ(capture.reports[1].kind, DebugHeapError::foreignPointer);
  EXPECT_TRUE(contains(capture.reports[1].message, "kith heap: getSize of 0x"));
}

TEST(DebugHeap, InteriorPointerIsReportedWithItsBlock) {
  DebugHeap<CountingArena> heap(4096);
  Capture capture;
  capture.attach(heap);
  heap.malloc(16);
  auto* p = static_cast<std::byte*>(heap.malloc(64));  // #2
  heap.malloc(16);
  heap.free(p + 16);
  heap.free(p + 63);  // last user byte
  heap.free(p - 8);   // inside its header canary
  EXPECT_EQ(heap.frees, 0);
  ASSERT_EQ(capture.reports.size(), 3u);
  for (const Report& r : capture.reports) EXPECT_EQ(r.kind, DebugHeapError::interiorPointer);
  EXPECT_TRUE(contains(capture.reports[0].message, "interior pointer 0x"));
  EXPECT_TRUE(contains(capture.reports[0].message,
                       "at offset 16 of the block of 64 bytes at 0x"))
      << capture.reports[0].message;
  EXPECT_TRUE(contains(capture.reports[0].message, "allocated as #2"));
  EXPECT_TRUE(contains(capture.reports[1].message, "at offset 63 "));
  EXPECT_TRUE(contains(capture.reports[2].message, "at offset -8 "));
  heap.free(p);  // the block itself is still live and frees cleanly
  EXPECT_EQ(capture.reports.size(), 3u);
  EXPECT_EQ(heap.frees, 1);
}

TEST(DebugHeap, WritePastTheEndIsCaughtOnFree) {
  DebugHeap<CountingArena> heap(4096);
  Capture capture;
  capture.attach(heap);
  auto* p = static_cast<unsigned char*>(heap.malloc(20));
  auto* q = static_cast<unsigned char*>(heap.malloc(20));
  p[20] = 'x';  // one past the end
  q[20 + 15] = 'y';  // the last canary byte
  heap.free(p);
  heap.free(q);
  ASSERT_EQ(capture.reports.size(), 2u);
  EXPECT_EQ(capture.reports[0].kind, DebugHeapError::writePastEnd);
  EXPECT_TRUE(contains(capture.reports[0].message,
                       "kith heap: write past the end of the block of 20 bytes at 0x"));
  EXPECT_TRUE(contains(capture.reports[0].message, "(byte 0 after the end was overwritten)"))
      << capture.reports[0].message;
  EXPECT_TRUE(contains(capture.reports[1].message, "(byte 15 after the end was overwritten)"));
  EXPECT_EQ(heap.frees, 2);  // the pointers were valid: the blocks are still freed
}

TEST(DebugHeap, TailCanaryCoversTheSupersWholeBlock) {
  // MallocHeap knows its block sizes: the slack after the tail canary is guarded too.
  DebugHeap<MallocHeap> heap;
  Capture capture;
  capture.attach(heap);
  auto* p = static_cast<unsigned char*>(heap.malloc(1));
  std::size_t usable = MallocHeap().getSize(p - DebugHeap<MallocHeap>::kHeader);
  ASSERT_GE(usable, 1u + 16);
  p[usable - DebugHeap<MallocHeap>::kHeader - 1] = 0;  // the very last byte of the block
  heap.free(p);
  ASSERT_EQ(capture.reports.size(), 1u);
  EXPECT_EQ(capture.reports[0].kind, DebugHeapError::writePastEnd);
}

TEST(DebugHeap, HeaderSmashIsCaughtOnFree) {
  DebugHeap<FixedArena> heap(4096);
  Capture capture;
  capture.attach(heap);
  auto* p = static_cast<unsigned char*>(heap.malloc(32));
  p[-1] = 0;
  heap.free(p);
  ASSERT_EQ(capture.reports.size(), 1u);
  EXPECT_EQ(capture.reports[0].kind, DebugHeapError::headerSmashed);
  EXPECT_TRUE(contains(capture.reports[0].message,
                       "kith heap: write before the start of the block of 32 bytes at 0x"));
  EXPECT_TRUE(contains(capture.reports[0].message, "header canary byte 1 before the start"))
      << capture.reports[0].message;
}

TEST(DebugHeap, CheckAllFindsEverySmashedLiveBlock) {
  DebugHeap<FixedArena> heap(4096);
  Capture capture;
  capture.attach(heap);
  auto* a = static_cast<unsigned char*>(heap.malloc(10));
  auto* b = static_cast<unsigned char*>(heap.malloc(10));
  auto* c = static_cast<unsigned char*>(heap.malloc(10));
  ASSERT_TRUE(a && b && c);
  a[12] = 1;
  c[-16] = 1;
  EXPECT_EQ(heap.checkAll(), 2u);
  ASSERT_EQ(capture.reports.size(), 2u);
  EXPECT_EQ(capture.reports[0].kind, DebugHeapError::writePastEnd);
  EXPECT_EQ(capture.reports[1].kind, DebugHeapError::headerSmashed);
  // checkInvariants describes the damage without calling the handler.
  EXPECT_TRUE(contains(heap.checkInvariants(), "write past the end"));
  EXPECT_EQ(capture.reports.size(), 2u);
}

TEST(DebugHeap, OutOfMemoryPropagatesAsNull) {
  DebugHeap<FixedArena> heap(64);
  EXPECT_EQ(heap.malloc(SIZE_MAX), nullptr);
  EXPECT_EQ(heap.malloc(SIZE_MAX - 32), nullptr);
  EXPECT_EQ(heap.malloc(SIZE_MAX - 33), nullptr);
  EXPECT_EQ(heap.malloc(33), nullptr);  // 16 + 33 + 16 > 64
  void* p = heap.malloc(32);            // exactly the arena
  ASSERT_NE(p, nullptr);
  EXPECT_EQ(heap.malloc(0), nullptr);
  EXPECT_EQ(heap.liveBlocks(), 1u);
  heap.free(nullptr);  // as in C: nothing
}

TEST(DebugHeap, FollowsBlocksAMovingSuperRelocates) {
  DebugHeap<MovingArena> heap(4096);
  Capture capture;
  capture.attach(heap);
  struct Seen {
    void* from = nullptr;
    void* to = nullptr;
    std::size_t size = 0;
  } seen;
  heap.setRelocator(
      [](void* ctx, void* from, void* to, std::size_t size) {
        *static_cast<Seen*>(ctx) = {from, to, size};
      },
      &seen);
  auto* p = static_cast<unsigned char*>(heap.malloc(40));
  std::memset(p, 7, 40);
  auto* block = p - DebugHeap<MovingArena>::kHeader;
  auto* moved = static_cast<unsigned char*>(heap.moveBlock(block, 16 + 40 + 16));
  auto* q = moved + DebugHeap<MovingArena>::kHeader;
  EXPECT_EQ(seen.from, p);  // the owner hears the user's addresses and size
  EXPECT_EQ(seen.to, q);
  EXPECT_EQ(seen.size, 40u);
  EXPECT_EQ(heap.getSize(q), 40u);
  EXPECT_EQ(q[39], 7);
  heap.free(q);
  EXPECT_TRUE(capture.reports.empty());
  heap.free(p);  // the old address is no longer a block
  ASSERT_EQ(capture.reports.size(), 1u);
  EXPECT_EQ(capture.reports[0].kind, DebugHeapError::foreignPointer);
}

TEST(DebugHeapDeathTest, DefaultHandlerPrintsOneLineAndAborts) {
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  EXPECT_DEATH(
      {
        DebugHeap<FixedArena> heap(4096);
        void* p = heap.malloc(48);
        heap.free(p);
        heap.free(p);
      },
      "kith heap: double free of 0x[0-9a-f]+ \\(block of 48 bytes allocated as #1\\)");
  EXPECT_DEATH(
      {
        DebugHeap<FixedArena> heap(4096);
        auto* p = static_cast<char*>(heap.malloc(8));
        p[8] = 0;
        heap.free(p);
      },
      "kith heap: write past the end of the block of 8 bytes");
}

}  // namespace
}  // namespace kith::heap
