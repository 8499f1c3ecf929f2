// OccasionalCollector: the stop-the-world mark-sweep collector of the paper's §2.6
// ("occasional collection"): it runs on demand and returns garbage to the heap
// policy in one burst, so the allocator sees alternating allocating and freeing
// phases rather than a trickle of frees.
//
// A cycle runs when
//   - an allocation fails (the object space's allocation gate calls collect(space,
//     allocationFailure), then retries);
//   - the script calls System.gc() (collect(space, vm::GcCause::systemGc));
//   - heap occupancy passes the threshold (beforeAllocation, below);
//   - with `stress`, before every allocation (--gc-stress).
// Each cycle marks from the VM's roots (CollectedSpace::forEachRoot) through
// the handle table with an explicit mark stack, then sweeps the handle table,
// freeing every unmarked object through CollectedSpace::freeObject
// (gc/mark_sweep.h). It never moves objects: a moving heap's defragmenter does
// that, through the space's relocation callback.
//
// The occupancy trigger. The threshold is a fraction of the heap (default 0.75;
// --gc-threshold), measured as the heap statistics' bytes_in_use (block bytes).
// Reading the statistics per allocation would be far too slow, so the allocation
// gate pays one compare and one subtraction (vm::Collector::beforeAllocation): the
// collector grants an allocation
// budget of half the remaining gap to the trigger point, in requested bytes; a
// block is at most about twice its request (power-of-two classes at worst), so
// spending the budget lands at or below the trigger point. When it is spent the
// collector re-reads bytes_in_use and either grants half the new gap or, within
// kOccupancyGranularity of the trigger point, collects. After a cycle that leaves
// the heap above the threshold (a live set bigger than the threshold), the trigger
// point moves up to halfway between the bytes left in use and the heap's end, so a
// big live set costs a collection per half of the remaining free space rather
// than one per allocation; an allocation failure still collects as always.
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
#include "gc/locality_meter.h"
#include "gc/pause_recorder.h"
#include "vm/collector.h"
#include "vm/collected_space.h"

namespace kith::gc {

// The shared options (collector_options.h) and the occupancy trigger. `verify` runs
// the heap verifier after each cycle; stress turns it off, as it would make every
// allocation walk the whole heap.
struct OccasionalCollectorOptions : CollectorOptions {
  static constexpr double kDefaultThreshold = 0.75;
  // Fraction of the heap in use that triggers a cycle; >= 1 turns the trigger off.
  double occupancyThreshold = kDefaultThreshold;
};

class OccasionalCollector final : public vm::Collector {
 public:
  static constexpr std::size_t kOccupancyGranularity = 4096;

  explicit OccasionalCollector(OccasionalCollectorOptions options = {});

  // A full stop-the-world cycle.
  void collect(vm::CollectedSpace& space, vm::GcCause cause) override;
  std::string_view name() const override { return "occasional"; }
  vm::CollectorStatistics statistics() const override;

  // The uptime origin of the log lines and of the MMU windows (default: construction).
  void setStartTime(std::chrono::steady_clock::time_point start) { recorder_.setStartTime(start); }
  void setLog(std::FILE* log) {
    options_.log = log;
    recorder_.setLog(log);
  }
  const OccasionalCollectorOptions& options() const { return options_; }
  // The log line of the last cycle ("" before the first).
  const std::string& lastLogLine() const { return recorder_.lastLogLine(); }
  // Every pause so far; keepAll() for the whole list (kith run --gc-pauses-file).
  PauseRecorder& pauseRecorder() { return recorder_.pauses(); }

 private:
  LocalityMeter locality_;  // measured at every mark phase
  static constexpr std::size_t kNoTrigger = std::numeric_limits<std::size_t>::max();

  // The gate's budget is spent: re-read the occupancy; collect or grant a new budget.
  void allocationBudgetSpent(vm::CollectedSpace& space, std::size_t bytes) override;
  std::size_t heapBytes(vm::CollectedSpace& space) const;
  // The occupancy at which the next cycle runs, from the bytes in use now.
  void setTriggerPoint(vm::CollectedSpace& space, std::size_t bytesInUse);
  // Half the gap to the trigger point, less the request being charged.
  void grantBudget(std::size_t bytesInUse, std::size_t bytesRequested);

  OccasionalCollectorOptions options_;
  std::vector<vm::Handle*> markStack_;
  std::size_t triggerBytes_ = kNoTrigger;
  bool triggerSet_ = false;
  bool collecting_ = false;
  CycleRecorder recorder_;
};

}  // namespace kith::gc
