// The collector hooks of the object space. A collector works on the space's
// CollectedSpace (vm/collected_space.h), all it sees of it: it finds the live
// objects from its roots (forEachRoot, reported by the VM: vm/vm_binding.h) and
// frees the rest with its freeObject and releaseBox; gc/ holds the real ones
// (OccasionalCollector, ContinuousCollector). It is called:
//   - beforeAllocation at the allocation gate, before every heap.malloc (one
//     compare and one subtraction until the collector's budget is spent);
//   - collect(space, allocationFailure) when the heap cannot satisfy a request, and
//     collect(space, systemGc) for System.gc();
//   - allocationColour() for the gcBits of every new handle;
//   - writeBarrier(old), by the VM, before every overwrite of a reference slot
//     inside a heap object (see KITH_WRITE_BARRIER below);
//   - atBackEdge, by the VM, at every loop back-edge (one decrement until its
//     budget is spent).
// Everything called per operation is non-virtual and inline here; the collector is
// reached through a virtual call only when a budget is spent or the barrier finds
// work to do.
#pragma once

#include <cstddef>
#include <cstdint>
#include <limits>
#include <string_view>

#include "vm/handle_table.h"
#include "vm/pause_figures.h"
#include "vm/value.h"

namespace kith::vm {

class CollectedSpace;

// Why a collection ran: the cause the `--gc-log` line names, in the words of
// Java's unified logging (`-Xlog:gc`).
enum class GcCause : std::uint8_t {
  allocationFailure,  // the heap could not satisfy a request (the allocation gate)
  systemGc,           // the script called System.gc()
  heapOccupancy,      // bytes in use passed the occupancy threshold (--gc-threshold)
  stress,             // --gc-stress: before every allocation
  boxedIntegers,      // boxes of ints outside 48 bits piled up (value.h; not heap bytes)
};

constexpr const char* gcCauseName(GcCause cause) {
  switch (cause) {
    case GcCause::allocationFailure: return "Allocation Failure";
    case GcCause::systemGc: return "System.gc()";
    case GcCause::heapOccupancy: return "Heap Occupancy";
    case GcCause::stress: return "GC Stress";
    case GcCause::boxedIntegers: return "Boxed Integers";
  }
  return "?";
}

// The live graph's locality, measured in each collection's mark phase
// (gc/locality_meter.h): references scanned by distance bucket, pages touched.
struct LocalityStatistics {
  std::uint64_t cycles = 0;  // mark phases measured
  std::uint64_t references = 0, sameLine = 0, samePage = 0, kClose = 0, far = 0;
  std::uint64_t pagesTouchedTotal = 0, pagesTouchedMax = 0;  // distinct pages per cycle: sum, max
};

struct CollectorStatistics {
  std::uint64_t cycles = 0;
  std::uint64_t objectsFreed = 0;
  std::uint64_t bytesFreed = 0;
  // The pauses by wall time (what the mutator waited), and on the thread's CPU clock
  // (gc/pause_stamp.h): the collector's own work, without the time the host took
  // from the thread; its MMU is over windows of CPU time.
  PauseFigures wall, cpu;
  // The host's share: the largest wall - CPU time of any pause, and the pauses longer
  // than 100 µs by wall time but not by CPU time (< 0: not measured).
  double pauseHostGapMaxMs = 0;
  std::int64_t pausesLongByHost = -1;
  // Incremental collectors: cycles finished at once because the heap filled up
  // mid-cycle, and the number of slices (increments) run. < 0: not incremental.
  std::int64_t forcedCompletions = -1;
  std::int64_t slices = -1;
  std::int64_t deferredSlices = -1;  // slices put off to give the mutator its share of time
  // The most bytes (objects' requested sizes) any cycle's marking found reachable:
  // the peak live data as seen at collections; < 0 when not measured.
  std::int64_t peakLiveBytes = -1;
  LocalityStatistics locality;
};

class Collector {
 public:
  static constexpr std::size_t kNoBudget = std::numeric_limits<std::size_t>::max();

  virtual ~Collector() = default;
  // A full collection. Must not throw; may free objects (never move them itself —
  // moving is the heap's defragmenter's business).
  virtual void collect(CollectedSpace& space, GcCause cause) = 0;
  virtual std::string_view name() const = 0;
  virtual CollectorStatistics statistics() const { return {}; }
  // Boxed ints (vm/value.h) piled up past the space's limit, at a safe point: a full
  // collection, unless the collector does better (an incremental one starts a cycle).
  virtual void boxesPiledUp(CollectedSpace& space) { collect(space, GcCause::boxedIntegers); }

