// ContinuousCollector: an incremental tri-colour mark-sweep collector, the
// "continuous collection" of the paper's §2.6: garbage goes back to the heap policy
// in a trickle of small sweeps interleaved with allocation, not in one burst.
// `--gc=continuous`. The VM drives it through vm::Collector's hooks: the allocation
// gate (beforeAllocation, allocationColour), the write barrier at every reference
// store, and loop back-edges (atBackEdge).
//
// Colours live in Handle::gcBits (two whites, as in Lua 5.4's lgc.h):
//   white  the current white (kWhite0 or kWhite1; or 0, a handle no gate coloured):
//          not reached (yet);
//   gray   kGray: reached, on the gray stack, references not yet scanned;
//   black  kBlack: reached and scanned, or allocated while marking.
// When marking ends the current white flips: the old white now means garbage, and
// objects allocated during the sweep get the new white, so the sweep — a cursor
// walking the handle table chunk by chunk — frees exactly the old-white objects and
// turns black ones new-white, in any order and without a list of handles.
// THE INVARIANT (snapshot at the beginning, Yuasa): every object reachable when the
// cycle's roots were scanned is marked by the end of marking. Kept by
//   - scanning all roots atomically when the cycle starts;
//   - allocating black while marking (new objects hold only snapshot-reachable or
//     new references);
//   - the deletion barrier (vm::Collector::writeBarrier, KITH_WRITE_BARRIER): before
//     the mutator overwrites a reference in a heap object while marking, the old
//     referent is shaded gray.
// Roots (stack, globals, ...) need no barrier: they were scanned at the snapshot.
//
// Phases: idle -> marking (slices of `workPerSlice` work units: a unit is an object
// scanned, or kMarkSlotsPerWorkUnit of its reference slots; long arrays are scanned in
// pieces) -> sweeping
// (slices of `workPerSlice` work units: kWorkUnitsPerFree units a heap free, one unit
// kSweepSlotsPerWorkUnit handle slots visited — a survivor only gets its colour
// rewritten, a free slot is skipped) -> idle. Under time pacing a slice also ends
// near `sliceTimeLimit` of the thread's CPU time (the clock is read every few units,
// as many as take a few µs: slice_clock.h): what a unit costs depends on where the objects lie — marking
// objects laid out in allocation order takes a few ns a unit, chasing pointers
// across a large live set (hash chains, graphs) ten times that — so a budget of
// units alone bounds the work of a slice but not its length. A cycle starts when the heap's
// bytes in use reach `startOccupancy` of the heap (checked, as OccasionalCollector
// does, each time an allocation budget of half the remaining gap is spent).
// PACING, by allocation: when a cycle starts with H bytes of the heap free, a slice
// runs every max(kMinSliceBytes, (H / 2) / (slices the cycle needs)) requested
// bytes, where the slices needed are as many as the last cycle took (the first
// cycle assumes every handle is marked): the cycle is done when half the free space
// has been requested — at most all of it in blocks, even for a policy that rounds
// requests up to twice their size (kingsley) — so it finishes before the heap fills
// unless the estimate was short. A cycle still running when its allowance is spent
// (more live objects than the last one marked) gets a slice every quarter of those
// bytes from then on, to catch up; one that cannot is forced (counted, below).
// A slice also runs every kBackEdgesPerSlice loop back-edges while a cycle is in
// progress. PACING, by time (a mutator-utilization governor, on the thread's CPU
// time: GovernorClock; what the host takes is neither side's): a slice is deferred
// (the mutator runs on; the gate looks again after a quarter of a slice's bytes)
// when it is due less than 3/2 times the last pause's length (a slice's, or the
// root scan's) after it — that length capped at kSliceOutlierFactor times the
// typical slice, so that one unusually long pause does not stall the cycle — or
// when, counted at the slice time limit, it would bring the GC time of some window
// of 1 ms to more than 35% (gc_time_window.h): the minimum mutator utilization at
// 1 ms stays at least 0.65 while slices keep to their limit (a margin for what
// the CPU clock is charged of the host's stalls, and for cold caches after them). The last-pause rule
// alone let a run of slices longer than the typical one take 48% of a millisecond
// (gcbench: sweep slices of 2 µs, then marking slices of 30). The governor
// holds past the cycle's allocation allowance too (a program that allocates in
// bursts gets its slices only in the bursts), as long as the heap's real
// occupancy, re-read every kOccupancyRecheckSlices slices' worth of requests,
// leaves more than an eighth of the free space at the cycle's start and room for
// its remaining slices at full speed; then slices run as due. If the heap fills
// mid-cycle anyway, the allocation gate's collect() finishes the cycle at once (a
// forced completion, counted) and then runs a whole cycle, so an allocation fails
// only when nothing unreachable is left.
// collect() for System.gc() does the same (without counting).
// PACING MODES (`--gc-pacing`). `time` (the default) is all of the above. `work`
// schedules slices by allocation volume alone: no governor (no slice is ever
// deferred) and no back-edge slices, so when a slice runs — and hence every count
// the run reports (cycles, slices, frees, how requests were satisfied, peak bytes)
// — is a function of the program's allocation sequence only, identical run to run.
// The study uses `work` for its count figures and `time` for pauses and MMU.
#pragma once

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <limits>
#include <string>
#include <string_view>
#include <vector>

