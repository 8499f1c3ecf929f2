// HandleTableSpace: the object space over a heap policy (vm/object_space.h). Every
// object has a handle in a table outside the heap (vm/handle_table.h) and a
// collector (vm/collector.h, gc/) frees the unreachable ones through freeObject
// and releaseBox. The allocation gate: the collector's per-allocation check
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

#include "vm/gc_overhead_limit.h"
#include "vm/object_space.h"

namespace kith::vm {

class HandleTableSpace final : public ObjectSpace {
 public:
  HandleTableSpace(heap::Heap& heap, Collector& collector, Mutator& mutator, ClassInfo* boxedIntClass,
                   const VMOptions& options);
  ~HandleTableSpace() override;

  Handle* allocate(ClassInfo* klass, std::size_t bytes, Handle* near = nullptr) override;
  Handle* boxInteger(std::int64_t i) override;
  void collectGarbage(GcCause cause) override { collector_.collect(*this, cause); }
  void backEdgeSlice() override { collector_.backEdgeSlice(*this); }
  const HandleTable& handles() const override { return handles_; }
  HandleTable& handles() { return handles_; }

  // --- for collectors -------------------------------------------------------------
  // Frees one object and its handle; returns the bytes of the heap block freed
  // (Heap::freeAndGetSize: the sweeps count them without asking the heap again).
  std::size_t freeObject(Handle* handle) {
    if (trace_.recording()) trace_.freed(handle);
    std::size_t bytes = releaseBlock(handle->object);
    handles_.release(handle);
    return bytes;
  }
  // Frees an unreachable box (not freeObject: no heap block).
  void releaseBox(Handle* box) {
    --liveBoxes_;
    handles_.release(box);
  }
  // Handle bytes of boxes that may still be made before their limit forces a collection.
  std::size_t boxRoomBytes() const {
    return boxLimit_ > liveBoxes_ ? (boxLimit_ - liveBoxes_) * sizeof(Handle) : 0;
  }
  // Collectors report every collection; when the run is thrashing
  // (vm/gc_overhead_limit.h) the next allocation throws the catchable "out of
  // memory" saying so. System.gc(), --gc-stress and boxed-int collections do not count.
  void collectionEnded(GcCause cause, std::size_t bytesBefore, std::size_t bytesAfter, std::size_t heapBytes);

 private:
  static constexpr std::size_t kMinBoxLimit = std::size_t{1} << 20;  // 24 MiB of handles

  static void relocateObject(void* context, void* from, void* to, std::size_t size);
  void* mallocWithinBudget(std::size_t bytes, const void* hint);
  void* tryMalloc(std::size_t bytes, const void* hint) {
    return budgetLimit_ ? mallocWithinBudget(bytes, hint) : heap_.malloc(bytes, hint);
  }
  void* mallocAfterCollecting(std::size_t bytes, ClassInfo* klass, Handle* near);
  // Back to the heap (poisoned first when checking); returns the block's bytes.
  // Inline: the sweeps call it per object freed, and the heap's one virtual call is
  // all it should cost them.
  std::size_t releaseBlock(void* object) {
    if (checkFreedObjects_) [[unlikely]] poisonFreed(object);
    std::size_t bytes = heap_.freeAndGetSize(object);
    if (budgetLimit_) budgetInUse_ -= bytes;
    return bytes;
  }
  void poisonFreed(void* object);  // fills a freed object with kFreedObjectByte
  void applyStress(std::size_t bytes) override;
  void moveObjectsForStress();  // --gc-stress=move
  void payForBoxes() override;
  [[noreturn]] void throwThrashing();

  Collector& collector_;
  HandleTable handles_;
  bool checkFreedObjects_ = false;  // poison freed objects (VMOptions::checkFreedObjects)
  bool moveObjects_ = false;        // VMOptions::moveObjects
  std::size_t moveCursor_ = 0;      // the handle slot moveObjectsForStress looks at next
  std::size_t budgetLimit_ = 0;     // see VMOptions::unboundedHeapLimit; 0 when the heap has an arena
  std::size_t budgetInUse_ = 0;
  GcOverheadLimit overheadLimit_;
  bool thrashing_ = false;  // see collectionEnded
  std::string thrashingMessage_;
  std::size_t boxLimit_ = kMinBoxLimit;
};

}  // namespace kith::vm
