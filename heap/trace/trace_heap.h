// TraceHeap: records every malloc and free through Super as trace events (trace.h)
// to a sink — a TraceWriter to a file, a TraceBuffer in memory — so the run can be
// replayed on any other policy. `kith run --trace` does not go through it: the
// program's allocation path records its own requests, with the same TraceIdMap
// and TraceWriter. Objects are named by ids 0, 1, 2, ...
// in allocation order; the logical time is the event's sequence number from 0.
// A failed malloc is recorded as a `failed` event (size, no id).
//
// Recording starts when a sink is set (set it once, before or during the run): a
// free of a block allocated before that is passed down but not recorded, so the
// trace stays self-consistent. Metadata: the pointer -> id table lives in this
// object (a TraceIdMap in the system heap), outside Super's memory.
#pragma once

#include <cstddef>
#include <cstdint>

#include "heap/layer.h"
#include "heap/outcome.h"
#include "heap/trace/trace.h"

namespace kith::heap {

template <class Super, TraceSink Sink = TraceWriter>
class TraceHeap : public Super {
  static_assert(HeapLayer<Super>, "TraceHeap needs Super::malloc and Super::free");

 public:
  using Super::Super;

  // The sink is not owned and must outlive the recording; nullptr pauses it.
  void setTraceSink(Sink* sink) { sink_ = sink; }

  void* malloc(std::size_t size) {
    void* p = Super::malloc(size);
    if (!sink_) return p;
    if (!p) {
      sink_->record({TraceEventKind::failed, time_++, 0, size});
      return nullptr;
    }
    std::uint64_t id = nextId_++;
    ids_[p] = id;
    sink_->record({TraceEventKind::alloc, time_++, id, size});
    return p;
  }

  // free(nullptr) does nothing, as in C, and is not recorded.
  void free(void* p) {
    if (!p) return;
    if (auto it = ids_.find(p); it != ids_.end()) {
      if (sink_) sink_->record({TraceEventKind::free, time_++, it->second, 0});
      ids_.erase(it);
    }
    Super::free(p);
  }

  // A moving Super relocates blocks; the id must follow the block.
  void setRelocator(RelocateFn fn, void* context)
    requires requires(Super s, RelocateFn f, void* c) { s.setRelocator(f, c); }
  {
    relocate_ = fn;
    relocateContext_ = context;
    Super::setRelocator(fn ? &relocated : nullptr, fn ? this : nullptr);
  }

  std::uint64_t eventsRecorded() const { return time_; }

 private:
  static void relocated(void* self, void* from, void* to, std::size_t size) {
    auto* heap = static_cast<TraceHeap*>(self);
    if (auto it = heap->ids_.find(from); it != heap->ids_.end()) {
      std::uint64_t id = it->second;
      heap->ids_.erase(it);
      heap->ids_[to] = id;
    }
    if (heap->relocate_) heap->relocate_(heap->relocateContext_, from, to, size);
  }

  Sink* sink_ = nullptr;
  std::uint64_t time_ = 0;
  std::uint64_t nextId_ = 0;
  TraceIdMap ids_;
  RelocateFn relocate_ = nullptr;
  void* relocateContext_ = nullptr;
};

}  // namespace kith::heap