#include "gc/collector_options.h"
#include "gc/cycle_recorder.h"
#include "gc/gc_time_window.h"
#include "gc/gray_stack.h"
#include "gc/handle_sweep.h"
#include "gc/locality_meter.h"
#include "gc/pause_recorder.h"
#include "gc/pause_stamp.h"
#include "gc/prefetch_fifo.h"
#include "gc/slice_clock.h"
#include "gc/thread_cpu_clock.h"
#include "vm/collector.h"
#include "vm/collected_space.h"

namespace kith::gc {

// When slices run (see PACING MODES above).
enum class GcPacing : std::uint8_t {
  time,  // allocation pacing plus the mutator-utilization governor and back-edge slices
  work,  // allocation volume alone: deterministic counts
};

// The shared options (collector_options.h) and the schedule. `stress` runs a slice
// at every allocation and a new cycle as soon as one ends. `verify` checks, at the
// end of marking, that every object reachable from the roots is black (the
// invariant); stress included: a cycle then spans at least (handle table slots /
// workPerSlice) allocations, so the check stays affordable.
struct ContinuousCollectorOptions : CollectorOptions {
  static constexpr double kDefaultStartOccupancy = 0.5;
  // Work units per slice by default: under work pacing they are the slice's whole
  // bound; under time pacing the CPU-time limit below ends most slices first, and the
  // larger budget spreads the clock readings (the thread's CPU clock is a system call,
  // about two a slice) over more work: at 1,024 units binary_trees' ~45,700 slices paid
  // ~82,000 readings, 5% of its run time; at 4,096 its GC time fell 255 -> 214 ms.
  static constexpr std::size_t kDefaultWorkPerSlice = 1024, kDefaultTimePacedWorkPerSlice = 4096;
  static constexpr std::size_t defaultWorkPerSlice(GcPacing pacing) {
    return pacing == GcPacing::time ? kDefaultTimePacedWorkPerSlice : kDefaultWorkPerSlice;
  }
  double startOccupancy = kDefaultStartOccupancy;  // fraction of the heap in use that starts a cycle
  std::size_t workPerSlice = 0;  // work units per slice (see Phases above); 0: defaultWorkPerSlice(pacing)
  GcPacing pacing = GcPacing::time;
  // Under time pacing, the most CPU time a slice runs before it stops at its next
  // clock reading (zero: no limit; work pacing never reads it).
  std::chrono::nanoseconds sliceTimeLimit{50'000};
  // Without a heap size to pace by (malloc with heapBytes 0): a slice per this many bytes.
  std::size_t fallbackSliceBytes = 16 << 10;
};

class ContinuousCollector final : public vm::Collector {
 public:
  using Clock = std::chrono::steady_clock;
  // The mutator-utilization governor and the slice time limit count the thread's CPU
  // time: what the host takes is neither the mutator's nor the collector's.
  using GovernorClock = ThreadCpuClock;
  enum class Phase : std::uint8_t { idle, marking, sweeping };

