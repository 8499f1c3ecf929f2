// Heap microbenchmark: every policy replays the same pseudo-random allocation
// sequences (heap/workload.h). Prints numbers; it is not a test.
//   jvm_like/POLICY      ns per malloc+free pair, JVM-like sizes (16-64 B mostly)
//   fragmenting/POLICY   ns per pair, alternating tiny and mid-size blocks
//   latency/POLICY       per-call latency through StatsHeap: p99 and worst case
//   dispatch/{direct,virtual}/POLICY
//                        the same jvm_like replay through StatsHeap<Policy> called
//                        directly, and through the type-erased heap::Heap the VM
//                        uses (one virtual call per malloc and per free)
#include <benchmark/benchmark.h>

#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "heap/heap.h"
#include "heap/policies.h"
#include "heap/stats_heap.h"
#include "heap/workload.h"

namespace {

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

// Seconds per malloc+free pair, shown with an SI prefix (e.g. 22.0ns).
benchmark::Counter timePerPair() {
  return benchmark::Counter(static_cast<double>(kAllocations),
                            benchmark::Counter::kIsIterationInvariantRate | benchmark::Counter::kInvert);
}

// Replays the steps once; every block is touched, as a constructor would.
template <class Heap>
void replay(Heap& heap, const std::vector<WorkloadStep>& steps, std::vector<void*>& slots,
            benchmark::State& state) {
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
  heap->setTiming(true);
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
  heap->setTiming(false);
  std::vector<void*> slots(kMaxLive);
  for (auto _ : state) replay(*heap, workload(SizeMix::jvmLike), slots, state);
  state.counters["time_per_pair"] = timePerPair();
}

void dispatchVirtual(benchmark::State& state, std::string policy) {
  auto heap = kith::heap::makeHeap(policy, kHeapBytes, /*timeLatency=*/false);
  std::vector<void*> slots(kMaxLive);
  for (auto _ : state) replay(*heap, workload(SizeMix::jvmLike), slots, state);
  state.counters["time_per_pair"] = timePerPair();
}

}  // namespace

int main(int argc, char** argv) {
  kith::heap::forEachPolicy([]<class P>(std::string_view name, std::string_view) {
    std::string n(name);
    benchmark::RegisterBenchmark(("jvm_like/" + n).c_str(), throughput<P>, SizeMix::jvmLike)
        ->Unit(benchmark::kMillisecond);
    benchmark::RegisterBenchmark(("fragmenting/" + n).c_str(), throughput<P>, SizeMix::fragmenting)
        ->Unit(benchmark::kMillisecond);
    benchmark::RegisterBenchmark(("latency/" + n).c_str(), latency<P>)
        ->Unit(benchmark::kMillisecond)->Iterations(5);
    benchmark::RegisterBenchmark(("dispatch/direct/" + n).c_str(), dispatchDirect<P>)
        ->Unit(benchmark::kMillisecond);
    benchmark::RegisterBenchmark(("dispatch/virtual/" + n).c_str(), dispatchVirtual, n)
        ->Unit(benchmark::kMillisecond);
    return false;
  });
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