  // The allocation gate calls this before every heap.malloc, when every live
  // object is reachable from the roots. One compare and one subtraction until the
  // collector's budget is spent; then the collector decides (heap occupancy
  // threshold, --gc-stress, an incremental slice) and may run collect().
  void beforeAllocation(CollectedSpace& space, std::size_t bytes) {
    if (bytes < allocationBudget_) {
      allocationBudget_ -= bytes;
      return;
    }
    allocationBudgetSpent(space, bytes);
  }

  // The gcBits a newly allocated handle gets (the gate sets them).
  std::uint32_t allocationColour() const { return allocationColour_; }

  // THE WRITE BARRIER. Before the mutator overwrites a reference slot inside a heap
  // object (instance field, array element, closed upvalue, List/Map/StringBuilder
  // storage and the storage objects' slots), it passes the value being overwritten
  // here. It is a deletion barrier (Yuasa, snapshot-at-the-beginning), the one
  // gc::ContinuousCollector needs: while marking, a white object that loses a
  // reference is shaded gray, so everything reachable when the cycle's roots were
  // scanned gets marked. We chose it over Dijkstra's incremental-update (insertion)
  // barrier because
  //   - roots need no barrier and no rescan: the VM stack is written by nearly every
  //     instruction, and an insertion barrier would have to rescan the stack,
  //     globals and constants in a final stop-the-world pause whose length grows
  //     with the program — SATB's only atomic step is the root scan at the start;
  //   - marking terminates by construction (the snapshot plus black allocation is a
  //     fixed amount of work), which is what lets the pacer promise the cycle ends
  //     before the heap fills;
  //   - the price, floating garbage (what dies during a cycle waits for the next),
  //     is paid in heap headroom, which the pacer accounts for.
  // Exempt, because the old value is always nil/undefined or the slot is a root:
  // initialising stores into an object just allocated (factories, OP_CLOSURE,
  // closeUpvalues filling `closed`), bulk copies into a just-allocated storage
  // (the old storage is replaced through the barrier), and roots (VM stack, open
  // upvalues' stack slots, pinned roots). Globals are roots too, but their stores
  // go through the barrier anyway: it costs one test and keeps the invariant true
  // should root scanning ever become incremental.
  void writeBarrier(Value overwritten) {
    if (barrierActive_ && overwritten.holdsHandle()) shadeOverwritten(overwritten);
  }

  // The interpreter calls this at every loop back-edge: a bounded slice of an
  // incremental cycle in progress also runs in loops that do not allocate.
  // Returns true when the collector wants a slice (the caller then publishes its
  // stack top and calls backEdgeSlice).
  bool atBackEdge() { return --backEdgeBudget_ == 0; }
  void backEdgeSlice(CollectedSpace& space) {
    backEdgeBudget_ = kBackEdgesIdle;
    backEdgeBudgetSpent(space);
  }

 protected:
  static constexpr std::uint32_t kBackEdgesIdle = 1u << 30;

  // The budget is spent: the collector decides, and sets a new budget.
  virtual void allocationBudgetSpent(CollectedSpace&, std::size_t) { allocationBudget_ = kNoBudget; }
  // The barrier found a reference overwritten while it is active.
  virtual void shadeOverwritten(Value) {}
  virtual void backEdgeBudgetSpent(CollectedSpace&) {}

  std::size_t allocationBudget_ = 0;
  std::uint32_t allocationColour_ = 0;
  std::uint32_t backEdgeBudget_ = kBackEdgesIdle;
  bool barrierActive_ = false;
};

// The write barrier at a store site: the old contents of `slot` go through the
// barrier, then `value` is stored. `slot` is evaluated twice (read, then write):
// pass an lvalue without side effects.
#define KITH_WRITE_BARRIER(collector, slot, value) \
  do {                                             \
    (collector).writeBarrier(slot);                \
    (slot) = (value);                              \
  } while (0)

// Frees nothing: every object lives until the run ends.
class NoCollector final : public Collector {
 public:
  explicit NoCollector(std::string_view name = "none") : name_(name) {}
  void collect(CollectedSpace&, GcCause) override {}
  std::string_view name() const override { return name_; }

 private:
  std::string_view name_;
};

}  // namespace kith::vm