  static constexpr std::uint32_t kGray = 1u << 1, kBlack = 1u << 2;
  static constexpr std::uint32_t kWhite0 = 1u << 3, kWhite1 = 1u << 4;
  static constexpr std::size_t kMinSliceBytes = 256;
  static constexpr std::uint32_t kBackEdgesPerSlice = 4096;
  static constexpr std::size_t kSweepSlotsPerWorkUnit = 8;
  // Sweeping: a free costs this many work units. A free (the heap policy's work)
  // takes several times as long as a mark unit: counted as one unit, the slices
  // that freed many objects would be the longest of the run.
  static constexpr std::size_t kWorkUnitsPerFree = 3;
  // Marking: an object costs a work unit and one more per this many reference slots
  // (so a slice is bounded by slots scanned, not objects), and an array with more
  // elements than kLongArraySlots is scanned that many at a time. Each slot may shade
  // an object not touched yet this cycle, a cache miss like the object's own, so
  // slices over long reference chains need slots counted; but a unit per slot makes
  // cycles take so many slices that the boxed ints made meanwhile (all surviving
  // their cycle) pile up.
  static constexpr std::size_t kMarkSlotsPerWorkUnit = 2;
  static constexpr std::size_t kLongArraySlots = 256;
  // The most work units between two readings of the clock for sliceTimeLimit
  // (SliceClock adapts the number to what the units cost): a slice passes its limit
  // by at most this many units (plus the one object being scanned).
  static constexpr std::size_t kUnitsPerClockCheck = SliceClock::kMaxUnitsPerCheck;
  // A cycle's slices are spread over (free space at its start) * kPacingNumerator /
  // kPacingDivisor requested bytes: its allocation allowance.
  static constexpr std::size_t kPacingNumerator = 1, kPacingDivisor = 2;
  // After a slice, the mutator runs at least kMutatorShareNum / kMutatorShareDen
  // times the slice's length before the next (GC at most 40% of the time), while
  // the heap has room for the rest of the cycle.
  static constexpr int kMutatorShareNum = 3, kMutatorShareDen = 2;
  // Past its allowance, a cycle keeps the mutator's share while more than the free
  // space at its start / kReserveDivisor is left (and room for its remaining slices).
  static constexpr std::size_t kReserveDivisor = 8;
  static constexpr std::size_t kOccupancyRecheckSlices = 4;
  static constexpr int kSliceOutlierFactor = 3;
  // And no window of GcTimeWindow::kLength holds more than this share of GC time
  // (the slice about to run included): MMU at 1 ms of at least 0.65. (At 1/3
  // gcbench's cycles fell behind their allowance, and the governor let go.)
  static constexpr int kMaxGcShareNum = 7, kMaxGcShareDen = 20;
  // With CollectorOptions::pretouch, the gray stack is populated at start with room for
  // a gray handle per this many bytes of heap (an eighth of the heap's size in
  // entries; the smallest objects are 16 bytes, so a heap full of them could need 4x
  // more, and its growth past this room faults in a slice as before). mst's first
  // cycle grew its stack by some pages in slices of 150-400 µs without it.
  static constexpr std::size_t kPretouchHeapBytesPerGray = 64;

  explicit ContinuousCollector(ContinuousCollectorOptions options = {});

  // Finishes the cycle in progress (a forced completion when the cause is an
  // allocation failure), then runs a whole cycle at once: everything unreachable
  // now is freed.
  void collect(vm::CollectedSpace& space, vm::GcCause cause) override;
  // Starts a cycle, which frees the dead boxes at its end like the rest; when boxes
  // pile up again before that, the cycle is finished at once.
  void boxesPiledUp(vm::CollectedSpace& space) override {
    if (phase_ == Phase::idle) startCycle(space, vm::GcCause::boxedIntegers);
    else collect(space, vm::GcCause::boxedIntegers);
  }
  std::string_view name() const override { return "continuous"; }
  vm::CollectorStatistics statistics() const override;

