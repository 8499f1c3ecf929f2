// Heap microbenchmark: every policy replays the same pseudo-random allocation
// sequences (heap/workload.h). Prints numbers; it is not a test.
//   jvm_like/POLICY      ns per malloc+free pair, JVM-like sizes (16-64 B mostly)
//   fragmenting/POLICY   ns per pair, alternating tiny and mid-size blocks
//   storage/POLICY       ns per pair, AWFY Storage's shape: trees of arrays of
//                        random lengths, dropped many trees at a time
//   latency/POLICY       per-call latency through StatsHeap: p99 and worst case
//   dispatch/{direct,virtual}/POLICY
//                        the same jvm_like replay through StatsHeap<Policy> called
//                        directly, and through the type-erased heap::Heap the VM
//                        uses (one virtual call per malloc and per free)
//   composition/SEQUENCE/ALLOCATOR
//                        the Heap Layers paper's comparison (§6): each composed
//                        policy against the allocator it models, on the same
//                        sequence — lea against glibc malloc (dlmalloc's
//                        descendant), kingsley against a hand-written Kingsley
//                        (KingsleyBsdHeap, heap/classic/kingsley_bsd_heap.h),
//                        and beside them kingsley_coalescing (§8: Kingsley
//                        plus splitting and coalescing). time_per_pair is the
//                        mean ns per malloc+free, untimed calls; a second, timed
//                        pass gives malloc_p99_ns, malloc_max_ns, free_max_ns;
//                        pairs is the sequence's mallocs; high_water_bytes (not
//                        for glibc) the highest arena offset a block reached on
//                        a fresh heap, the paper's memory consumption. SEQUENCE is
//                        jvm_like, fragmenting, storage, or a recorded trace:
//   --replay=NAME=PATH   (repeatable, before the benchmark flags) adds the trace
//                        at PATH (`kith run --trace=PATH ...`, heap/trace/trace.h) as
//                        sequence NAME; objects live at its end are freed after it
//   --passes=N           (before the benchmark flags) each composition benchmark
//                        replays its sequence exactly N times instead of as often
//                        as its time allows, so an instruction count (cachegrind)
//                        of N=2 minus N=1 is exactly one pass
#include <benchmark/benchmark.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <memory>
#include <string>
#include <unordered_map>
#include <vector>

#include "heap/classic/kingsley_bsd_heap.h"
#include "heap/layers/fixed_arena.h"
#include "heap/heap.h"
#include "heap/statistics/latency_histogram.h"
#include "heap/policies.h"
#include "heap/statistics/stats_heap.h"
#include "heap/trace/trace.h"
#include "heap/workload.h"

