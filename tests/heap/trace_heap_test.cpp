#include "heap/trace/trace_heap.h"

#include <gtest/gtest.h>

#include <cstddef>
#include <cstdint>
#include <sstream>
#include <string>
#include <vector>

#include "heap/layers/fixed_arena.h"
#include "heap/trace/trace.h"
#include "tests/heap/test_arenas.h"

namespace kith::heap {
namespace {

using Kind = TraceEventKind;

// CountingArena counts frees that reach the heap below, to show TraceHeap passes
// every one down. MovingArena moves blocks as buddy defragmentation does.
using testing::CountingArena;
using testing::MovingArena;

TEST(TraceHeap, RecordsAllocsFreesAndFailuresInOrder) {
  TraceHeap<CountingArena, TraceBuffer> heap(256);
  TraceBuffer trace;
  heap.setTraceSink(&trace);
  void* a = heap.malloc(16);
  void* b = heap.malloc(32);
  heap.free(a);
  void* c = heap.malloc(0);
  EXPECT_EQ(heap.malloc(1000), nullptr);  // failed: recorded, no id used
  void* d = heap.malloc(5);
  heap.free(b);
  heap.free(d);
  ASSERT_TRUE(a && b && c && d);
  std::vector<TraceEvent> want = {
      {Kind::alloc, 0, 0, 16}, {Kind::alloc, 1, 1, 32}, {Kind::free, 2, 0, 0},
      {Kind::alloc, 3, 2, 0},  {Kind::failed, 4, 0, 1000}, {Kind::alloc, 5, 3, 5},
      {Kind::free, 6, 1, 0},   {Kind::free, 7, 3, 0},
  };
  EXPECT_EQ(trace.events, want);
  EXPECT_EQ(heap.eventsRecorded(), 8u);
  EXPECT_EQ(heap.frees, 3);
}

TEST(TraceHeap, OutOfMemoryPropagatesAsNull) {
  TraceHeap<FixedArena, TraceBuffer> heap(32);
  TraceBuffer trace;
  heap.setTraceSink(&trace);
  EXPECT_EQ(heap.malloc(SIZE_MAX), nullptr);
  EXPECT_NE(heap.malloc(32), nullptr);
  EXPECT_EQ(heap.malloc(1), nullptr);
  ASSERT_EQ(trace.events.size(), 3u);
  EXPECT_EQ(trace.events[0], (TraceEvent{Kind::failed, 0, 0, SIZE_MAX}));
  EXPECT_EQ(trace.events[2], (TraceEvent{Kind::failed, 2, 0, 1}));
}

TEST(TraceHeap, BlocksFromBeforeTheSinkAreNotRecorded) {
  TraceHeap<CountingArena, TraceBuffer> heap(256);
  void* early = heap.malloc(16);  // no sink yet
  TraceBuffer trace;
  heap.setTraceSink(&trace);
  void* late = heap.malloc(16);
  heap.free(early);  // passed down, not recorded: the trace never saw it born
  heap.free(late);
  heap.free(nullptr);  // nothing
  std::vector<TraceEvent> want = {{Kind::alloc, 0, 0, 16}, {Kind::free, 1, 0, 0}};
  EXPECT_EQ(trace.events, want);
  EXPECT_EQ(heap.frees, 2);
}

// A heap of one block, handed out again as soon as it is freed.
class OneBlockHeap {
 public:
  explicit OneBlockHeap(std::size_t) {}
  void* malloc(std::size_t size) {
    if (taken_ || size > sizeof block_) return nullptr;
    taken_ = true;
    return block_;
  }
  void free(void*) { taken_ = false; }

 private:
  alignas(16) std::byte block_[64];
  bool taken_ = false;
};

TEST(TraceHeap, AnAddressReusedWhilePausedIsNotMistakenForTheOldObject) {
  TraceHeap<OneBlockHeap, TraceBuffer> heap(0);
  TraceBuffer trace;
  heap.setTraceSink(&trace);
  void* a = heap.malloc(8);  // object 0
  heap.free(a);
  heap.setTraceSink(nullptr);
  void* b = heap.malloc(8);  // same address, not recorded
  ASSERT_EQ(a, b);
  heap.setTraceSink(&trace);
  heap.free(b);              // not object 0: nothing to record
  void* c = heap.malloc(8);  // object 1
  heap.free(c);
  std::vector<TraceEvent> want = {{Kind::alloc, 0, 0, 8},
                                  {Kind::free, 1, 0, 0},
                                  {Kind::alloc, 2, 1, 8},
                                  {Kind::free, 3, 1, 0}};
  EXPECT_EQ(trace.events, want);
}

// A deterministic mix of mallocs and frees; the same on every heap of the same arena.
template <class H>
void runWorkload(H& heap) {
  std::vector<void*> live;
  std::uint64_t x = 12345;
  for (int i = 0; i < 2000; ++i) {
    x = x * 6364136223846793005u + 1442695040888963407u;
    if (!live.empty() && (x >> 20) % 3 == 0) {
      std::size_t victim = (x >> 40) % live.size();
      heap.free(live[victim]);
      live.erase(live.begin() + static_cast<std::ptrdiff_t>(victim));
    } else if (void* p = heap.malloc((x >> 33) % 200)) {
      live.push_back(p);
    }
  }
}

TEST(TraceHeap, WrittenTraceReadsBackAsTheRecordedEvents) {
  // The same run recorded twice: in memory, and as text through a TraceWriter.
  TraceHeap<FixedArena, TraceBuffer> memory(1 << 16);
  TraceBuffer buffer;
  memory.setTraceSink(&buffer);
  runWorkload(memory);

  TraceHeap<FixedArena, TraceWriter> text(1 << 16);
  std::stringstream stream;
  {
    TraceWriter writer(stream);
    text.setTraceSink(&writer);
    runWorkload(text);
    text.setTraceSink(nullptr);
  }
  std::string error;
  std::vector<TraceEvent> back = readTrace(stream, &error);
  EXPECT_EQ(error, "");
  EXPECT_GT(buffer.events.size(), 1000u);
  EXPECT_EQ(back, buffer.events);
}

TEST(TraceHeap, AnObjectKeepsItsIdWhenItsBlockMoves) {
  TraceHeap<MovingArena, TraceBuffer> heap(4096);
  TraceBuffer trace;
  heap.setTraceSink(&trace);
  int moves = 0;
  heap.setRelocator([](void* ctx, void*, void*, std::size_t) { ++*static_cast<int*>(ctx); },
                    &moves);
  heap.malloc(16);
  void* p = heap.malloc(64);
  void* q = heap.moveBlock(p, 64);
  EXPECT_EQ(moves, 1);  // the owner's relocator still runs
  heap.free(q);
  heap.free(p);  // the old address: not an object any more, not recorded
  std::vector<TraceEvent> want = {
      {Kind::alloc, 0, 0, 16}, {Kind::alloc, 1, 1, 64}, {Kind::free, 2, 1, 0}};
  EXPECT_EQ(trace.events, want);
}

}  // namespace
}  // namespace kith::heap
