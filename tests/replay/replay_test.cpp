// TraceReplayer (cli/replay.h) on every policy of this build: it makes exactly
// the trace's requests, follows blocks the buddy heaps move, counts a request the
// policy cannot meet and goes on (or stops, when asked), and reads both encodings
// to the same result.
#include "cli/replay.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

#include "heap/heap.h"
#include "heap/trace/trace.h"
#include "heap/workload.h"
#include "tests/heap/policy_test_name.h"

namespace kith::cli {
namespace {

using heap::TraceEvent;
using heap::TraceFormat;
using Kind = heap::TraceEventKind;

constexpr std::size_t kHeapBytes = std::size_t{16} << 20;

// Builds a trace in memory: objects numbered 0, 1, 2, ..., times 0, 1, 2, ...
class TraceBuilder {
 public:
  std::uint64_t alloc(std::uint64_t size) {
    events.push_back({Kind::alloc, time_++, nextId_, size});
    return nextId_++;
  }
  void free(std::uint64_t id) { events.push_back({Kind::free, time_++, id, 0}); }
  void failed(std::uint64_t size) { events.push_back({Kind::failed, time_++, 0, size}); }
  void resize(std::uint64_t id, std::uint64_t size, Kind kind = Kind::resize) {
    events.push_back({kind, time_++, id, size});
  }

  std::string encode(TraceFormat format) const {
    std::ostringstream out;
    {
      heap::TraceWriter writer(out, format);
      for (const TraceEvent& e : events) writer.record(e);
    }
    return out.str();
  }

  std::vector<TraceEvent> events;