namespace {

using kith::heap::alignUp;
using kith::heap::SizeMix;
using kith::heap::WorkloadStep;

constexpr std::size_t kHeapBytes = 64u << 20;
constexpr std::size_t kMaxLive = 4000;
constexpr std::size_t kAllocations = 200'000;

const std::vector<WorkloadStep>& workload(SizeMix mix) {
  static const auto jvm = kith::heap::makeWorkload(SizeMix::jvmLike, 1, kAllocations, kMaxLive);
  static const auto frag = kith::heap::makeWorkload(SizeMix::fragmenting, 2, kAllocations, kMaxLive);
  return mix == SizeMix::jvmLike ? jvm : frag;
}

// AWFY Storage's allocation shape: each tree is 1365 arrays of 4 (88 B in Kith)
// over 4096 leaf arrays of 1-10 elements (40-184 B), like `buildTreeDepth(7)`; a
// collection every `treesPerCollection` trees frees every tree but the newest, in
// allocation order (a sweep's address order, roughly).
std::vector<WorkloadStep> makeStorageLike(std::size_t trees, std::size_t treesPerCollection, std::size_t& slots) {
  kith::heap::SeededRandom rng(74755);
  std::vector<WorkloadStep> steps;
  std::vector<std::uint32_t> live, freeSlots;
  std::uint32_t next = 0;
  auto slot = [&] {
    if (freeSlots.empty()) return next++;
    std::uint32_t s = freeSlots.back();
    freeSlots.pop_back();
    return s;
  };
  for (std::size_t t = 0; t < trees; ++t) {
    std::vector<std::uint32_t> tree;
    for (int i = 0; i < 1365 + 4096; ++i) {
      std::uint32_t size = i < 1365 ? 88 : static_cast<std::uint32_t>(24 + 16 * rng.between(1, 10));
      tree.push_back(slot());
      steps.push_back({tree.back(), size});
    }
    if (t % treesPerCollection == treesPerCollection - 1) {
      for (std::uint32_t s : live) steps.push_back({s, 0});
      freeSlots.insert(freeSlots.end(), live.rbegin(), live.rend());
      live.clear();
    }
    live.insert(live.end(), tree.begin(), tree.end());
  }
  for (std::uint32_t s : live) steps.push_back({s, 0});
  slots = next;
  return steps;
}

// A named allocation sequence every allocator of a comparison replays.
struct Sequence {
  std::string name;
  std::vector<WorkloadStep> steps;
  std::size_t slots = 0;
  std::size_t allocations = 0;
  std::size_t heapBytes = 0;  // the fixed heap each allocator gets
};

// The heap: 64 MiB, or four times the peak of live bytes if that is more (room
// for kingsley, which rounds every block up to a power of two, never coalesces).
Sequence fromWorkload(std::string name, std::vector<WorkloadStep> steps, std::size_t slots) {
  Sequence q{std::move(name), std::move(steps), slots, 0, 0};
  std::vector<std::uint32_t> sizeOf(slots);
  std::size_t live = 0, peak = 0;
  for (const WorkloadStep& s : q.steps) {
    if (s.size) {
      ++q.allocations;
      sizeOf[s.slot] = s.size;
      peak = std::max(peak, live += s.size);
    } else {
      live -= sizeOf[s.slot];
    }
  }
  q.heapBytes = std::max(kHeapBytes, alignUp(4 * peak, std::size_t{1} << 20));
  return q;
}

// A recorded trace as a sequence: object ids become reusable slots, failed
// requests are left out, and what is live at the end is freed after it, so each
// benchmark iteration starts from an empty heap.
bool readTraceSequence(const std::string& name, const std::string& path, Sequence& out) {
  std::ifstream in(path);
  if (!in) {
    std::fprintf(stderr, "heap_bench: cannot open %s\n", path.c_str());
    return false;
  }
  std::string error;
  std::vector<kith::heap::TraceEvent> events = kith::heap::readTrace(in, &error);
  if (!error.empty()) {
    std::fprintf(stderr, "heap_bench: %s: %s\n", path.c_str(), error.c_str());
    return false;
  }
  std::unordered_map<std::uint64_t, std::uint32_t> slotOf;
  std::vector<std::uint32_t> freeSlots;
  std::vector<WorkloadStep> steps;
  std::uint32_t next = 0;
  for (const kith::heap::TraceEvent& e : events) {
    if (e.kind == kith::heap::TraceEventKind::alloc) {
      std::uint32_t s = next;
      if (freeSlots.empty()) ++next;
      else s = freeSlots.back(), freeSlots.pop_back();
      slotOf.emplace(e.id, s);
      steps.push_back({s, static_cast<std::uint32_t>(e.size == 0 ? 1 : e.size)});
    } else if (e.kind == kith::heap::TraceEventKind::free) {
      auto it = slotOf.find(e.id);
      steps.push_back({it->second, 0});
      freeSlots.push_back(it->second);
      slotOf.erase(it);
    }
  }
  for (auto [id, s] : slotOf) steps.push_back({s, 0});
  out = fromWorkload(name, std::move(steps), next);
  return true;
}

std::vector<Sequence>& sequences() {
  static std::vector<Sequence> all;
  return all;
}

// Seconds per malloc+free pair, shown with an SI prefix (e.g. 22.0ns).
benchmark::Counter timePerPair(std::size_t pairs = kAllocations) {
  return benchmark::Counter(static_cast<double>(pairs),
                            benchmark::Counter::kIsIterationInvariantRate | benchmark::Counter::kInvert);
}

// Replays the steps once; every block is touched, as a constructor would. The slots
// are reached through a local pointer: were the vector's own data pointer read in the
// loop, a policy's stores might alias it, and it would be reloaded on every call where
// the replay is not inlined (more for one allocator than another on the same sequence).
template <class Heap>
void replay(Heap& heap, const std::vector<WorkloadStep>& steps, std::vector<void*>& slotVector,
            benchmark::State& state) {
  void** const slots = slotVector.data();
  for (const WorkloadStep& s : steps) {
    if (s.size) {
      void* p = heap.malloc(s.size);
      if (!p) {
        state.SkipWithError("heap exhausted");
        return;
      }
      *static_cast<char*>(p) = 1;
      slots[s.slot] = p;
    } else {
      heap.free(slots[s.slot]);
    }
  }
}

template <class Heap>
void replay(Heap& heap, const Sequence& q, std::vector<void*>& slots, benchmark::State& state) {
  replay(heap, q.steps, slots, state);
}

// The same replay with every call timed: per-call p99 and max.
template <class Heap>
bool replayTimed(Heap& heap, const Sequence& q, std::vector<void*>& slots, kith::heap::LatencyHistogram& mallocs,
                 kith::heap::LatencyHistogram& frees) {
  using Clock = std::chrono::steady_clock;
  for (const WorkloadStep& s : q.steps) {
    auto start = Clock::now();
    if (s.size) {
      void* p = heap.malloc(s.size);
      mallocs.record(static_cast<std::uint64_t>((Clock::now() - start).count()));
      if (!p) return false;
      *static_cast<char*>(p) = 1;
      slots[s.slot] = p;
    } else {
      heap.free(slots[s.slot]);
      frees.record(static_cast<std::uint64_t>((Clock::now() - start).count()));
    }
  }
  return true;
}

// The paper's memory consumption (Table 6): the highest arena offset any block
// reached, over one replay of the sequence on a fresh heap of an allocator with an
// arena (what an sbrk-based allocator would have taken from the system).
template <class Allocator>
std::size_t highWaterBytes(const Sequence& q) {
  auto heap = std::make_unique<Allocator>(q.heapBytes);
  std::vector<void*> slots(q.slots);
  std::size_t mark = 0;
  for (const WorkloadStep& s : q.steps) {
    if (s.size == 0) {
      heap->free(slots[s.slot]);
      continue;
    }
    void* p = heap->malloc(s.size);
    if (p == nullptr) return 0;
    slots[s.slot] = p;
    const auto offset = static_cast<std::size_t>(static_cast<std::byte*>(p) - heap->arenaBase());
    mark = std::max(mark, offset + heap->getSize(p));
  }
  return mark;
}

// The allocators of the paper's comparison, composed and original.
template <class Allocator>
void composition(benchmark::State& state, const Sequence* q) {
  auto heap = std::make_unique<Allocator>(q->heapBytes);
  std::vector<void*> slots(q->slots);
  for (auto _ : state) replay(*heap, *q, slots, state);
  state.counters["time_per_pair"] = timePerPair(q->allocations);
  state.counters["pairs"] = static_cast<double>(q->allocations);  // per pass: divides its instructions
  kith::heap::LatencyHistogram mallocs, frees;
  if (!replayTimed(*heap, *q, slots, mallocs, frees)) {
    state.SkipWithError("heap exhausted");
    return;
  }
  state.counters["malloc_p99_ns"] = mallocs.valueAtQuantile(0.99);
  state.counters["malloc_max_ns"] = static_cast<double>(mallocs.max());
  state.counters["free_max_ns"] = static_cast<double>(frees.max());
  if constexpr (requires(Allocator& a) { a.arenaBase(); })
    state.counters["high_water_bytes"] = static_cast<double>(highWaterBytes<Allocator>(*q));
}

template <class Policy>
void sequenceThroughput(benchmark::State& state, const Sequence* q) {
  auto heap = std::make_unique<Policy>(q->heapBytes);
  std::vector<void*> slots(q->slots);
  for (auto _ : state) replay(*heap, *q, slots, state);
  state.counters["time_per_pair"] = timePerPair(q->allocations);
}

template <class Policy>
void throughput(benchmark::State& state, SizeMix mix) {
  auto heap = std::make_unique<Policy>(kHeapBytes);
  const auto& steps = workload(mix);
  std::vector<void*> slots(kMaxLive);
  for (auto _ : state) replay(*heap, steps, slots, state);
  state.counters["time_per_pair"] = timePerPair();
}

template <class Policy>
void latency(benchmark::State& state) {
  auto heap = std::make_unique<kith::heap::StatsHeap<Policy>>(kHeapBytes);
  heap->setMode(kith::heap::StatisticsMode::countsAndTimes);
  std::vector<void*> slots(kMaxLive);
  for (auto _ : state) {
    replay(*heap, workload(SizeMix::jvmLike), slots, state);
    replay(*heap, workload(SizeMix::fragmenting), slots, state);
  }
  auto s = heap->statistics();
  state.counters["malloc_p99_ns"] = s.alloc_ns.p99;
  state.counters["malloc_max_ns"] = s.alloc_ns.max;
  state.counters["free_p99_ns"] = s.free_ns.p99;
  state.counters["free_max_ns"] = s.free_ns.max;
}

template <class Policy>
void dispatchDirect(benchmark::State& state) {
  auto heap = std::make_unique<kith::heap::StatsHeap<Policy>>(kHeapBytes);
  heap->setMode(kith::heap::StatisticsMode::counts);
  std::vector<void*> slots(kMaxLive);
  for (auto _ : state) replay(*heap, workload(SizeMix::jvmLike), slots, state);
  state.counters["time_per_pair"] = timePerPair();
}

void dispatchVirtual(benchmark::State& state, std::string policy) {
  auto heap = kith::heap::makeHeap(policy, kHeapBytes, kith::heap::StatisticsMode::counts);
  std::vector<void*> slots(kMaxLive);
  for (auto _ : state) replay(*heap, workload(SizeMix::jvmLike), slots, state);
  state.counters["time_per_pair"] = timePerPair();
}

}  // namespace

