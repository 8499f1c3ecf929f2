#include "gc/occasional_collector.h"

#include <algorithm>

#include "gc/heap_verifier.h"
#include "gc/mark_sweep.h"

namespace kith::gc {

OccasionalCollector::OccasionalCollector(OccasionalCollectorOptions options)
    : options_(options), recorder_(options) {
  allocationBudget_ = 0;  // the first allocation sets the trigger point
  if (options_.stress) options_.verify = false;
  if (options_.verify) {
    VerifyOptions verifyOptions;
    verifyOptions.requireNoGarbage = true;  // stop-the-world: nothing unreachable survives
    recorder_.verifyAfterEachCycle(verifyOptions);
  }
}

std::size_t OccasionalCollector::heapBytes(vm::CollectedSpace& space) const {
  return recorder_.heapBytes(space.heap());
}

void OccasionalCollector::collect(vm::CollectedSpace& space, vm::GcCause cause) {
  if (collecting_) return;  // nothing in a cycle allocates; this only guards misuse
  collecting_ = true;
  const CycleRecorder::Start start = recorder_.begin(space.heap(), cause);

  std::uint64_t liveBytes = 0;
  LocalityMeter* locality = options_.measureLocality ? &locality_ : nullptr;
  if (locality) locality->beginCycle(space.heap().arenaBase(), space.heap().arenaSize());
  const std::size_t marked = markReachable(space, markStack_, &liveBytes, locality);
  if (locality) locality->endCycle();
  recorder_.countLiveBytes(liveBytes);
  SweepTotals swept = sweepUnmarked(space);
  recorder_.countFreed(swept.objectsFreed, swept.bytesFreed);

  // The pause's work units: the objects it marked and those it freed.
  std::size_t after = recorder_.endPause(space, start, marked + swept.objectsFreed);
  setTriggerPoint(space, after);
  grantBudget(after, 0);
  collecting_ = false;
}

void OccasionalCollector::allocationBudgetSpent(vm::CollectedSpace& space, std::size_t bytes) {
  if (options_.stress) {
    collect(space, vm::GcCause::stress);  // leaves the budget at 0: again before the next allocation
    return;
  }
  if (!triggerSet_) setTriggerPoint(space, space.heap().bytesInUse());
  if (triggerBytes_ == kNoTrigger) {
    allocationBudget_ = kNoTrigger;  // never check again until a cycle runs
    return;
  }
  std::size_t inUse = space.heap().bytesInUse();
  if (inUse + std::max(bytes, kOccupancyGranularity) >= triggerBytes_) {
    collect(space, vm::GcCause::heapOccupancy);  // sets the next trigger point
    inUse = space.heap().bytesInUse();
  }
  grantBudget(inUse, bytes);
}

void OccasionalCollector::setTriggerPoint(vm::CollectedSpace& space, std::size_t bytesInUse) {
  triggerSet_ = true;
  std::size_t size = heapBytes(space);
  if (options_.occupancyThreshold >= 1 || size == 0) {
    triggerBytes_ = kNoTrigger;
    return;
  }
  auto threshold = static_cast<std::size_t>(options_.occupancyThreshold * static_cast<double>(size));
  triggerBytes_ = threshold;
  if (recorder_.cycles() == 0) return;
  // After a cycle: at least half the free space is allocated before the next one.
  std::size_t free = bytesInUse < size ? size - bytesInUse : 0;
  triggerBytes_ = std::max(threshold, bytesInUse + free / 2);
  // Nearly full of live data: occupancy cycles would run at every allocation and
  // free nothing; leave it to the allocation-failure cycle.
  if (triggerBytes_ < bytesInUse + 2 * kOccupancyGranularity) triggerBytes_ = kNoTrigger;
}

void OccasionalCollector::grantBudget(std::size_t bytesInUse, std::size_t bytesRequested) {
  if (options_.stress) {
    allocationBudget_ = 0;
    return;
  }
  if (triggerBytes_ == kNoTrigger) {
    allocationBudget_ = kNoTrigger;
    return;
  }
  std::size_t gap = triggerBytes_ > bytesInUse ? triggerBytes_ - bytesInUse : 0;
  std::size_t budget = gap / 2;
  allocationBudget_ = budget > bytesRequested ? budget - bytesRequested : 0;
}

vm::CollectorStatistics OccasionalCollector::statistics() const {
  vm::CollectorStatistics s;
  recorder_.fill(s);
  s.locality = locality_.statistics();
  return s;
}

}  // namespace kith::gc