  // One slice of work (may start a cycle when idle and the heap is full enough).
  // Public for tests.
  void step(vm::CollectedSpace& space);
  // Starts a cycle now if idle (scans the roots).
  void startCycle(vm::CollectedSpace& space, vm::GcCause cause = vm::GcCause::heapOccupancy);
  // Runs the cycle in progress to its end, at once.
  void finishCycle(vm::CollectedSpace& space);

  void setStartTime(std::chrono::steady_clock::time_point start) { recorder_.setStartTime(start); }
  const ContinuousCollectorOptions& options() const { return options_; }
  void setVerify(bool on) { options_.verify = on; }
  Phase phase() const { return phase_; }
  static bool isWhite(const vm::Handle* h) { return (h->gcBits & (kGray | kBlack)) == 0; }
  static bool isBlack(const vm::Handle* h) { return (h->gcBits & kBlack) != 0; }
  std::uint64_t incrementsRun() const { return increments_; }
  std::uint64_t forcedCompletions() const { return forcedCompletions_; }
  // Most objects freed by one slice (the "trickle" the allocator sees; collect()'s
  // whole cycles are not slices and do not count).
  std::uint64_t largestSweepBurst() const { return largestBurst_; }
  // The most work units any slice did (a sweep's slot visits counted
  // kSweepSlotsPerWorkUnit to the unit, rounded up): at most workPerSlice plus what
  // the last object scanned cost beyond the budget.
  std::uint64_t largestSliceWork() const { return largestSliceWork_; }
  // Gray handles the stack holds before it must grow (CollectorOptions::pretouch).
  std::size_t grayStackCapacity() const { return gray_.capacity(); }
  // Requested bytes between slices in the cycle in progress (or the last one).
  std::size_t sliceBytes() const { return sliceBytes_; }
  // The log line of the last cycle ("" before the first).
  const std::string& lastLogLine() const { return recorder_.lastLogLine(); }
  // Every pause so far (a slice, a root scan, a whole cycle); keepAll() for the list.
  PauseRecorder& pauseRecorder() { return recorder_.pauses(); }
  // The most bytes (requested sizes) found reachable by any cycle's marking.
  std::uint64_t peakLiveBytes() const { return recorder_.peakLiveBytes(); }

 private:
  LocalityMeter locality_;  // measured during each cycle's marking
  static constexpr std::size_t kOccupancyGranularity = 4096;

  void allocationBudgetSpent(vm::CollectedSpace& space, std::size_t bytes) override;
  void shadeOverwritten(vm::Value v) override { shadeValue(v); }
  void backEdgeBudgetSpent(vm::CollectedSpace& space) override;
  bool mutatorNeedsTime(vm::CollectedSpace& space);
  // The governor's rules (mutatorNeedsTime): a slice now would come too soon after
  // the last pause, or overfill the GC time window.
  bool tooSoonForASlice(GovernorClock::time_point now) const;
  GovernorClock::time_point cpuNowAtMost(Clock::time_point wallNow) const;
  // A pause (a slice, or the root scan) ran from `begin` to `end`: the governor's
  // next deferral is measured from it.
  void paused(const PauseStamp& begin, const PauseStamp& end);