int main(int argc, char** argv) {
  // Every heap built here populated up front: latencies measure the allocator, not first-touch faults.
  kith::heap::ArenaPretouch pretouch(true);
  // --replay=NAME=PATH flags are ours; the rest go to Google Benchmark.
  std::vector<std::pair<std::string, std::string>> traces;
  long passes = 0;  // 0: as many as Google Benchmark's timing wants
  int kept = 1;
  for (int i = 1; i < argc; ++i) {
    std::string arg = argv[i];
    if (arg.rfind("--replay=", 0) == 0) {
      std::string spec = arg.substr(9);
      std::size_t eq = spec.find('=');
      if (eq == std::string::npos || eq == 0) {
        std::fprintf(stderr, "heap_bench: --replay wants NAME=PATH, not %s\n", spec.c_str());
        return 1;
      }
      traces.emplace_back(spec.substr(0, eq), spec.substr(eq + 1));
    } else if (arg.rfind("--passes=", 0) == 0) {
      char* end = nullptr;
      passes = std::strtol(arg.c_str() + 9, &end, 10);
      if (*end != '\0' || passes < 1) {
        std::fprintf(stderr, "heap_bench: --passes wants a positive count, not %s\n", arg.c_str() + 9);
        return 1;
      }
    } else {
      argv[kept++] = argv[i];
    }
  }
  argc = kept;

  std::size_t storageSlots = 0;
  auto storage = makeStorageLike(200, 32, storageSlots);
  sequences().push_back(fromWorkload("jvm_like", workload(SizeMix::jvmLike), kMaxLive));
  sequences().push_back(fromWorkload("fragmenting", workload(SizeMix::fragmenting), kMaxLive));
  sequences().push_back(fromWorkload("storage", std::move(storage), storageSlots));
  for (auto& [name, path] : traces) {
    Sequence q;
    if (!readTraceSequence(name, path, q)) return 1;
    sequences().push_back(std::move(q));
  }

  kith::heap::forEachPolicy([]<class P>(std::string_view name, std::string_view) {
    std::string n(name);
    benchmark::RegisterBenchmark(("jvm_like/" + n).c_str(), throughput<P>, SizeMix::jvmLike)
        ->Unit(benchmark::kMillisecond);
    benchmark::RegisterBenchmark(("fragmenting/" + n).c_str(), throughput<P>, SizeMix::fragmenting)
        ->Unit(benchmark::kMillisecond);
    benchmark::RegisterBenchmark(("storage/" + n).c_str(), sequenceThroughput<P>, &sequences()[2])
        ->Unit(benchmark::kMillisecond);
    benchmark::RegisterBenchmark(("latency/" + n).c_str(), latency<P>)
        ->Unit(benchmark::kMillisecond)->Iterations(5);
    benchmark::RegisterBenchmark(("dispatch/direct/" + n).c_str(), dispatchDirect<P>)
        ->Unit(benchmark::kMillisecond);
    benchmark::RegisterBenchmark(("dispatch/virtual/" + n).c_str(), dispatchVirtual, n)
        ->Unit(benchmark::kMillisecond);
    return false;
  });
  for (const Sequence& q : sequences()) {
    auto add = [&]<class A>(const char* allocator) {
      auto* b = benchmark::RegisterBenchmark(("composition/" + q.name + "/" + allocator).c_str(),
                                             composition<A>, &q);
      b->Unit(benchmark::kMillisecond);
      if (passes) b->Iterations(passes);
    };
    add.template operator()<kith::heap::LeaPolicy>("lea");
    add.template operator()<kith::heap::MallocPolicy>("glibc");
    add.template operator()<kith::heap::KingsleyPolicy>("kingsley");
    add.template operator()<kith::heap::KingsleyBsdHeap>("kingsley_reference");
    add.template operator()<kith::heap::KingsleyCoalescingPolicy>("kingsley_coalescing");
  }
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
