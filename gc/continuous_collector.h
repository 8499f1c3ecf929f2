// ContinuousCollector: an incremental tri-colour mark-sweep collector, the
// "continuous collection" of the paper's §2.6: garbage goes back to the heap policy
// in a trickle of small sweeps interleaved with allocation, not in one burst.
// NOT WIRED INTO THE VM YET: it needs the allocation colour and the write barrier
// at the VM's allocation gate and reference stores (/tmp/gc_needs_from_vm.txt);
// until then `--gc=continuous` must not select it. The tests drive it by hand.
//
// Colours live in Handle::gcBits:
//   white  neither bit set (0, what HandleTable gives a new handle): not reached;
//   gray   kGray: reached, on the gray stack, references not yet scanned;
//   black  kBlack: reached and scanned, or allocated while marking.
// The sweep works through the list of handles live when marking ended, so objects
// allocated during the sweep are not on it and need no colour of their own (the
// two alternating whites of Lua 5.4's lgc.h solve the same problem without that
// list, at the price of one more bit; see /tmp/gc_needs_from_vm.txt).
// THE INVARIANT (snapshot at the beginning, Yuasa): every object reachable when the
// cycle's roots were scanned is marked by the end of marking. Kept by
//   - scanning all roots atomically when the cycle starts;
//   - allocating black while marking (new objects hold only snapshot-reachable or
//     new references);
//   - the deletion barrier: before the mutator overwrites a reference in a heap
//     object while marking, the old referent is shaded gray (writeBarrier).
// Roots (stack, globals, ...) need no barrier: they were scanned at the snapshot.
//
// Phases: idle -> marking (increments of `workPerStep` objects scanned) ->
// sweeping (increments of `workPerStep` handles) -> idle. An increment runs each
// time `stepBytes` have been allocated (beforeAllocation). A cycle starts when bytes
// in use reach `startOccupancy` of the heap. collect() — the allocation gate's hook
// on failure, and System.gc() — finishes the cycle in progress and then runs a
// whole cycle at once, so it frees everything unreachable now.
#pragma once

#include <cstddef>
#include <cstdint>
#include <limits>
#include <string_view>
#include <vector>

#include "gc/gc_cause.h"
#include "heap/latency_histogram.h"
#include "vm/collector.h"
#include "vm/vm.h"

namespace kith::gc {

struct ContinuousCollectorOptions {
  double startOccupancy = 0.5;         // fraction of the heap in use that starts a cycle
  std::size_t heapBytes = 0;           // 0: the heap's arena size
  std::size_t stepBytes = 16 << 10;    // bytes allocated between increments
  std::size_t workPerStep = 512;       // objects scanned / handles swept per increment
};

class ContinuousCollector final : public vm::Collector {
 public:
  enum class Phase : std::uint8_t { idle, marking, sweeping };

  static constexpr std::uint32_t kGray = 1u << 1, kBlack = 1u << 2;  // white: neither

  explicit ContinuousCollector(ContinuousCollectorOptions options = {});

  void collect(vm::VM& vm) override { collect(vm, GcCause::allocationFailure); }
  void collect(vm::VM& vm, GcCause cause);
  std::string_view name() const override { return "continuous"; }
  vm::CollectorStatistics statistics() const override;

  // The allocation gate, before heap.malloc: an increment each stepBytes.
  void beforeAllocation(vm::VM& vm, std::size_t bytes) {
    if (bytes < allocationBudget_) {
      allocationBudget_ -= bytes;
      return;
    }
    allocationBudget_ = options_.stepBytes;
    step(vm);
  }
  // The gcBits a newly allocated handle must get (the gate sets them).
  std::uint32_t allocationColour() const { return phase_ == Phase::marking ? kBlack : 0; }
  // Before the mutator overwrites a reference slot of a heap object: shades the
  // value being overwritten while marking (the deletion barrier).
  void writeBarrier(vm::Value overwritten) {
    if (phase_ == Phase::marking && overwritten.isObject()) shade(overwritten.as.handle);
  }

  // One increment of work (may start a cycle). Public for tests and a future
  // background driver.
  void step(vm::VM& vm);
  // Starts a cycle now if idle (scans the roots).
  void startCycle(vm::VM& vm);
  // Runs the cycle in progress to its end, at once.
  void finishCycle(vm::VM& vm);

  Phase phase() const { return phase_; }
  static bool isWhite(const vm::Handle* h) { return (h->gcBits & (kGray | kBlack)) == 0; }
  static bool isBlack(const vm::Handle* h) { return (h->gcBits & kBlack) != 0; }
  std::uint64_t incrementsRun() const { return increments_; }
  // Most objects freed by one increment (the "trickle" the allocator sees).
  std::uint64_t largestSweepBurst() const { return largestBurst_; }

 private:
  void shade(vm::Handle* h) {
    if (!isWhite(h)) return;  // already gray or black
    h->gcBits = kGray;
    gray_.push_back(h);
  }
  std::size_t heapBytes(vm::VM& vm) const;
  // Scans up to `budget` gray objects; true when the gray stack is empty.
  bool markSome(std::size_t budget);
  void flipToSweep(vm::VM& vm);
  // Sweeps up to `budget` handles; true when the sweep is done.
  bool sweepSome(vm::VM& vm, std::size_t budget);

  ContinuousCollectorOptions options_;
  Phase phase_ = Phase::idle;
  std::size_t allocationBudget_ = 0;
  std::vector<vm::Handle*> gray_;
  // The handles live when marking ended: the sweep's worklist (a handle the sweep
  // frees is never revisited; handles allocated later are not on it).
  std::vector<vm::Handle*> sweepList_;
  std::size_t sweepCursor_ = 0;

  std::uint64_t cycles_ = 0, increments_ = 0, objectsFreed_ = 0, bytesFreed_ = 0, largestBurst_ = 0;
  heap::LatencyHistogram pauseNs_;  // one sample per increment or collect()
};

}  // namespace kith::gc
