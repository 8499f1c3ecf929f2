// CollectedSpace: the object space as its collector sees it — and all a collector
// (vm/collector.h, gc/) sees of it: the heap, the handle table to walk, the roots
// (through the VM's binding, vm/vm_binding.h), freeing an object's block and its
// handle, releasing a box, and the two things the space learns from each cycle.
// MMTk hands its plans the same kind of view of a VM (mmtk-core src/vm/mod.rs:
// VMBinding, a set of traits the plan is generic over, resolved at compile time);
// here it is one concrete class, so the sweep's per-object calls (freeObject,
// releaseBox, isBox) are inline, as they were on the space itself: no virtual call
// per freed object beyond the heap's own. Only the once-per-cycle calls
// (boxRoomBytes, collectionEnded) go back to the owning space through Owner.
// HandleTableSpace (vm/handle_table_space.h) owns one and shares its handle table
// and budget with the allocation gate; gc/ never includes that header
// (tests/architecture).
#pragma once

#include <cstddef>
#include <vector>

#include "heap/heap.h"
#include "vm/allocation_trace.h"
#include "vm/collector.h"
#include "vm/handle_table.h"
#include "vm/value.h"
#include "vm/vm_binding.h"

namespace kith::vm {

class CollectedSpace {
 public:
  // What the owning space learns from its collector, once per cycle.
  class Owner {
   public:
    // Handle bytes of boxes that may still be made before their limit forces a collection.
    virtual std::size_t boxRoomBytes() const = 0;
    // Every collection ends here (HandleTableSpace: the box limit, the GC overhead limit).
    virtual void collectionEnded(GcCause cause, std::size_t bytesBefore, std::size_t bytesAfter,
                                 std::size_t heapBytes) = 0;

   protected:
    ~Owner() = default;
  };

  // `liveBoxes` is the owning space's count (its gate makes the boxes).
  CollectedSpace(heap::Heap& heap, VmBinding& binding, std::size_t& liveBoxes, const ClassInfo* boxedIntClass,
                 Owner& owner)
      : heap_(heap), binding_(binding), liveBoxes_(liveBoxes), boxedIntClass_(boxedIntClass), owner_(owner) {}
  CollectedSpace(const CollectedSpace&) = delete;
  CollectedSpace& operator=(const CollectedSpace&) = delete;

  heap::Heap& heap() const { return heap_; }
  HandleTable& handles() { return handles_; }
  const HandleTable& handles() const { return handles_; }
  bool isBox(const Handle* h) const { return h->klass == boxedIntClass_; }

  // Calls fn(const Value&) for every root the VM reports (VmBinding::gatherRoots).
  template <class Fn>
  void forEachRoot(Fn&& fn) {
    vm::forEachRoot(binding_, rootScratch_, fn);
  }

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

  std::size_t boxRoomBytes() const { return owner_.boxRoomBytes(); }
  // Collectors report every collection; when the run is thrashing
  // (vm/gc_overhead_limit.h) the next allocation throws the catchable "out of
  // memory" saying so. System.gc(), --gc-stress and boxed-int collections do not count.
  void collectionEnded(GcCause cause, std::size_t bytesBefore, std::size_t bytesAfter, std::size_t heapBytes) {
    owner_.collectionEnded(cause, bytesBefore, bytesAfter, heapBytes);
  }

 private:
  friend class HandleTableSpace;  // its allocation gate shares the table, the trace, the budget and releaseBlock

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

  heap::Heap& heap_;
  VmBinding& binding_;
  std::size_t& liveBoxes_;
  const ClassInfo* boxedIntClass_;
  Owner& owner_;
  HandleTable handles_;
  // Here, not in the owning space, so that the free path reads it at a fixed offset
  // from `this`, as it reads the table (a reference would cost a load per object freed).
  AllocationTrace trace_;
  bool checkFreedObjects_ = false;  // poison freed objects (VMOptions::checkFreedObjects)
  std::size_t budgetLimit_ = 0;     // see VMOptions::unboundedHeapLimit; 0 when the heap has an arena
  std::size_t budgetInUse_ = 0;
  std::vector<Value> rootScratch_;  // forEachRoot's, kept for its capacity
};

}  // namespace kith::vm
