// HeapOwnCollector: the collector `kith run` gives the VM when the heap collects
// garbage itself (boehm). The VM's own collectors stay off: its object space is a
// CollectedHeapSpace, whose System.gc() runs the heap's collector, and the
// statistics' cycles are the heap's.
#pragma once

#include <cstdint>
#include <string_view>

#include "heap/heap.h"
#include "vm/collector.h"

namespace kith::cli {

class HeapOwnCollector final : public vm::Collector {
 public:
  explicit HeapOwnCollector(heap::Heap& heap) : heap_(heap), cyclesAtStart_(heap.collections()) {}
  void collect(vm::CollectedSpace&, vm::GcCause) override { heap_.collect(); }
  std::string_view name() const override { return heap_.name(); }
  vm::CollectorStatistics statistics() const override {
    vm::CollectorStatistics s;
    s.cycles = heap_.collections() - cyclesAtStart_;
    return s;
  }

 private:
  heap::Heap& heap_;
  std::uint64_t cyclesAtStart_;
};

}  // namespace kith::cli
