#include "gc/occasional_collector.h"

#include <algorithm>
#include <cstdlib>

#include "gc/heap_verifier.h"
#include "gc/mark_sweep.h"

namespace kith::gc {

OccasionalCollector::OccasionalCollector(OccasionalCollectorOptions options)
    : options_(options), start_(std::chrono::steady_clock::now()), pauses_(start_) {
  allocationBudget_ = 0;  // the first allocation sets the trigger point
  if (options_.stress) options_.verify = false;
}


std::size_t OccasionalCollector::heapBytes(vm::HandleTableSpace& space) const {
  return options_.heapBytes != 0 ? options_.heapBytes : space.heap().arenaSize();
}

void OccasionalCollector::collect(vm::HandleTableSpace& space, GcCause cause) {
  if (collecting_) return;  // nothing in a cycle allocates; this only guards misuse
  collecting_ = true;
  std::size_t before = space.heap().bytesInUse();
  auto begin = std::chrono::steady_clock::now();

  std::uint64_t liveBytes = 0;
  LocalityMeter* locality = options_.measureLocality ? &locality_ : nullptr;
  if (locality) locality->beginCycle(space.heap().arenaBase(), space.heap().arenaSize());
  markReachable(space, markStack_, &liveBytes, locality);
  if (locality) locality->endCycle();
  peakLiveBytes_ = std::max(peakLiveBytes_, liveBytes);
  SweepTotals swept = sweepUnmarked(space);

  auto end = std::chrono::steady_clock::now();
  std::size_t after = space.heap().bytesInUse();
  auto pauseNs = std::chrono::duration_cast<std::chrono::nanoseconds>(end - begin).count();
  pauses_.record(begin, end);
  objectsFreed_ += swept.objectsFreed;
  bytesFreed_ += swept.bytesFreed;

  GcLogEntry entry;
  entry.uptimeSeconds = std::chrono::duration<double>(begin - start_).count();
  entry.cycle = cycles_++;
  entry.cause = cause;
  entry.bytesBefore = before;
  entry.bytesAfter = after;
  entry.heapBytes = heapBytes(space);
  entry.pauseMs = static_cast<double>(pauseNs) / 1e6;
  lastLogLine_ = formatGcLogLine(entry);
  if (options_.log) std::fprintf(options_.log, "%s\n", lastLogLine_.c_str());
  if (options_.fragmentation) options_.fragmentation->sample(entry.cycle, space.heap());

  if (options_.verify) {
    VerifyOptions verifyOptions;
    verifyOptions.requireNoGarbage = true;  // stop-the-world: nothing unreachable survives
    std::string problem = verifyHeap(space, verifyOptions);
    if (!problem.empty()) {
      std::fprintf(stderr, "kith: internal error: heap verification failed after GC(%llu): %s\n",
                   static_cast<unsigned long long>(entry.cycle), problem.c_str());
      std::abort();
    }
  }
  space.collectionEnded(cause, before, after, entry.heapBytes);
  setTriggerPoint(space, after);
  grantBudget(after, 0);
  collecting_ = false;
}

void OccasionalCollector::allocationBudgetSpent(vm::HandleTableSpace& space, std::size_t bytes) {
  if (options_.stress) {
    collect(space, GcCause::stress);  // leaves the budget at 0: again before the next allocation
    return;
  }
  if (!triggerSet_) setTriggerPoint(space, space.heap().bytesInUse());
  if (triggerBytes_ == kNoTrigger) {
    allocationBudget_ = kNoTrigger;  // never check again until a cycle runs
    return;
  }
  std::size_t inUse = space.heap().bytesInUse();
  if (inUse + std::max(bytes, kOccupancyGranularity) >= triggerBytes_) {
    collect(space, GcCause::heapOccupancy);  // sets the next trigger point
    inUse = space.heap().bytesInUse();
  }
  grantBudget(inUse, bytes);
}

void OccasionalCollector::setTriggerPoint(vm::HandleTableSpace& space, std::size_t bytesInUse) {
  triggerSet_ = true;
  std::size_t size = heapBytes(space);
  if (options_.occupancyThreshold >= 1 || size == 0) {
    triggerBytes_ = kNoTrigger;
    return;
  }
  auto threshold = static_cast<std::size_t>(options_.occupancyThreshold * static_cast<double>(size));
  triggerBytes_ = threshold;
  if (cycles_ == 0) return;
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
  s.cycles = cycles_;
  s.objectsFreed = objectsFreed_;
  s.bytesFreed = bytesFreed_;
  s.peakLiveBytes = static_cast<std::int64_t>(peakLiveBytes_);
  s.locality = locality_.statistics();
  pauses_.fill(s, std::chrono::steady_clock::now());
  return s;
}

}  // namespace kith::gc
