// AllocationTrace: --trace, the program's requests as the recorder sees them
// (heap/trace/trace.h): each allocation gets the next id, and its free names it
// again. The id is kept by handle slot (Handle::slot), so a moved object keeps its
// id and a free needs no hash lookup.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "heap/trace/trace.h"
#include "vm/handle_table.h"

namespace kith::vm {

class AllocationTrace {
 public:
  void setWriter(heap::TraceWriter* writer) { writer_ = writer; }
  bool recording() const { return writer_ != nullptr; }

  // An object allocated; `slots` is its handle table's capacity (the side table
  // grows to it).
  void allocated(const Handle* handle, std::size_t bytes, std::size_t slots);
  // An object whose free will never be seen (a heap that collects itself frees it):
  // no id is kept.
  void allocatedUnfreed(std::size_t bytes);
  // An object freed; one allocated before the trace began is not recorded.
  void freed(const Handle* handle);
  // A request the heap refused.
  void failed(std::size_t bytes);

 private:
  heap::TraceWriter* writer_ = nullptr;
  std::uint64_t time_ = 0;
  std::uint64_t nextId_ = 0;
  // 1 + the trace id of the object in handle slot i; 0: none (made before the trace
  // began, or freed).
  std::vector<std::uint64_t> idBySlot_;
};

}  // namespace kith::vm
