#include "gc/continuous_collector.h"

#include <algorithm>
#include <chrono>

#include "gc/object_references.h"

namespace kith::gc {

namespace {

class PauseTimer {
 public:
  explicit PauseTimer(heap::LatencyHistogram& into) : into_(into), begin_(std::chrono::steady_clock::now()) {}
  ~PauseTimer() {
    auto ns = std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now() - begin_);
    into_.record(static_cast<std::uint64_t>(ns.count()));
  }

 private:
  heap::LatencyHistogram& into_;
  std::chrono::steady_clock::time_point begin_;
};

}  // namespace

ContinuousCollector::ContinuousCollector(ContinuousCollectorOptions options) : options_(options) {
  if (options_.workPerStep == 0) options_.workPerStep = 1;
}

std::size_t ContinuousCollector::heapBytes(vm::VM& vm) const {
  return options_.heapBytes != 0 ? options_.heapBytes : vm.heap().arenaSize();
}

void ContinuousCollector::startCycle(vm::VM& vm) {
  if (phase_ != Phase::idle) return;
  phase_ = Phase::marking;
  gray_.clear();
  vm.forEachRoot([&](vm::Value& root) {
    if (root.isObject() && root.as.handle) shade(root.as.handle);
  });
}

bool ContinuousCollector::markSome(std::size_t budget) {
  while (!gray_.empty() && budget-- > 0) {
    vm::Handle* h = gray_.back();
    gray_.pop_back();
    forEachReference(h, [&](vm::Value& field) {
      if (field.isObject() && field.as.handle) shade(field.as.handle);
    });
    h->gcBits = kBlack;
  }
  return gray_.empty();
}

// Marking is complete: every white object now is garbage.
void ContinuousCollector::flipToSweep(vm::VM& vm) {
  sweepList_.clear();
  sweepList_.reserve(vm.handles().liveCount());
  vm.handles().forEachLive([&](vm::Handle* h) { sweepList_.push_back(h); });
  sweepCursor_ = 0;
  phase_ = Phase::sweeping;
}

bool ContinuousCollector::sweepSome(vm::VM& vm, std::size_t budget) {
  std::uint64_t freed = 0;
  heap::Heap& heap = vm.heap();
  while (sweepCursor_ < sweepList_.size() && budget-- > 0) {
    vm::Handle* h = sweepList_[sweepCursor_++];
    if (isWhite(h)) {
      bytesFreed_ += heap.getSize(h->object);
      vm.freeObject(h);
      ++freed;
    } else {
      h->gcBits = 0;  // white again, for the next cycle
    }
  }
  objectsFreed_ += freed;
  largestBurst_ = std::max(largestBurst_, freed);
  if (sweepCursor_ < sweepList_.size()) return false;
  sweepList_.clear();
  phase_ = Phase::idle;
  ++cycles_;
  return true;
}

void ContinuousCollector::step(vm::VM& vm) {
  PauseTimer timer(pauseNs_);
  ++increments_;
  switch (phase_) {
    case Phase::idle: {
      std::size_t size = heapBytes(vm);
      if (size == 0) return;
      double inUse = static_cast<double>(vm.heap().statistics().bytes_in_use);
      if (inUse >= options_.startOccupancy * static_cast<double>(size)) startCycle(vm);
      return;
    }
    case Phase::marking:
      if (markSome(options_.workPerStep)) flipToSweep(vm);
      return;
    case Phase::sweeping:
      sweepSome(vm, options_.workPerStep);
      return;
  }
}

void ContinuousCollector::finishCycle(vm::VM& vm) {
  if (phase_ == Phase::marking) {
    markSome(std::numeric_limits<std::size_t>::max());
    flipToSweep(vm);
  }
  if (phase_ == Phase::sweeping) sweepSome(vm, std::numeric_limits<std::size_t>::max());
}

void ContinuousCollector::collect(vm::VM& vm, GcCause) {
  PauseTimer timer(pauseNs_);
  finishCycle(vm);  // its snapshot is old: it may leave garbage made since
  startCycle(vm);
  finishCycle(vm);
}

vm::CollectorStatistics ContinuousCollector::statistics() const {
  vm::CollectorStatistics s;
  s.cycles = cycles_;
  s.objectsFreed = objectsFreed_;
  s.bytesFreed = bytesFreed_;
  heap::LatencySummary pauses = pauseNs_.summary();
  s.pauseTotalMs = pauseNs_.mean() * static_cast<double>(pauseNs_.count()) / 1e6;
  s.pauseMeanMs = pauses.mean / 1e6;
  s.pauseP99Ms = pauses.p99 / 1e6;
  s.pauseMaxMs = pauses.max / 1e6;
  return s;
}

}  // namespace kith::gc
