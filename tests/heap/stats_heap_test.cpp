#include "heap/statistics/stats_heap.h"

#include <gtest/gtest.h>

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <map>
#include <random>
#include <string>
#include <vector>

#include "heap/layers/coalesce_heap.h"
#include "heap/layers/coalesceable_heap.h"
#include "heap/statistics/cycle_clock.h"
#include "heap/layers/fixed_arena.h"
#include "heap/buddy/knuth_buddy_heap.h"
#include "heap/adapters/malloc_heap.h"
#include "heap/statistics/step_histogram.h"
#include "heap/classic/unstructured_list_heap.h"

namespace kith::heap {
namespace {

// A minimal size-recording layer for these tests: each block carries a 16-byte
// header holding its rounded size (max(size, 16) rounded up to 16), so getSize
// can answer. free passes down (a no-op on FixedArena).
template <class Super>
class RecordedSizeHeap : public Super {
 public:
  using Super::Super;
  void* malloc(std::size_t size) {
    std::size_t block = alignUp(size < kMinBlock ? kMinBlock : size);
    if (block < size || block > SIZE_MAX - kAlignment) return nullptr;
    auto* p = static_cast<std::byte*>(Super::malloc(block + kAlignment));
    if (!p) return nullptr;
    std::memcpy(p, &block, sizeof block);
    return p + kAlignment;
  }
  void free(void* p) { Super::free(static_cast<std::byte*>(p) - kAlignment); }
  std::size_t getSize(void* p) {
    std::size_t block;
    std::memcpy(&block, static_cast<std::byte*>(p) - kAlignment, sizeof block);
    return block;
  }
};
using TestPolicy = RecordedSizeHeap<FixedArena>;

TEST(StatsHeap, CountsAScriptedSequence) {
  StatsHeap<TestPolicy> heap(1024);
  void* a = heap.malloc(1);    // block 16, arena 32
  void* b = heap.malloc(16);   // block 16, arena 32
  void* c = heap.malloc(17);   // block 32, arena 48
  void* d = heap.malloc(100);  // block 112, arena 128
  ASSERT_TRUE(a && b && c && d);
  heap.free(b);
  void* e = heap.malloc(0);  // block 16, arena 32
  ASSERT_NE(e, nullptr);
  void* f = heap.malloc(500);  // block 512, arena 528: 800 of 1024 used
  ASSERT_NE(f, nullptr);
  EXPECT_EQ(heap.malloc(300), nullptr);  // needs 320, 224 left
  heap.free(a);
  heap.free(f);

  HeapStatistics s = heap.statistics();
  EXPECT_EQ(s.allocations, 6u);
  EXPECT_EQ(s.frees, 3u);
  EXPECT_EQ(s.failed_allocations, 1u);
  EXPECT_EQ(s.bytes_requested, 1u + 16 + 17 + 100 + 0 + 500);
  EXPECT_EQ(s.bytes_allocated, 16u + 16 + 32 + 112 + 16 + 512);
  EXPECT_EQ(s.internal_bytes, s.bytes_allocated - s.bytes_requested);
  EXPECT_EQ(s.bytes_in_use, 32u + 112 + 16);          // c, d, e
  EXPECT_EQ(s.peak_bytes_in_use, 16u + 32 + 112 + 16 + 512);  // a, c, d, e, f
  std::map<std::size_t, std::uint64_t> histogram = {{16, 3}, {32, 1}, {112, 1}, {512, 1}};
  EXPECT_EQ(s.size_histogram, histogram);
  // No lastOutcome(): only failures are classified.
  EXPECT_EQ(s.satisfied[static_cast<int>(Outcome::failed)], 1u);
  EXPECT_EQ(s.satisfied[static_cast<int>(Outcome::immediate)], 0u);
  EXPECT_EQ(s.satisfied[static_cast<int>(Outcome::split)], 0u);
  // No freeBytes()/largestFreeBlock(): external fragmentation is not known.
  EXPECT_EQ(s.external_at_failure, 0);
}

TEST(StatsHeap, LargeBlockSizesReachTheHistogramToo) {
  StatsHeap<TestPolicy> heap(1 << 20);
  ASSERT_NE(heap.malloc(2000), nullptr);  // block 2000 (a multiple of 16)
  ASSERT_NE(heap.malloc(2000), nullptr);
  ASSERT_NE(heap.malloc(70000), nullptr);  // block 70000
  ASSERT_NE(heap.malloc(1024), nullptr);   // the edge of the flat array
  ASSERT_NE(heap.malloc(1025), nullptr);   // block 1040
  HeapStatistics s = heap.statistics();
  std::map<std::size_t, std::uint64_t> histogram = {
      {1024, 1}, {1040, 1}, {2000, 2}, {70000, 1}};
  EXPECT_EQ(s.size_histogram, histogram);
  // statistics() is a snapshot: calling it again does not double the counts.
  EXPECT_EQ(heap.statistics().size_histogram, histogram);
}

TEST(StatsHeap, OutOfMemoryPropagatesAsNullAndIsCounted) {
  StatsHeap<TestPolicy> heap(64);
  EXPECT_EQ(heap.malloc(SIZE_MAX), nullptr);
  EXPECT_EQ(heap.malloc(SIZE_MAX - 16), nullptr);
  EXPECT_EQ(heap.malloc(64), nullptr);  // the header does not fit
  void* p = heap.malloc(48);            // exactly the arena
  ASSERT_NE(p, nullptr);
  EXPECT_EQ(heap.malloc(1), nullptr);
  HeapStatistics s = heap.statistics();
  EXPECT_EQ(s.failed_allocations, 4u);
  EXPECT_EQ(s.satisfied[static_cast<int>(Outcome::failed)], 4u);
  EXPECT_EQ(s.allocations, 1u);
  EXPECT_EQ(s.bytes_requested, 48u);
}

TEST(StatsHeap, FreeOfNullIsIgnored) {
  StatsHeap<TestPolicy> heap(256);
  heap.free(nullptr);
  EXPECT_EQ(heap.statistics().frees, 0u);
}

// A fake policy that reports a scripted outcome for each malloc.
class ScriptedOutcomeHeap {
 public:
  explicit ScriptedOutcomeHeap(std::size_t) {}
  std::vector<Outcome> script;
  void* malloc(std::size_t) {
    last_ = script.at(next_++);
    if (last_ == Outcome::failed) return nullptr;
    return &blocks_[next_ % 8];
  }
  void free(void*) {}
  std::size_t getSize(void*) { return 16; }
  Outcome lastOutcome() const { return last_; }

