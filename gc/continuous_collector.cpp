#include "gc/continuous_collector.h"

#include <algorithm>
#include <cstdlib>
#include <unordered_set>

#include "vm/object_scanning.h"

namespace kith::gc {

namespace {

using Clock = std::chrono::steady_clock;

constexpr std::uint32_t kBothWhites = ContinuousCollector::kWhite0 | ContinuousCollector::kWhite1;

// Time pacing reads the thread's CPU clock at every pause (the governor's clock), so
// the pauses' stamps carry it whether or not a report asks for it.
ContinuousCollectorOptions withGovernorClock(ContinuousCollectorOptions options) {
  if (options.pacing == GcPacing::time) options.measureCpuTime = true;
  return options;
}

}  // namespace

ContinuousCollector::ContinuousCollector(ContinuousCollectorOptions options)
    : options_(withGovernorClock(options)), recorder_(options_) {
  if (options_.workPerSlice == 0) options_.workPerSlice = ContinuousCollectorOptions::defaultWorkPerSlice(options_.pacing);
  allocationColour_ = white_;
  allocationBudget_ = 0;  // the first allocation sets the trigger point
  if (options_.pretouch) gray_.reserveTouched(options_.heapBytes / kPretouchHeapBytesPerGray);
}


std::size_t ContinuousCollector::heapBytes(vm::CollectedSpace& space) const {
  return recorder_.heapBytes(space.heap());
}

void ContinuousCollector::setTriggerPoint(vm::CollectedSpace& space, std::size_t bytesInUse) {
  triggerSet_ = true;
  std::size_t size = heapBytes(space);
  noTrigger_ = size == 0 || options_.startOccupancy >= 1;
  if (noTrigger_) return;
  auto threshold = static_cast<std::size_t>(options_.startOccupancy * static_cast<double>(size));
  triggerBytes_ = threshold;
  // A live set above the threshold: the next cycle waits for a quarter of the free
  // space, not for the next allocation (cycles back to back would free nothing).
  if (recorder_.cycles() > 0 && bytesInUse >= threshold && bytesInUse < size)
    triggerBytes_ = bytesInUse + (size - bytesInUse) / 4;
}

void ContinuousCollector::resetBudgets() {
  if (phase_ != Phase::idle) {
    grantedBudget_ = allocationBudget_ = options_.stress ? 0 : sliceBytes_;
    // Work pacing: no slices at back-edges (how many loop iterations run between
    // two allocations is the program's business, not the allocation volume's).
    backEdgeBudget_ = options_.pacing == GcPacing::work ? kBackEdgesIdle : kBackEdgesPerSlice;
    return;
  }
  backEdgeBudget_ = kBackEdgesIdle;
  allocationBudget_ = 0;  // the next allocation re-reads the occupancy (or, under stress, starts a cycle)
}

void ContinuousCollector::checkOccupancy(vm::CollectedSpace& space, std::size_t bytesRequested) {
  if (options_.stress) {
    startCycle(space, vm::GcCause::stress);
    return;
  }
  std::size_t inUse = space.heap().bytesInUse();
  if (!triggerSet_) setTriggerPoint(space, inUse);
  if (noTrigger_) {
    allocationBudget_ = kNoBudget;  // cycles only on failure or System.gc()
    return;
  }
  if (inUse + std::max(bytesRequested, kOccupancyGranularity) >= triggerBytes_) {
    startCycle(space, vm::GcCause::heapOccupancy);
    return;
  }
  std::size_t budget = (triggerBytes_ - inUse) / 2;
  allocationBudget_ = budget > bytesRequested ? budget - bytesRequested : 0;
}

void ContinuousCollector::allocationBudgetSpent(vm::CollectedSpace& space, std::size_t bytes) {
  if (phase_ == Phase::idle) {
    checkOccupancy(space, bytes);
    return;
  }
  std::size_t debt = bytes - allocationBudget_;  // requested beyond the budget: paid by the next slices
  cycleRequested_ += grantedBudget_ - allocationBudget_ + bytes;
  if (!options_.stress && mutatorNeedsTime(space)) {
    // Too soon after the last slice: let the mutator run, and look again shortly.
    ++deferredSlices_;
    grantedBudget_ = allocationBudget_ = std::max(kMinSliceBytes, sliceBytes_ / 4);
    return;
  }
  slice(space);
  // Behind plan (the cycle's allowance requested, and it is still running: it needs
  // more slices than the last cycle took, as when the live set grows): a slice every
  // quarter of the bytes, so it catches up before the heap, or the boxed ints'
  // allowance, fills and forces a full pause. The time governor still holds while
  // there is room.
  std::size_t every = cycleRequested_ < cycleAllowance_ ? sliceBytes_ : std::max(kMinSliceBytes, sliceBytes_ / 4);
  if (phase_ != Phase::idle && !options_.stress)
    grantedBudget_ = allocationBudget_ = every > debt ? every - debt : 0;
}

// The time-based half of the pacing: after a slice of d ns the mutator gets at least
// kMutatorShareNum / kMutatorShareDen * d ns before the next one, so that GC takes at
// most 1 / (1 + 3/2) = 40% of any stretch of time made of whole slices. Past the
// cycle's allocation allowance (running behind: a program that allocates in bursts
// gets its slices only in the bursts) the governor still holds while the heap has
// room for the rest of the cycle at full speed — the real occupancy, which the
// sweep lowers as it frees, not the requested bytes — and lets go only when the
// heap is about to fill.
bool ContinuousCollector::mutatorNeedsTime(vm::CollectedSpace& space) {
  if (options_.pacing == GcPacing::work) return false;  // slices by allocation volume alone
  if (!tooSoonForASlice(cpuNowAtMost(Clock::now()))) {
    // Maybe time for a slice: the CPU clock says. Its reading starts the slice, which
    // the caller runs now; a reading that defers is dropped, never used by a later slice.
    const PauseStamp now = PauseStamp::now();
    if (!tooSoonForASlice(GovernorClock::fromNs(now.cpuNs))) {
      sliceStart_ = now;
      return false;
    }
  }
  if (cycleRequested_ < cycleAllowance_) return true;
  // The verdict (room to defer or not) is re-read after every kOccupancyRecheckSlices
  // slices' worth of requests, not at each decision, and the reserve covers what
  // those may take.
  if (cycleRequested_ >= nextOccupancyCheck_) {
    std::size_t size = heapBytes(space);
    std::size_t inUse = space.heap().bytesInUse();
    std::size_t free = size > inUse ? size - inUse : 0;
    // The rest of the cycle at full speed: a slice per sliceBytes_ requested, each
    // request taking at most twice its size in blocks (kingsley).
    std::uint64_t remaining = cyclePlannedSlices_ > cycleSlices_.count ? cyclePlannedSlices_ - cycleSlices_.count : 0;
    remaining = std::max(remaining, cyclePlannedSlices_ / 8) + kOccupancyRecheckSlices + 2;
    std::size_t reserve = std::max(cycleReserve_, static_cast<std::size_t>(2 * remaining * sliceBytes_));
    roomToDefer_ = size != 0 && free > reserve;
    nextOccupancyCheck_ = cycleRequested_ + kOccupancyRecheckSlices * sliceBytes_;
  }
  return roomToDefer_;
}

// Two rules, either of which defers the slice: the last pause's rule spreads slices
// out (the mutator runs 3/2 of the last pause, as the typical slice caps it), and
// the window's rule bounds the GC time in any GcTimeWindow::kLength — the slice
// about to run included, reckoned at the slice time limit — to kMaxGcShareNum /
// kMaxGcShareDen of it: whichever window of that length ends during the slice holds
// at most the GC time of the last kLength minus the slice, plus the slice.
// The thread's CPU time at `wallNow` is at most the last reading of the CPU clock plus
// the wall time since: the host may have taken some of it, never given more. The
// governor's rules only defer more the earlier it is, so a slice that is too soon at
// this bound is too soon; the CPU clock (a system call) is read only when it is not.
ContinuousCollector::GovernorClock::time_point ContinuousCollector::cpuNowAtMost(Clock::time_point wallNow) const {
  return GovernorClock::fromNs(lastStamp_.cpuNs) + (wallNow - lastStamp_.wall);
}

bool ContinuousCollector::tooSoonForASlice(GovernorClock::time_point now) const {
  if ((now - lastSliceEnd_) * kMutatorShareDen < lastSliceDuration_ * kMutatorShareNum) return true;
  const GovernorClock::duration slice =
      options_.sliceTimeLimit.count() > 0 ? std::chrono::duration_cast<GovernorClock::duration>(options_.sliceTimeLimit)
                                          : lastSliceDuration_;
  return !gcTime_.hasRoomFor(slice, now, kMaxGcShareNum, kMaxGcShareDen);
}

void ContinuousCollector::backEdgeBudgetSpent(vm::CollectedSpace& space) {
  if (phase_ == Phase::idle) return;  // cycles start from the allocation gate only
  if (options_.pacing == GcPacing::work) return;  // (resetBudgets never arms it then)
  if (mutatorNeedsTime(space)) return;
  std::size_t budget = allocationBudget_;
  slice(space);
  if (phase_ != Phase::idle) allocationBudget_ = budget;  // the allocation pacing is unchanged
}

void ContinuousCollector::startCycle(vm::CollectedSpace& space, vm::GcCause cause) {
  if (phase_ != Phase::idle) return;
  cycle_ = recorder_.begin(space.heap(), cause);
  const std::size_t inUse = cycle_.bytesBefore;
  cycleSlices_ = {};
  cycleLiveBytes_ = 0;
  cycleForced_ = false;

  phase_ = Phase::marking;
  allocationColour_ = kBlack;
  barrierActive_ = true;
  gray_.clear();
  ahead_.clear();
  partial_ = nullptr;
  if (options_.measureLocality) locality_.beginCycle(space.heap().arenaBase(), space.heap().arenaSize());
  std::uint64_t roots = 0;  // the root scan's work: a unit a root
  space.forEachRoot([&](const vm::Value& root) {
    shadeValue(root);
    ++roots;
  });

  // Pacing (see the header): the cycle's work spread over half the free space. A
  // cycle that boxed ints started (vm/value.h) must end before they double, so its
  // free space is the boxes' room (boxes pay the pacing in handle bytes).
  std::size_t size = heapBytes(space);
  std::size_t heapFree = size > inUse ? size - inUse : 0;
  std::size_t free = cause == vm::GcCause::boxedIntegers ? std::min(heapFree, space.boxRoomBytes()) : heapFree;
  if (size == 0) {
    sliceBytes_ = options_.fallbackSliceBytes;
  } else {
    // The slices this cycle will take: as many as the last one took (its live set
    // is the best guess of this one's), or, for the first, every handle marked.
    std::size_t slices = lastCycleSlices_ + lastCycleSlices_ / 8;
    if (lastCycleSlices_ == 0) {
      // An object costs a unit and one per kMarkSlotsPerWorkUnit reference slots:
      // reckon every 16 bytes in use a slot (an overestimate for strings and byte
      // arrays: a cycle that ends early costs less than one that overruns its
      // allowance and is forced).
      std::size_t markUnits = space.handles().liveCount() + inUse / (sizeof(vm::Value) * kMarkSlotsPerWorkUnit);
      std::size_t markSlices = markUnits / options_.workPerSlice;
      std::size_t sweepSlices = space.handles().capacity() / (kSweepSlotsPerWorkUnit * options_.workPerSlice);
      slices = markSlices + sweepSlices;
    }
    slices += 2;  // the root scan, and the slice that ends the sweep
    sliceBytes_ = std::max(kMinSliceBytes, free / kPacingDivisor * kPacingNumerator / slices);
    cyclePlannedSlices_ = slices;
  }
  cycleAllowance_ = size == 0 ? kNoBudget : free / kPacingDivisor * kPacingNumerator;
  cycleRequested_ = 0;
  nextOccupancyCheck_ = cycleAllowance_;
  cycleReserve_ = heapFree / kReserveDivisor;

  PauseStamp scanned = recorder_.now();
  recorder_.recordSlice(cycleSlices_, cycle_.at, scanned, roots);  // the root scan
  ++increments_;
  paused(cycle_.at, scanned);
  resetBudgets();
}

void ContinuousCollector::slice(vm::CollectedSpace& space) {
  // The governor's reading when it let this slice run (time pacing), or now.
  const PauseStamp start = sliceStart_.cpuNs != 0 ? sliceStart_ : recorder_.now();
  sliceStart_ = {};
  const bool timeLimited = options_.pacing == GcPacing::time && options_.sliceTimeLimit.count() > 0;
  sliceWork_ = 0;
  bool cycleDone = false;
  if (phase_ == Phase::marking) {
    markClock_.start(start.wall, start.cpuNs, options_.sliceTimeLimit);
    if (markSome(options_.workPerSlice, timeLimited ? &markClock_ : nullptr)) flipToSweep(space);
  } else if (phase_ == Phase::sweeping) {
    sweepClock_.start(start.wall, start.cpuNs, options_.sliceTimeLimit);
    cycleDone = sweepSome(space, kSweepSlotsPerWorkUnit * options_.workPerSlice, true,
                          timeLimited ? &sweepClock_ : nullptr);
  }
  largestSliceWork_ = std::max(largestSliceWork_, sliceWork_);
  PauseStamp end = recorder_.now();
  if (cycleDone) {
    // The end of the cycle (its log line, the next trigger point) holds the mutator
    // up too: part of this slice's pause, though not of the cycle's slice time.
    recorder_.countSlice(cycleSlices_, start, end);
    endCycle(space);
    end = recorder_.now();
    recorder_.pauses().record(start, end, sliceWork_);
  } else {
    recorder_.recordSlice(cycleSlices_, start, end, sliceWork_);
  }
  ++increments_;
  paused(start, end);
  resetBudgets();
}

void ContinuousCollector::paused(const PauseStamp& beginStamp, const PauseStamp& endStamp) {
  if (options_.pacing != GcPacing::time) return;  // work pacing has no governor
  lastStamp_ = endStamp;
  const auto begin = GovernorClock::fromNs(beginStamp.cpuNs), end = GovernorClock::fromNs(endStamp.cpuNs);
  lastSliceEnd_ = end;
  gcTime_.record(begin, end);
  // The governor's measure of the pause: its length, but at most kSliceOutlierFactor
  // times the typical slice (a running average): one unusually long pause (a cycle's
  // end, a slice over a dear stretch of objects) would otherwise stall the cycle for
  // 1.5 times its length, long enough to spend its allocation allowance.
  GovernorClock::duration length = end - begin;
  if (typicalSlice_ == GovernorClock::duration::zero()) typicalSlice_ = length;
  lastSliceDuration_ = std::min(length, typicalSlice_ * kSliceOutlierFactor);
  typicalSlice_ += (lastSliceDuration_ - typicalSlice_) / 8;
}

void ContinuousCollector::step(vm::CollectedSpace& space) {
  if (phase_ != Phase::idle) {
    slice(space);
    return;
  }
  std::size_t size = heapBytes(space);
  if (options_.stress) {
    startCycle(space, vm::GcCause::stress);
  } else if (size != 0 && static_cast<double>(space.heap().bytesInUse()) >=
                              options_.startOccupancy * static_cast<double>(size)) {
    startCycle(space, vm::GcCause::heapOccupancy);
  }
}

bool ContinuousCollector::markSome(std::size_t budget, SliceClock* clock) {
  const bool measure = options_.measureLocality;
  auto visit = [&](vm::Handle* from, vm::Value& field) {
    if (measure && field.isObject()) locality_.reference(from->object, field.asHandle()->object);
    shadeValue(field);
  };
  // Depth first, as the stop-the-world marker (mark_sweep.cpp), through the same
  // prefetch FIFO (prefetch_fifo.h): the handles between the stack and the scan are
  // still gray, so marking is done when both are empty. An object costs a
  // work unit plus one per kMarkSlotsPerWorkUnit reference slots; an array longer
  // than kLongArraySlots is scanned kLongArraySlots elements at a time, and stays
  // gray (as partial_) between its pieces. With an unbounded budget (collect) this
  // runs until nothing is gray.
  // The longest piece an array is scanned in: kLongArraySlots, and under a clock at most
  // a stretch of it (below), as the clock's stretch adapts.
  auto pieceSlots = [clock] {
    return clock ? std::min(kLongArraySlots, clock->unitsPerCheck() * kMarkSlotsPerWorkUnit) : kLongArraySlots;
  };
  std::size_t spent = 0, nextClockCheck = clock ? clock->unitsPerCheck() : budget;
  while (spent < budget) {
    if (spent >= nextClockCheck) {
      if (clock->stopAt(Clock::now())) break;
      nextClockCheck = spent + clock->unitsPerCheck();
    }
    if (partial_) {
      // A piece: pieceSlots() elements, or what is left of the budget (never 0). A
      // time-limited slice reads its clock between pieces no longer than a stretch: 256
      // slots, a cache miss each, take ~25 µs (mst's hash buckets), which ran slices
      // 15-30 µs past their limit. (Without a clock, pieces stay kLongArraySlots, so
      // work pacing's marking order and counts do not change.)
      std::size_t left = budget - spent;
      std::size_t piece = std::min(pieceSlots(), left * kMarkSlotsPerWorkUnit);
      std::size_t end = partialNext_ + piece;
      vm::forEachElement(partial_, partialNext_, end, [&](vm::Value& e) { visit(partial_, e); });
      spent += (piece + kMarkSlotsPerWorkUnit - 1) / kMarkSlotsPerWorkUnit;
      partialNext_ = end;
      if (end >= vm::elementCount(partial_)) {
        partial_->gcBits = kBlack;
        partial_ = nullptr;
      }
      continue;
    }
    while (!ahead_.full() && !gray_.empty()) ahead_.push(gray_.pop());
    if (ahead_.empty()) break;
    vm::Handle* h = ahead_.pop();
    ++spent;
    const std::uint32_t size = vm::objectBytes(h);
    cycleLiveBytes_ += size;
    if (measure) locality_.object(h->object, size);
    if (vm::elementCount(h) > pieceSlots()) {
      partial_ = h;
      partialNext_ = 0;
      continue;
    }
    std::size_t slots = 0;
    vm::forEachReference(h, [&](vm::Value& field) {
      ++slots;
      visit(h, field);
    });
    spent += slots / kMarkSlotsPerWorkUnit;
    h->gcBits = kBlack;
  }
  sliceWork_ += spent;
  return gray_.empty() && ahead_.empty() && !partial_;
}

// Marking is complete: every object still white is garbage. The whites flip, so the
// sweep can tell garbage (the old white) from objects born during the sweep.
void ContinuousCollector::flipToSweep(vm::CollectedSpace& space) {
  if (options_.verify) verifyMarking(space);
  recorder_.countLiveBytes(cycleLiveBytes_);
  locality_.endCycle();
  phase_ = Phase::sweeping;
  barrierActive_ = false;
  white_ ^= kBothWhites;
  allocationColour_ = white_;
  sweepCursor_ = {};
}

bool ContinuousCollector::sweepSome(vm::CollectedSpace& space, std::size_t budget, bool isSlice,
                                    SliceClock* clock) {
  // Black: survived (white again, the new white, for the next cycle); the old white,
  // or never coloured: garbage; the new white: born during this sweep.
  struct Colours {
    std::uint32_t white;
    bool survived(vm::Handle* h) const {
      if (!(h->gcBits & kBlack)) return false;
      h->gcBits = white;
      return true;
    }
    bool isGarbage(const vm::Handle* h) const { return !(h->gcBits & (kBlack | white)); }
  };
  // The slice's budget in slot visits, a free costing kWorkUnitsPerFree whole work
  // units (of kSweepSlotsPerWorkUnit visits each, its slot's own visit included),
  // and its clock (none: no time limit), read when the budget falls to
  // nextClockCheck (0: never).
  struct SlicePace {
    std::size_t budget;
    SliceClock* clock;
    std::size_t nextClockCheck = clock ? clockCheckBelow(budget) : 0;
    std::size_t clockCheckBelow(std::size_t b) const {
      std::size_t slots = clock->unitsPerCheck() * kSweepSlotsPerWorkUnit;
      return b > slots ? b - slots : 0;
    }
    bool mayVisit() {
      if (budget == 0) return false;
      if (budget <= nextClockCheck) {
        if (clock->stopAt(Clock::now())) return false;
        nextClockCheck = clockCheckBelow(budget);
      }
      --budget;
      return true;
    }
    bool goesOnAfterFree() {
      budget -= std::min(budget, kWorkUnitsPerFree * kSweepSlotsPerWorkUnit - 1);
      return budget != 0;
    }
  };
  SlicePace pace{budget, clock};
  SweepTotals swept;
  const bool done = sweepHandles(space, sweepCursor_, Colours{white_}, pace, swept);
  sliceWork_ += (budget - pace.budget + kSweepSlotsPerWorkUnit - 1) / kSweepSlotsPerWorkUnit;
  recorder_.countFreed(swept.objectsFreed, swept.bytesFreed);
  if (isSlice) largestBurst_ = std::max(largestBurst_, swept.objectsFreed);
  return done;
}

void ContinuousCollector::endCycle(vm::CollectedSpace& space) {
  phase_ = Phase::idle;
  if (!cycleForced_) lastCycleSlices_ = cycleSlices_.count;
  std::size_t after = recorder_.endIncremental(space, cycle_, cycleSlices_, cycleForced_);
  setTriggerPoint(space, after);
}

void ContinuousCollector::finishCycle(vm::CollectedSpace& space) {
  if (phase_ == Phase::marking) {
    markSome(std::numeric_limits<std::size_t>::max());
    flipToSweep(space);
  }
  if (phase_ == Phase::sweeping) {
    sweepSome(space, std::numeric_limits<std::size_t>::max());
    endCycle(space);
  }
  resetBudgets();
}

void ContinuousCollector::collect(vm::CollectedSpace& space, vm::GcCause cause) {
  if (collecting_) return;  // nothing in a cycle allocates; this only guards misuse
  collecting_ = true;
  const CycleRecorder::Start start = recorder_.begin(space.heap(), cause);
  sliceWork_ = 0;  // the pause's work: the cycle finished, the whole one's roots and units
  if (phase_ != Phase::idle) {
    // Its snapshot is old: finish it, then a whole cycle frees what died since.
    if (cause == vm::GcCause::allocationFailure) {
      ++forcedCompletions_;
      cycleForced_ = true;
    }
    finishCycle(space);
  }
  // A whole cycle at once, logged as a full pause.
  phase_ = Phase::marking;
  cycleLiveBytes_ = 0;
  allocationColour_ = kBlack;
  barrierActive_ = true;
  gray_.clear();
  ahead_.clear();
  partial_ = nullptr;
  space.forEachRoot([&](const vm::Value& root) {
    shadeValue(root);
    ++sliceWork_;
  });
  markSome(std::numeric_limits<std::size_t>::max());
  flipToSweep(space);
  sweepSome(space, std::numeric_limits<std::size_t>::max());
  phase_ = Phase::idle;
  std::size_t after = recorder_.endPause(space, start, sliceWork_);
  setTriggerPoint(space, after);
  resetBudgets();
  collecting_ = false;
}

// The invariant at the end of marking: everything reachable from the roots is black.
void ContinuousCollector::verifyMarking(vm::CollectedSpace& space) {
  std::unordered_set<vm::Handle*> seen;
  std::vector<vm::Handle*> pending;
  auto visit = [&](const vm::Value& v) {
    if (!v.holdsHandle()) return;
    if (seen.insert(v.handle()).second && v.isObject()) pending.push_back(v.handle());
  };
  space.forEachRoot(visit);
  while (!pending.empty()) {
    vm::Handle* h = pending.back();
    pending.pop_back();
    if (!isBlack(h)) {
      std::fprintf(stderr,
                   "kith: internal error: continuous collector: a reachable %s object is not black at the end of "
                   "marking (a missing write barrier?)\n",
                   vm::kindNameOf(h));
      std::abort();
    }
    vm::forEachReference(h, visit);
  }
}

vm::CollectorStatistics ContinuousCollector::statistics() const {
  vm::CollectorStatistics s;
  recorder_.fill(s);
  s.forcedCompletions = static_cast<std::int64_t>(forcedCompletions_);
  s.slices = static_cast<std::int64_t>(increments_);
  s.deferredSlices = static_cast<std::int64_t>(deferredSlices_);
  s.locality = locality_.statistics();
  return s;
}

}  // namespace kith::gc