  void shade(vm::Handle* h) {
    if (!isWhite(h)) return;  // already gray or black
    h->gcBits = kGray;
    gray_.push(h);
  }
  // An object goes gray; a boxed int (value.h), a leaf, straight to black.
  void shadeValue(vm::Value v) {
    if (v.isObject()) {
      shade(v.asHandle());
    } else if (v.isBoxedInt()) {
      vm::Handle* box = v.handle();
      if (isWhite(box)) box->gcBits = kBlack;
    }
  }
  std::size_t heapBytes(vm::CollectedSpace& space) const;
  // Idle: start a cycle if the occupancy trigger is reached, else grant half the gap.
  void checkOccupancy(vm::CollectedSpace& space, std::size_t bytesRequested);
  // A slice of the cycle in progress, timed.
  void slice(vm::CollectedSpace& space);
  // Scans gray objects for up to `budget` work units (kMarkSlotsPerWorkUnit above), or
  // until `clock` (none: no time limit) stops the slice; adds the units done to
  // sliceWork_. True when nothing is gray.
  bool markSome(std::size_t budget, SliceClock* clock = nullptr);
  void flipToSweep(vm::CollectedSpace& space);
  // Sweeps up to `budget` handle slots, or until `clock` stops the slice (as
  // markSome); adds the units done to sliceWork_. True when the sweep is done.
  bool sweepSome(vm::CollectedSpace& space, std::size_t budget, bool isSlice = false,
                 SliceClock* clock = nullptr);
  void endCycle(vm::CollectedSpace& space);
  void verifyMarking(vm::CollectedSpace& space);
  void setTriggerPoint(vm::CollectedSpace& space, std::size_t bytesInUse);
  // Sets the budgets for the phase now in force.
  void resetBudgets();

  ContinuousCollectorOptions options_;
  CycleRecorder recorder_;
  Phase phase_ = Phase::idle;
  std::uint32_t white_ = kWhite0;  // the current white; the other one is garbage while sweeping
  GrayStack gray_;
  PrefetchFifo ahead_;  // gray handles popped from gray_, their objects prefetched, not yet scanned
  SliceClock markClock_, sweepClock_;  // when a time-limited slice reads the clock and stops
  vm::Handle* partial_ = nullptr;  // a long array being scanned a piece at a time (gray)
  std::size_t partialNext_ = 0;    // its next element to scan
  SweepCursor sweepCursor_;  // where the sweep is in the handle table
  std::size_t sliceBytes_ = 0;
  std::size_t triggerBytes_ = 0;
  bool triggerSet_ = false;
  bool noTrigger_ = false;
  bool collecting_ = false;

  // The cycle in progress.
  CycleRecorder::Start cycle_;
  CycleRecorder::Slices cycleSlices_;
  std::uint64_t lastCycleSlices_ = 0;  // slices the last incremental cycle took (pacing)
  std::size_t cycleAllowance_ = 0;     // requested bytes the cycle is paced to finish within
  std::size_t cycleRequested_ = 0;     // requested bytes since the cycle started (approximately)
  std::size_t cycleReserve_ = 0;       // free bytes the governor never defers below
  std::uint64_t cyclePlannedSlices_ = 0;
  std::size_t nextOccupancyCheck_ = 0;  // cycleRequested_ at which the heap's occupancy is re-read
  bool roomToDefer_ = false;            // the last reading: room to keep deferring
  std::size_t grantedBudget_ = 0;      // the allocation budget last granted
  // The governor's clock: the thread's CPU time (time pacing).
  GovernorClock::time_point lastSliceEnd_{};
  GovernorClock::duration lastSliceDuration_{};  // capped at kSliceOutlierFactor * typicalSlice_
  GovernorClock::duration typicalSlice_{};       // running average of the (capped) slice lengths
  GcTimeWindow gcTime_;                          // the pauses of the last millisecond of CPU time
  PauseStamp lastStamp_{};   // the governor's last reading of both clocks (a pause's end)
  PauseStamp sliceStart_{};  // the reading that let the next slice run (cpuNs 0: none)
  std::uint64_t deferredSlices_ = 0;
  bool cycleForced_ = false;

  std::uint64_t increments_ = 0, largestBurst_ = 0;
  std::uint64_t sliceWork_ = 0, largestSliceWork_ = 0;  // work units of the slice running / of the largest
  std::uint64_t forcedCompletions_ = 0;
  std::uint64_t cycleLiveBytes_ = 0;  // bytes of the objects marked (scanned) this cycle
};

}  // namespace kith::gc