 private:
  struct alignas(16) Block { std::byte bytes[16]; };
  Block blocks_[8];
  std::size_t next_ = 0;
  Outcome last_ = Outcome::immediate;
};
static_assert(ReportsOutcome<ScriptedOutcomeHeap>);

TEST(StatsHeap, CountsTheOutcomeTheSuperReports) {
  StatsHeap<ScriptedOutcomeHeap> heap(0);
  heap.script = {Outcome::immediate, Outcome::split, Outcome::split, Outcome::glue,
                 Outcome::defrag,    Outcome::failed, Outcome::immediate, Outcome::split};
  for (std::size_t i = 0; i < heap.script.size(); ++i) heap.malloc(8);
  HeapStatistics s = heap.statistics();
  EXPECT_EQ(s.satisfied[static_cast<int>(Outcome::immediate)], 2u);
  EXPECT_EQ(s.satisfied[static_cast<int>(Outcome::split)], 3u);
  EXPECT_EQ(s.satisfied[static_cast<int>(Outcome::glue)], 1u);
  EXPECT_EQ(s.satisfied[static_cast<int>(Outcome::defrag)], 1u);
  EXPECT_EQ(s.satisfied[static_cast<int>(Outcome::failed)], 1u);
  EXPECT_EQ(s.allocations, 7u);
  EXPECT_EQ(s.failed_allocations, 1u);
}

// A fake policy that fails on demand and reports its free space.
class FreeSpaceHeap {
 public:
  explicit FreeSpaceHeap(std::size_t) {}
  bool fail = false;
  std::size_t free_bytes = 0, largest = 0;
  void* malloc(std::size_t) { return fail ? nullptr : &block_; }
  void free(void*) {}
  std::size_t getSize(void*) { return 16; }
  std::size_t freeBytes() const { return free_bytes; }
  std::size_t largestFreeBlock() const { return largest; }