 private:
  std::uint64_t time_ = 0, nextId_ = 0;
};

// The seeded JVM-like workload (heap/workload.h) as a trace; every object freed.
TraceBuilder workloadTrace(std::uint64_t seed, std::size_t allocations) {
  TraceBuilder t;
  std::vector<std::uint64_t> ids(1u << 12);
  for (const heap::WorkloadStep& s : heap::makeWorkload(heap::SizeMix::jvmLike, seed, allocations, 1u << 10)) {
    if (s.size) ids[s.slot] = t.alloc(s.size);
    else t.free(ids[s.slot]);
  }
  return t;
}

struct Replayed {
  ReplayResult result;
  heap::HeapStatistics statistics;
  std::string invariants;
};

Replayed replay(const std::string& policy, std::size_t heapBytes, const std::string& trace,
                bool stopOnFailure = false) {
  std::unique_ptr<heap::Heap> h = heap::makeHeap(policy, heapBytes, heap::StatisticsMode::counts);
  EXPECT_NE(h, nullptr) << policy;
  std::istringstream in(trace);
  heap::TraceReader reader(in);
  Replayed r;
  {
    TraceReplayer replayer(*h, stopOnFailure);
    r.result = replayer.run(reader);
    r.statistics = h->statistics();
    r.invariants = h->checkInvariants();
  }
  return r;
}

std::vector<std::string> policies() {
  std::vector<std::string> names;
  for (const heap::PolicyInfo& p : heap::policyList()) names.emplace_back(p.name);
  return names;
}

class ReplayOnEveryPolicy : public ::testing::TestWithParam<std::string> {};

TEST_P(ReplayOnEveryPolicy, MakesExactlyTheTracesRequests) {
  TraceBuilder t = workloadTrace(42, 20000);
  std::uint64_t allocs = 0, frees = 0, bytes = 0;
  for (const TraceEvent& e : t.events) {
    allocs += e.kind == Kind::alloc;
    frees += e.kind == Kind::free;
    if (e.kind == Kind::alloc) bytes += e.size;
  }
  Replayed r = replay(GetParam(), kHeapBytes, t.encode(TraceFormat::binary));
  EXPECT_EQ(r.result.error, "");
  EXPECT_EQ(r.result.events, t.events.size());
  EXPECT_EQ(r.result.allocations, allocs);
  EXPECT_EQ(r.result.frees, frees);
  EXPECT_EQ(r.result.failedAllocations, 0u);
  EXPECT_EQ(r.result.skippedFrees, 0u);
  EXPECT_EQ(r.result.liveAtEnd, 0u);
  EXPECT_FALSE(r.result.stoppedOnFailure);
  EXPECT_EQ(r.statistics.allocations, allocs);
  EXPECT_EQ(r.statistics.frees, frees);
  EXPECT_EQ(r.statistics.bytes_requested, bytes);
  EXPECT_EQ(r.statistics.bytes_in_use, 0u);
  EXPECT_EQ(r.statistics.failed_allocations, 0u);
  EXPECT_EQ(r.invariants, "");
}

TEST_P(ReplayOnEveryPolicy, TextAndBinaryGiveTheSameStatistics) {
  TraceBuilder t = workloadTrace(7, 5000);
  Replayed text = replay(GetParam(), kHeapBytes, t.encode(TraceFormat::text));
  Replayed binary = replay(GetParam(), kHeapBytes, t.encode(TraceFormat::binary));
  EXPECT_EQ(text.result.error, "");
  EXPECT_EQ(binary.result.error, "");
  EXPECT_EQ(text.statistics.satisfied, binary.statistics.satisfied);
  EXPECT_EQ(text.statistics.allocations, binary.statistics.allocations);
  // glibc's blocks' usable sizes depend on the rest of the process's allocations.
  if (GetParam() == "malloc") return;
  EXPECT_EQ(text.statistics.size_histogram, binary.statistics.size_histogram);
  EXPECT_EQ(text.statistics.peak_bytes_in_use, binary.statistics.peak_bytes_in_use);
  EXPECT_EQ(text.statistics.bytes_allocated, binary.statistics.bytes_allocated);
}

// The same trace replayed twice on the same policy gives the same counts.
TEST_P(ReplayOnEveryPolicy, IsDeterministic) {
  std::string trace = workloadTrace(3, 5000).encode(TraceFormat::binary);
  Replayed a = replay(GetParam(), kHeapBytes, trace);
  Replayed b = replay(GetParam(), kHeapBytes, trace);
  EXPECT_EQ(a.statistics.satisfied, b.statistics.satisfied);
  if (GetParam() == "malloc") return;  // as above: glibc's block sizes vary
  EXPECT_EQ(a.statistics.peak_bytes_in_use, b.statistics.peak_bytes_in_use);
}

// Objects left live at the end stay allocated until the replayer goes (the
// statistics describe the trace's end), then go back.
TEST_P(ReplayOnEveryPolicy, LiveObjectsAtTheEndAreCountedThenReleased) {
  TraceBuilder t;
  std::uint64_t a = t.alloc(100);
  t.alloc(200);
  t.alloc(300);
  t.free(a);
  Replayed r = replay(GetParam(), kHeapBytes, t.encode(TraceFormat::text));
  EXPECT_EQ(r.result.liveAtEnd, 2u);
  EXPECT_EQ(r.statistics.allocations, 3u);
  EXPECT_EQ(r.statistics.frees, 1u);
  EXPECT_GE(r.statistics.bytes_in_use, 500u);
}

// A request the fixed heap cannot meet is counted and the replay goes on; the
// object's free is skipped (and counted), later requests that fit still succeed.
TEST_P(ReplayOnEveryPolicy, AFailedRequestIsCountedNotFatal) {
  if (GetParam() == "malloc" || GetParam() == "jemalloc" || GetParam() == "mimalloc")
    GTEST_SKIP() << GetParam() << " is not fixed-size";
  TraceBuilder t;
  std::uint64_t small = t.alloc(64);
  std::uint64_t huge = t.alloc(std::size_t{1} << 20);  // more than the 64K heap
  t.failed(std::size_t{1} << 20);                      // the recorder's own failure: skipped
  std::uint64_t after = t.alloc(128);
  t.free(huge);
  t.free(small);
  t.free(after);
  Replayed r = replay(GetParam(), 64u << 10, t.encode(TraceFormat::binary));
  EXPECT_EQ(r.result.error, "");
  EXPECT_EQ(r.result.events, t.events.size());
  EXPECT_EQ(r.result.allocations, 3u);
  EXPECT_EQ(r.result.failedAllocations, 1u);
  EXPECT_EQ(r.result.recordedFailures, 1u);
  EXPECT_EQ(r.result.skippedFrees, 1u);
  EXPECT_EQ(r.result.frees, 3u);
  EXPECT_EQ(r.result.liveAtEnd, 0u);
  EXPECT_FALSE(r.result.stoppedOnFailure);
  EXPECT_EQ(r.statistics.allocations, 2u);
  EXPECT_EQ(r.statistics.frees, 2u);
  // Every failed call counts, as the VM's gate with no collector makes them: the
  // first try and the retry, and on the buddy heaps the defragmenting one.
  bool moves = GetParam() == "knuth" || GetParam() == "estranged";
  EXPECT_EQ(r.statistics.failed_allocations, moves ? 3u : 2u);
  EXPECT_EQ(r.statistics.satisfied[static_cast<int>(heap::Outcome::failed)], moves ? 3u : 2u);
  EXPECT_EQ(r.invariants, "");
}

TEST_P(ReplayOnEveryPolicy, StopOnFailureStopsAtTheFailingEvent) {
  if (GetParam() == "malloc" || GetParam() == "jemalloc" || GetParam() == "mimalloc")
    GTEST_SKIP() << GetParam() << " is not fixed-size";
  TraceBuilder t;
  t.alloc(64);
  t.alloc(std::size_t{1} << 20);
  t.alloc(128);
  Replayed r = replay(GetParam(), 64u << 10, t.encode(TraceFormat::text), true);
  EXPECT_TRUE(r.result.stoppedOnFailure);
  EXPECT_EQ(r.result.stopPosition, "line 3");  // the header is line 1
  EXPECT_EQ(r.result.events, 2u);
  EXPECT_EQ(r.result.allocations, 2u);
  EXPECT_EQ(r.statistics.allocations, 1u);

  Replayed b = replay(GetParam(), 64u << 10, t.encode(TraceFormat::binary), true);
  EXPECT_TRUE(b.result.stoppedOnFailure);
  EXPECT_EQ(b.result.stopPosition, "offset 10");  // header 9 bytes, then a one-byte event
}

// A realloc replays as the preloaded library makes it: in place when the policy's
// block holds the new size, whatever the recording policy did; otherwise a new
// block and the old one freed. The object keeps its id, and its free frees its
// last block.
TEST_P(ReplayOnEveryPolicy, AResizeStaysInPlaceWhenTheBlockHoldsItAndMovesOtherwise) {
  TraceBuilder t;
  std::uint64_t a = t.alloc(100);
  std::uint64_t b = t.alloc(40);
  t.resize(a, 1, Kind::move);          // recorded as a move; every policy's block holds 1 byte
  t.resize(a, 100000, Kind::resize);   // recorded in place; no policy's 100-byte block holds 100000
  t.resize(b, 40);
  t.free(a);
  t.free(b);
  for (TraceFormat format : {TraceFormat::binary, TraceFormat::text}) {
    Replayed r = replay(GetParam(), kHeapBytes, t.encode(format));
    EXPECT_EQ(r.result.error, "");
    EXPECT_EQ(r.result.resizes, 3u);
    EXPECT_EQ(r.result.resizedInPlace, 2u);
    EXPECT_EQ(r.result.resizedMoved, 1u);
    EXPECT_EQ(r.result.failedResizes + r.result.skippedResizes, 0u);
    EXPECT_EQ(r.result.allocations, 2u);  // alloc events
    EXPECT_EQ(r.statistics.allocations, 3u);  // the move's block too
    EXPECT_EQ(r.statistics.frees, 3u);
    EXPECT_EQ(r.statistics.bytes_in_use, 0u);
    EXPECT_EQ(r.result.liveAtEnd, 0u);
    EXPECT_EQ(r.invariants, "");
  }
}

// The program-like workload with reallocs among its requests: every policy ends
// empty and consistent, each move one more allocation and one more free.
TEST_P(ReplayOnEveryPolicy, AWorkloadWithReallocsEndsEmpty) {
  TraceBuilder t;
  std::vector<std::uint64_t> ids(1u << 12);
  heap::SeededRandom rng(5);
  for (const heap::WorkloadStep& s : heap::makeWorkload(heap::SizeMix::jvmLike, 5, 20000, 1u << 10)) {
    if (s.size) {
      ids[s.slot] = t.alloc(s.size);
      continue;
    }
    if (rng.chance(30)) t.resize(ids[s.slot], rng.between(1, 2000), rng.chance(50) ? Kind::move : Kind::resize);
    t.free(ids[s.slot]);
  }
  Replayed r = replay(GetParam(), kHeapBytes, t.encode(TraceFormat::binary));
  EXPECT_EQ(r.result.error, "");
  EXPECT_GT(r.result.resizes, 1000u);
  EXPECT_GT(r.result.resizedInPlace, 0u);
  EXPECT_GT(r.result.resizedMoved, 0u);
  EXPECT_EQ(r.result.resizedInPlace + r.result.resizedMoved, r.result.resizes);
  EXPECT_EQ(r.statistics.allocations, r.result.allocations + r.result.resizedMoved);
  EXPECT_EQ(r.statistics.frees, r.result.frees + r.result.resizedMoved);
  EXPECT_EQ(r.statistics.bytes_in_use, 0u);
  EXPECT_EQ(r.invariants, "");
}

// A resize the fixed heap cannot meet leaves the object in its block, as realloc's
// NULL does: counted, its later free frees that block; --stop-on-failure stops there.
TEST_P(ReplayOnEveryPolicy, AResizeThePolicyCannotMeetKeepsTheOldBlock) {
  if (GetParam() == "malloc" || GetParam() == "jemalloc" || GetParam() == "mimalloc")
    GTEST_SKIP() << GetParam() << " is not fixed-size";
  TraceBuilder t;
  std::uint64_t a = t.alloc(64);
  t.resize(a, std::size_t{1} << 20, Kind::move);
  t.free(a);
  std::uint64_t gone = t.alloc(std::size_t{1} << 20);  // fails here: its resize is skipped
  t.resize(gone, 8);
  Replayed r = replay(GetParam(), 64u << 10, t.encode(TraceFormat::binary));
  EXPECT_EQ(r.result.error, "");
  EXPECT_EQ(r.result.failedResizes, 1u);
  EXPECT_EQ(r.result.skippedResizes, 1u);
  EXPECT_EQ(r.result.failedAllocations, 1u);
  EXPECT_EQ(r.statistics.frees, 1u);
  EXPECT_EQ(r.statistics.bytes_in_use, 0u);
  EXPECT_EQ(r.invariants, "");

  Replayed s = replay(GetParam(), 64u << 10, t.encode(TraceFormat::text), true);
  EXPECT_TRUE(s.result.stoppedOnFailure);
  EXPECT_TRUE(s.result.stoppedOnResize);
  EXPECT_EQ(s.result.stopPosition, "line 3");
  EXPECT_EQ(s.result.stopSize, std::size_t{1} << 20);
}

INSTANTIATE_TEST_SUITE_P(Replay, ReplayOnEveryPolicy, ::testing::ValuesIn(policies()),
                         [](const auto& info) { return heap::testing::policyTestName(info.param); });

// A buddy heap defragments to meet a request only the relocator makes possible;
// the replayer's table follows every moved block, so the later frees of the moved
// objects free the right blocks and the heap ends empty and consistent.
class ReplayDefragmentation : public ::testing::TestWithParam<std::string> {};

TEST_P(ReplayDefragmentation, FollowsMovedBlocks) {
  constexpr std::size_t heapBytes = 64u << 10;
  std::size_t fits = 0;  // how many 16-byte blocks the heap holds
  {
    std::unique_ptr<heap::Heap> probe = heap::makeHeap(GetParam(), heapBytes, heap::StatisticsMode::counts);
    while (probe->malloc(16)) ++fits;
  }
  ASSERT_GT(fits, 1000u);
  TraceBuilder t;
  std::vector<std::uint64_t> ids;
  for (std::size_t i = 0; i < fits; ++i) ids.push_back(t.alloc(16));
  for (std::size_t i = 0; i < fits; i += 2) t.free(ids[i]);  // every other one: free space in crumbs
  std::uint64_t big = t.alloc(heapBytes / 4);
  for (std::size_t i = 1; i < fits; i += 2) t.free(ids[i]);
  t.free(big);

  for (TraceFormat format : {TraceFormat::binary, TraceFormat::text}) {
    Replayed r = replay(GetParam(), heapBytes, t.encode(format));
    EXPECT_EQ(r.result.error, "");
    EXPECT_EQ(r.result.failedAllocations, 0u);
    EXPECT_GE(r.statistics.satisfied[static_cast<int>(heap::Outcome::defrag)], 1u);
    EXPECT_EQ(r.statistics.frees, fits + 1);
    EXPECT_EQ(r.statistics.bytes_in_use, 0u);
    EXPECT_EQ(r.result.liveAtEnd, 0u);
    EXPECT_EQ(r.invariants, "");
  }
}

// A resize that only defragmenting can meet: the retry may move the resized object
// itself, and the replayer frees the block it has after the move, not before.
TEST_P(ReplayDefragmentation, AResizeFollowsItsOwnObjectMoved) {
  constexpr std::size_t heapBytes = 64u << 10;
  std::size_t fits = 0;
  {
    std::unique_ptr<heap::Heap> probe = heap::makeHeap(GetParam(), heapBytes, heap::StatisticsMode::counts);
    while (probe->malloc(16)) ++fits;
  }
  TraceBuilder t;
  std::vector<std::uint64_t> ids;
  for (std::size_t i = 0; i < fits; ++i) ids.push_back(t.alloc(16));
  for (std::size_t i = 0; i < fits; i += 2) t.free(ids[i]);
  for (std::size_t i = 1; i < fits; i += 64) t.resize(ids[i], heapBytes / 4, Kind::move);
  for (std::size_t i = 1; i < fits; i += 2) t.free(ids[i]);
  Replayed r = replay(GetParam(), heapBytes, t.encode(TraceFormat::binary));
  EXPECT_EQ(r.result.error, "");
  EXPECT_GE(r.statistics.satisfied[static_cast<int>(heap::Outcome::defrag)], 1u);
  EXPECT_GE(r.result.resizedMoved, 1u);
  EXPECT_EQ(r.statistics.bytes_in_use, 0u);
  EXPECT_EQ(r.invariants, "");
}

INSTANTIATE_TEST_SUITE_P(Replay, ReplayDefragmentation, ::testing::Values("knuth", "estranged"),
                         [](const auto& info) { return info.param; });

// The block table keeps every entry as it grows by remapping, from nothing or from
// a reservation (populated or not), and clear() empties it for reuse.
TEST(BlockTable, KeepsEveryEntryAcrossGrowth) {
  for (std::size_t reserved : {0u, 1000u, 200000u})
    for (bool populate : {false, true}) {
      BlockTable table;
      if (reserved) table.reserve(reserved, populate);
      constexpr std::size_t kCount = 300000;  // past the first mapping's 64K entries, and past each reservation
      for (std::size_t i = 0; i < kCount; ++i) table.push_back(reinterpret_cast<void*>(i * 16 + 8));
      ASSERT_EQ(table.size(), kCount);
      std::size_t wrong = 0;
      for (std::size_t i = 0; i < kCount; ++i) wrong += table[i] != reinterpret_cast<void*>(i * 16 + 8);
      EXPECT_EQ(wrong, 0u) << reserved << " " << populate;
      EXPECT_EQ(table.end() - table.begin(), static_cast<std::ptrdiff_t>(kCount));
      table.clear();
      EXPECT_EQ(table.size(), 0u);
      table.push_back(nullptr);
      EXPECT_EQ(table[0], nullptr);
    }
}

TEST(Replay, AMalformedTraceStopsWithThePosition) {
  std::unique_ptr<heap::Heap> h = heap::makeHeap("tlsf", kHeapBytes, heap::StatisticsMode::counts);
  std::istringstream in("# kith-trace 1\nA 0 0 16\nF 1 0\nF 2 0\n");
  heap::TraceReader reader(in);
  TraceReplayer replayer(*h);
  ReplayResult r = replayer.run(reader);
  EXPECT_EQ(r.error, "line 4: free of object 0, which is not live (freed twice?)");
  EXPECT_EQ(r.events, 2u);
}

// The replay baseline: every request met with a distinct address and counted, every
// free taken, nothing read or written (its addresses have no memory: a touch would
// crash), and a failure-free replay of a trace a real policy fails on.
TEST(Replay, TheNothingBaselineMeetsEveryRequestWithoutMemory) {
  EXPECT_TRUE(heap::isReplayBaseline("nothing"));
  EXPECT_FALSE(heap::isPolicy("nothing"));  // so run and the study's policy lists refuse it
  TraceBuilder t = workloadTrace(7, 20000);
  for (int i = 0; i < 64; ++i) t.alloc(std::size_t{1} << 20);  // 64 MiB more: no arena holds it
  Replayed r = replay("nothing", kHeapBytes, t.encode(TraceFormat::binary));
  EXPECT_EQ(r.result.error, "");
  EXPECT_EQ(r.result.failedAllocations, 0u);
  EXPECT_EQ(r.result.allocations, 20000u + 64);
  EXPECT_EQ(r.statistics.allocations, r.result.allocations);
  EXPECT_EQ(r.statistics.frees, r.result.frees);
  EXPECT_EQ(r.result.liveAtEnd, 64u);

  std::unique_ptr<heap::Heap> h = heap::makeHeap("nothing", kHeapBytes, heap::StatisticsMode::counts);
  void* a = h->malloc(16);
  void* b = h->malloc(16);
  EXPECT_NE(a, nullptr);
  EXPECT_NE(a, b);
  EXPECT_FALSE(h->setRelocator(nullptr, nullptr));  // replay never writes its blocks
  EXPECT_EQ(h->arenaBase(), nullptr);
  h->free(a);
  h->free(b);
}

// --bare: the statistics layer counts nothing, so a policy costs what it alone costs; the
// replay itself (its own counts, the blocks it gets) is the same as a counted one.
TEST(Replay, ABareReplayMakesTheSameCallsAndCountsNothing) {
  TraceBuilder t = workloadTrace(11, 20000);
  const std::string trace = t.encode(TraceFormat::binary);
  for (const heap::PolicyInfo& p : heap::policyList()) {
    if (p.name == "malloc" || p.name == "jemalloc" || p.name == "mimalloc") continue;  // not fixed-size
    Replayed counted = replay(std::string(p.name), kHeapBytes, trace);
    std::unique_ptr<heap::Heap> h = heap::makeHeap(p.name, kHeapBytes, heap::StatisticsMode::none);
    std::istringstream in(trace);
    heap::TraceReader reader(in);
    TraceReplayer replayer(*h, false);
    ReplayResult bare = replayer.run(reader);
    EXPECT_EQ(bare.allocations, counted.result.allocations) << p.name;
    EXPECT_EQ(bare.failedAllocations, counted.result.failedAllocations) << p.name;
    EXPECT_EQ(bare.liveAtEnd, counted.result.liveAtEnd) << p.name;
    EXPECT_EQ(h->checkInvariants(), "") << p.name;
    heap::HeapStatistics s = h->statistics();
    EXPECT_EQ(s.allocations, 0u) << p.name;
    EXPECT_EQ(s.frees, 0u) << p.name;
    EXPECT_GT(counted.statistics.allocations, 0u) << p.name;
  }
}

TEST(Replay, EveryPolicyOfTheBuildIsListedOrNoted) {
  // jemalloc and mimalloc are optional: each is either a policy or a note, never both.
  for (std::string_view name : {"jemalloc", "mimalloc"}) {
    bool listed = heap::isPolicy(name), noted = false;
    for (const heap::PolicyInfo& p : heap::leftOutPolicyList()) noted |= p.name == name;
    EXPECT_NE(listed, noted) << name;
  }
}

}  // namespace
}  // namespace kith::cli
