// HandleTableSpace: the object space over a heap policy (vm/object_space.h). Every
// object has a handle in a table outside the heap (vm/handle_table.h) and a
// collector (vm/collector.h, gc/) frees the unreachable ones through the space's
// CollectedSpace (vm/collected_space.h: the table, the roots, the free path), all
// it sees of the space. The allocation gate: the collector's per-allocation check
// (Collector::beforeAllocation: may run a collection or an incremental slice), then
// heap.malloc. On failure, in this order: a full collection, a retry; then, on a
// policy that can move blocks (knuth, estranged), Heap::mallocDefragmenting, the one
// request with its defragmenter on; then the catchable "out of memory: requested N
// bytes". Also here: the budget of a heap without an arena, --gc-stress=move,
// freed-object poisoning and the GC overhead limit.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <string>

#include "vm/collected_space.h"
#include "vm/gc_overhead_limit.h"
#include "vm/object_space.h"

namespace kith::vm {

class HandleTableSpace final : public ObjectSpace, private CollectedSpace::Owner {
 public:
  HandleTableSpace(heap::Heap& heap, Collector& collector, VmBinding& binding, ClassInfo* boxedIntClass,
                   const VMOptions& options);
  ~HandleTableSpace() override;

  Handle* allocate(ClassInfo* klass, std::size_t bytes, Handle* near = nullptr) override;
  Handle* boxInteger(std::int64_t i) override;
  void collectGarbage(GcCause cause) override { collector_.collect(collected_, cause); }
  void backEdgeSlice() override { collector_.backEdgeSlice(collected_); }
  const HandleTable& handles() const override { return collected_.handles(); }
  HandleTable& handles() { return collected_.handles(); }
  void setTraceWriter(heap::TraceWriter* writer) override { collected_.trace_.setWriter(writer); }
  // The view its collector gets (vm/collected_space.h).
  CollectedSpace& collected() { return collected_; }
  // Frees one object and its handle, as a collector would (CollectedSpace::freeObject).
  std::size_t freeObject(Handle* handle) { return collected_.freeObject(handle); }

 private:
  static constexpr std::size_t kMinBoxLimit = std::size_t{1} << 20;  // 24 MiB of handles

  static void relocateObject(void* context, void* from, void* to, std::size_t size);
  void* mallocWithinBudget(std::size_t bytes, const void* hint);
  void* tryMalloc(std::size_t bytes, const void* hint) {
    return collected_.budgetLimit_ ? mallocWithinBudget(bytes, hint) : heap_.malloc(bytes, hint);
  }
  void* mallocAfterCollecting(std::size_t bytes, ClassInfo* klass, Handle* near);
  // CollectedSpace::Owner
  std::size_t boxRoomBytes() const override {
    return boxLimit_ > liveBoxes_ ? (boxLimit_ - liveBoxes_) * sizeof(Handle) : 0;
  }
  void collectionEnded(GcCause cause, std::size_t bytesBefore, std::size_t bytesAfter,
                       std::size_t heapBytes) override;
  void applyStress(std::size_t bytes) override;
  void moveObjectsForStress();  // --gc-stress=move
  void payForBoxes() override;
  [[noreturn]] void throwThrashing();

  Collector& collector_;
  CollectedSpace collected_;    // the handle table, the free path, the budget
  bool moveObjects_ = false;    // VMOptions::moveObjects
  std::size_t moveCursor_ = 0;  // the handle slot moveObjectsForStress looks at next
  GcOverheadLimit overheadLimit_;
  bool thrashing_ = false;  // see collectionEnded
  std::string thrashingMessage_;
  std::size_t boxLimit_ = kMinBoxLimit;
};

}  // namespace kith::vm
