// The heaps `kith exec` runs programs on besides the registry's policies: the
// hand-written reference Kingsley (heap/classic/kingsley_reference.h), which the
// composition-cost benchmark and the Heap Layers paper's Figure 6 set beside the
// composed `kingsley`. It is not a registry policy (kith run, replay and the study
// do not take it), so it is made here, behind the same Heap face and StatsHeap as
// makeHeap gives the others.
#pragma once

#include <cstddef>
#include <memory>
#include <string_view>

#include "heap/classic/kingsley_reference.h"
#include "heap/heap.h"
#include "heap/statistics/stats_heap.h"

namespace kith::preload {

inline constexpr std::string_view kReferenceKingsley = "kingsley_reference";

class ReferenceKingsleyHeap final : public heap::Heap {
 public:
  ReferenceKingsleyHeap(std::size_t bytes, heap::StatisticsMode mode) : heap_(bytes) { heap_.setMode(mode); }
  void* malloc(std::size_t size) override { return heap_.malloc(size); }
  void free(void* p) override { heap_.free(p); }
  std::size_t getSize(void* p) override { return heap_.getSize(p); }
  heap::HeapStatistics statistics() const override { return heap_.statistics(); }
  std::size_t bytesInUse() const override { return heap_.bytesInUse(); }
  bool setRelocator(heap::RelocateFn, void*) override { return false; }
  std::string checkInvariants() override { return {}; }
  std::string_view name() const override { return kReferenceKingsley; }
  std::byte* arenaBase() const override { return heap_.arenaBase(); }
  std::size_t arenaSize() const override { return heap_.arenaSize(); }

 private:
  heap::StatsHeap<heap::KingsleyReference> heap_;
};

// The heap a program runs on: the registry's policy `name`, or the reference
// Kingsley; nullptr for an unknown name. Throws std::bad_alloc when the system will
// not map it, as makeHeap does.
inline std::unique_ptr<heap::Heap> makeProgramHeap(std::string_view name, std::size_t bytes,
                                                   heap::StatisticsMode mode) {
  if (name == kReferenceKingsley) return std::make_unique<ReferenceKingsleyHeap>(bytes, mode);
  return heap::makeHeap(name, bytes, mode);
}

}  // namespace kith::preload