 private:
  alignas(16) std::byte block_[16];
};

TEST(StatsHeap, ExternalFragmentationIsTakenAtTheFirstFailure) {
  StatsHeap<FreeSpaceHeap> heap(0);
  heap.free_bytes = 1000;
  heap.largest = 100;
  ASSERT_NE(heap.malloc(16), nullptr);  // no failure yet: nothing taken
  EXPECT_EQ(heap.statistics().external_at_failure, 0);
  heap.free_bytes = 1000;
  heap.largest = 250;
  heap.fail = true;
  EXPECT_EQ(heap.malloc(300), nullptr);
  EXPECT_DOUBLE_EQ(heap.statistics().external_at_failure, 0.75);
  heap.largest = 1000;  // later failures do not overwrite the first
  EXPECT_EQ(heap.malloc(2000), nullptr);
  EXPECT_DOUBLE_EQ(heap.statistics().external_at_failure, 0.75);
  EXPECT_EQ(heap.statistics().failed_allocations, 2u);
}

TEST(StatsHeap, NoFreeSpaceAtFailureIsNoExternalFragmentation) {
  StatsHeap<FreeSpaceHeap> heap(0);
  heap.fail = true;
  EXPECT_EQ(heap.malloc(16), nullptr);
  EXPECT_EQ(heap.statistics().external_at_failure, 0);
}

TEST(StatsHeap, TimesEveryOperationUnlessTimingIsOff) {
  StatsHeap<TestPolicy> heap(1 << 16);
  std::vector<void*> blocks;
  for (int i = 0; i < 100; ++i) blocks.push_back(heap.malloc(32));
  EXPECT_EQ(heap.malloc(1 << 20), nullptr);  // failures are timed too
  for (void* p : blocks) heap.free(p);
  HeapStatistics s = heap.statistics();
  EXPECT_EQ(s.alloc_ns.count, 101u);
  EXPECT_EQ(s.free_ns.count, 100u);
  EXPECT_GT(s.alloc_ns.max, 0);
  EXPECT_LE(s.alloc_ns.p50, s.alloc_ns.p99);
  EXPECT_LE(s.alloc_ns.p99, s.alloc_ns.max);
  EXPECT_LE(s.alloc_ns.mean, s.alloc_ns.max);
  EXPECT_LE(s.free_ns.p99, s.free_ns.max);

  StatsHeap<TestPolicy> quiet(1 << 16);
  quiet.setMode(StatisticsMode::counts);
  EXPECT_EQ(quiet.mode(), StatisticsMode::counts);
  quiet.free(quiet.malloc(32));
  HeapStatistics q = quiet.statistics();
  EXPECT_EQ(q.allocations, 1u);  // counts stay on
  EXPECT_EQ(q.frees, 1u);
  EXPECT_EQ(q.alloc_ns.count, 0u);
  EXPECT_EQ(q.free_ns.count, 0u);
  EXPECT_EQ(q.alloc_ns.max, 0);
  EXPECT_FALSE(q.op_timers);
  EXPECT_TRUE(s.op_timers);
}

// The mode a run without statistics gets: bytes in use stay exact (the collectors pace
// by them) and nothing else is counted, timed or binned.
TEST(StatsHeap, BytesInUseModeKeepsOnlyExactBytesInUse) {
  StatsHeap<KnuthBuddyHeap<FixedArena>> heap(1 << 20);
  heap.setMode(StatisticsMode::bytesInUse);
  std::mt19937 random(29);
  std::vector<void*> live;
  std::size_t expected = 0;
  for (int i = 0; i < 20000; ++i) {
    if (!live.empty() && random() % 2) {
      std::size_t at = random() % live.size();
      expected -= heap.getSize(live[at]);
      heap.free(live[at]);
      live[at] = live.back();
      live.pop_back();
    } else if (void* p = heap.malloc(1 + random() % 3000)) {
      expected += heap.getSize(p);
      live.push_back(p);
    }
    ASSERT_EQ(heap.bytesInUse(), expected) << "after request " << i;
  }
  heap.free(nullptr);
  EXPECT_EQ(heap.bytesInUse(), expected);
  HeapStatistics s = heap.statistics();
  EXPECT_EQ(s.bytes_in_use, expected);
  EXPECT_EQ(s.allocations, 0u);
  EXPECT_EQ(s.frees, 0u);
  EXPECT_EQ(s.bytes_requested, 0u);
  EXPECT_EQ(s.bytes_allocated, 0u);
  EXPECT_EQ(s.peak_bytes_in_use, 0u);
  EXPECT_TRUE(s.size_histogram.empty());
  EXPECT_EQ(s.alloc_ns.count, 0u);
  EXPECT_FALSE(s.op_timers);
  for (void* p : live) heap.free(p);
  EXPECT_EQ(heap.bytesInUse(), 0u);
}

TEST(StatsHeap, ModeNoneCountsNothing) {
  StatsHeap<TestPolicy> heap(1 << 16);
  heap.setMode(StatisticsMode::none);
  heap.free(heap.malloc(32));
  void* kept = heap.malloc(100);
  ASSERT_NE(kept, nullptr);
  EXPECT_EQ(heap.bytesInUse(), 0u);
  EXPECT_EQ(heap.statistics().allocations, 0u);
}

TEST(StepHistogram, ExactBelow64ThenPowersOfTwo) {
  EXPECT_EQ(StepHistogram::bucketOf(0), 0u);
  EXPECT_EQ(StepHistogram::bucketOf(63), 63u);
  EXPECT_EQ(StepHistogram::bucketOf(64), 64u);
  EXPECT_EQ(StepHistogram::bucketOf(127), 64u);
  EXPECT_EQ(StepHistogram::bucketOf(128), 65u);
  EXPECT_EQ(StepHistogram::bucketOf(UINT64_MAX), StepHistogram::kBucketCount - 1);
  EXPECT_EQ(StepHistogram::lowerBoundOf(64), 64u);
  EXPECT_EQ(StepHistogram::lowerBoundOf(65), 128u);
  EXPECT_EQ(StepHistogram::lowerBoundOf(StepHistogram::kBucketCount - 1), std::uint64_t{1} << 63);
  StepHistogram h;
  for (std::uint64_t v : {0, 5, 5, 63, 64, 100, 200, 1000}) h.record(v);
  StepSummary s = h.summary();
  EXPECT_EQ(s.count, 8u);
  EXPECT_EQ(s.max, 1000u);
  EXPECT_DOUBLE_EQ(s.mean, 1437.0 / 8);
  std::map<std::uint64_t, std::uint64_t> expected = {{0, 1}, {5, 2}, {63, 1}, {64, 2}, {128, 1}, {512, 1}};
  EXPECT_EQ(s.histogram, expected);
}

// Knuth over 1 KiB (levels 0..6, 16 B to 1 KiB), a sequence whose steps follow from
// knuth_buddy_heap.h: a malloc inspects list heads from its level up and bisects
// down; a free costs 1 plus one per recombination.
TEST(StatsHeap, CountsKnuthsStepsPerRequest) {
  StatsHeap<KnuthBuddyHeap<FixedArena>> heap(1024);
  void* a = heap.malloc(16);  // heads 0..6 (7), then 6 bisections: 13
  void* b = heap.malloc(16);  // a's buddy on list 0: 1
  void* c = heap.malloc(32);  // the half left on list 1: 1
  ASSERT_TRUE(a && b && c);
  heap.free(b);  // a is busy: 1
  heap.free(a);  // glues with b: 2; the pair's buddy c is busy
  heap.free(c);  // glues at levels 1..5 back to the whole arena: 6
  HeapStatistics s = heap.statistics();
  ASSERT_TRUE(s.malloc_steps.counted);
  ASSERT_TRUE(s.free_steps.counted);
  EXPECT_EQ(s.malloc_steps.count, 3u);
  EXPECT_EQ(s.malloc_steps.max, 13u);
  EXPECT_DOUBLE_EQ(s.malloc_steps.mean, 5.0);
  EXPECT_EQ(s.malloc_steps.histogram, (std::map<std::uint64_t, std::uint64_t>{{1, 2}, {13, 1}}));
  EXPECT_EQ(s.free_steps.count, 3u);
  EXPECT_EQ(s.free_steps.max, 6u);
  EXPECT_EQ(s.free_steps.histogram, (std::map<std::uint64_t, std::uint64_t>{{1, 1}, {2, 1}, {6, 1}}));
  EXPECT_EQ(s.malloc_steps.max, KnuthBuddyHeap<FixedArena>::mallocStepBound(0, 6));
}

// The list policy (list_policy in policies.h): first fit from the head, the rest of a
// split pushed back at the head, frees pushed at the head. It counts malloc steps
// only (list nodes looked at).
TEST(StatsHeap, CountsTheListsBlocksWalked) {
  StatsHeap<CoalesceHeap<UnstructuredListHeap<CoalesceableHeap<FixedArena>>>> heap(1 << 16);
  void* objects[4];
  for (void*& p : objects) p = heap.malloc(32);  // each splits the one free block: 1 step
  heap.free(objects[0]);  // list: o0, rest
  heap.free(objects[2]);  // list: o2, o0, rest (neither has a free neighbour)
  EXPECT_NE(heap.malloc(256), nullptr);  // walks o2, o0, rest: 3; rest' goes to the head
  EXPECT_NE(heap.malloc(16), nullptr);   // rest' fits: 1
  EXPECT_EQ(heap.malloc(1 << 20), nullptr);  // walks rest'', o2, o0 and fails: 3
  HeapStatistics s = heap.statistics();
  ASSERT_TRUE(s.malloc_steps.counted);
  EXPECT_FALSE(s.free_steps.counted);
  EXPECT_EQ(s.malloc_steps.count, 7u);
  EXPECT_EQ(s.malloc_steps.max, 3u);
  EXPECT_EQ(s.malloc_steps.histogram, (std::map<std::uint64_t, std::uint64_t>{{1, 5}, {3, 2}}));
}

// A policy whose malloc takes a known time: the reported latency must be that time in
// nanoseconds, whatever the clock counts in (TSC ticks are not ns on any machine here).
class SlowHeap : public RecordedSizeHeap<FixedArena> {
 public:
  using RecordedSizeHeap<FixedArena>::RecordedSizeHeap;
  static constexpr std::uint64_t kSpinNs = 300'000;
  void* malloc(std::size_t size) {
    std::uint64_t until = CycleClock::monotonicNs() + kSpinNs;
    while (CycleClock::monotonicNs() < until) {
    }
    return RecordedSizeHeap<FixedArena>::malloc(size);
  }
};

TEST(StatsHeap, ReportsLatencyInNanoseconds) {
  StatsHeap<SlowHeap> heap(1 << 16);
  std::uint64_t before = CycleClock::monotonicNs();
  void* p = heap.malloc(32);
  std::uint64_t outside = CycleClock::monotonicNs() - before;
  ASSERT_NE(p, nullptr);
  HeapStatistics s = heap.statistics();
  ASSERT_EQ(s.alloc_ns.count, 1u);
  EXPECT_GE(s.alloc_ns.max, 0.99 * SlowHeap::kSpinNs);
  EXPECT_LE(s.alloc_ns.max, 1.01 * static_cast<double>(outside) + 1000);
}

TEST(CycleClock, CountsForwardAndConvertsToNanoseconds) {
  CycleClock clock;
  std::uint64_t t0 = clock.ticks(), ns0 = CycleClock::monotonicNs();
  while (CycleClock::monotonicNs() - ns0 < 2'000'000) {
  }
  std::uint64_t t1 = clock.ticks(), ns1 = CycleClock::monotonicNs();
  ASSERT_GT(t1, t0);
  double measured = static_cast<double>(t1 - t0) * clock.nsPerTick();
  EXPECT_NEAR(measured, static_cast<double>(ns1 - ns0), 0.02 * static_cast<double>(ns1 - ns0));
  if (!clock.usesTsc()) {
    EXPECT_EQ(clock.nsPerTick(), 1.0);
  }
}

// A fake with the optional members a policy may have: StatsHeap must leave them visible.
class RichHeap : public RecordedSizeHeap<FixedArena> {
 public:
  using RecordedSizeHeap<FixedArena>::RecordedSizeHeap;
  std::string checkInvariants() { return "checked"; }
  void setRelocator(RelocateFn fn, void* context) {
    relocate = fn;
    relocateContext = context;
  }
  RelocateFn relocate = nullptr;
  void* relocateContext = nullptr;
};

TEST(StatsHeap, LeavesTheSupersOtherMethodsVisible) {
  StatsHeap<RichHeap> heap(4096);
  EXPECT_EQ(heap.checkInvariants(), "checked");
  int context = 0;
  heap.setRelocator([](void*, void*, void*, std::size_t) {}, &context);
  EXPECT_EQ(heap.relocateContext, &context);
  void* p = heap.malloc(40);
  ASSERT_NE(p, nullptr);
  EXPECT_TRUE(heap.arenaContains(p));
  EXPECT_EQ(heap.arenaSize(), 4096u);
  EXPECT_EQ(heap.getSize(p), 48u);
}

TEST(StatsHeap, WrapsTheSystemAllocator) {
  StatsHeap<MallocHeap> heap(0);  // as makeHeap("malloc", ...) does
  void* p = heap.malloc(100);
  ASSERT_NE(p, nullptr);
  EXPECT_EQ(heap.malloc(SIZE_MAX), nullptr);
  std::size_t block = heap.getSize(p);
  EXPECT_GE(block, 100u);
  EXPECT_EQ(heap.statistics().bytes_in_use, block);
  heap.free(p);
  HeapStatistics s = heap.statistics();
  EXPECT_EQ(s.bytes_in_use, 0u);
  EXPECT_EQ(s.peak_bytes_in_use, block);
  EXPECT_EQ(s.size_histogram.at(block), 1u);
  EXPECT_EQ(s.failed_allocations, 1u);
}

}  // namespace
}  // namespace kith::heap
