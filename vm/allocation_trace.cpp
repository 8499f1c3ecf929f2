#include "vm/allocation_trace.h"

namespace kith::vm {

void AllocationTrace::allocated(const Handle* handle, std::size_t bytes, std::size_t slots) {
  std::uint64_t id = nextId_++;
  if (handle->slot >= idBySlot_.size()) idBySlot_.resize(slots, 0);
  idBySlot_[handle->slot] = id + 1;
  writer_->record({heap::TraceEventKind::alloc, time_++, id, bytes});
}

void AllocationTrace::allocatedUnfreed(std::size_t bytes) {
  writer_->record({heap::TraceEventKind::alloc, time_++, nextId_++, bytes});
}

void AllocationTrace::freed(const Handle* handle) {
  if (handle->slot >= idBySlot_.size() || idBySlot_[handle->slot] == 0) return;
  std::uint64_t id = idBySlot_[handle->slot] - 1;
  idBySlot_[handle->slot] = 0;
  writer_->record({heap::TraceEventKind::free, time_++, id, 0});
}

void AllocationTrace::failed(std::size_t bytes) {
  writer_->record({heap::TraceEventKind::failed, time_++, 0, bytes});
}

}  // namespace kith::vm
