// ObjectSpace: where the VM's objects live — the allocation gate every object
// passes, the heap policy behind it, boxed ints, the allocation trace and the
// testing aids that act on allocation (--fail-alloc, the step limit's charge). The
// VM asks it for objects and boxes; a collector (vm/collector.h) frees them. Two
// implementations, chosen by the heap (makeObjectSpace):
//   HandleTableSpace (vm/handle_table_space.h): every object has a handle in a
//     table outside the heap, and a Collector frees the unreachable ones;
//   CollectedHeapSpace (vm/collected_heap_space.h): the heap collects garbage
//     itself (`--heap=boehm`); each handle lives in its object's block.
// The gate is one virtual call per allocation, beside the heap's own (heap::Heap).
#pragma once

#include <cstddef>
#include <cstdint>
#include <limits>
#include <memory>
#include <string>
#include <vector>

#include "heap/heap.h"
#include "heap/trace/trace.h"
#include "vm/collector.h"
#include "vm/handle_table.h"
#include "vm/object.h"
#include "vm/vm_binding.h"
#include "vm/vm_options.h"

namespace kith::vm {

class ObjectSpace {
 public:
  // An allocation's charge against VMOptions::stepLimit: with a collection before
  // each one (--gc-stress), a loop that only throws and catches is slow per step.
  static constexpr std::uint64_t kStepsPerAllocation = 50;

  ObjectSpace(const ObjectSpace&) = delete;
  ObjectSpace& operator=(const ObjectSpace&) = delete;
  virtual ~ObjectSpace();

  // --- the allocation gate ------------------------------------------------------
  // A new object of `klass`, `bytes` long, its header written; throws Kith's
  // catchable "out of memory" (through the VM: VmBinding::throwError) when no block can be had.
  // `near`: an object the new one belongs with (its owner, the closure of an upvalue,
  // the object whose field receives it); the heap is asked to put it close
  // (heap::Heap::malloc(size, near)). Without one, near the last object of `klass`.
  virtual Handle* allocate(ClassInfo* klass, std::size_t bytes, Handle* near = nullptr) = 0;
  // A boxed int (value.h); never collects.
  virtual Handle* boxInteger(std::int64_t i) = 0;
  // A full collection now (System.gc() passes systemGc).
  virtual void collectGarbage(GcCause cause) = 0;
  // The interpreter's loop back-edge found the collector's back-edge budget spent
  // (Collector::atBackEdge): a slice of an incremental cycle in progress.
  virtual void backEdgeSlice() = 0;
  // At a safe point: boxes made since the last poll pay the collector's pacing, and a
  // collection runs when they have piled up (vm/boxed_int.cpp).
  void collectBoxesIfDue() {
    if (boxesUnpaid_ != 0) [[unlikely]] payForBoxes();
  }
  // Kith's catchable "out of memory: requested N bytes".
  [[noreturn]] void throwOutOfMemory(std::size_t bytes);
  bool isBox(const Handle* h) const { return h->klass == boxedIntClass_; }
  // This thread's boxes (Value::integer has no space to ask) go to this space from
  // now on; the newest space takes them when made, the VM at every entry to run().
  void boxHere();

  // --- roots ----------------------------------------------------------------------
  // Calls fn(const Value&) for every root the VM reports (VmBinding::gatherRoots).
  template <class Fn>
  void forEachRoot(Fn&& fn) {
    vm::forEachRoot(binding_, rootScratch_, fn);
  }

  // --- statistics -----------------------------------------------------------------
  heap::Heap& heap() { return heap_; }
  // The handles of the objects (vm/handle_table.h); empty where each handle lives in
  // its object's block (CollectedHeapSpace).
  virtual const HandleTable& handles() const = 0;
  std::uint64_t objectsCreated() const { return objectsCreated_; }
  std::size_t liveBoxes() const { return liveBoxes_; }
  std::uint64_t boxesCreated() const { return boxesCreated_; }
  // Records every allocation and free to `writer` (heap/trace/trace.h), ids by object.
  // The trace (vm/allocation_trace.h) is the subclass's, beside its free path.
  virtual void setTraceWriter(heap::TraceWriter* writer) = 0;

 protected:
  static constexpr std::size_t kMaxObjectBytes = std::numeric_limits<std::uint32_t>::max();  // ObjectHeader::size

  ObjectSpace(heap::Heap& heap, VmBinding& binding, ClassInfo* boxedIntClass, const VMOptions& options);

  // Before a request reaches the heap: a size the header can hold, and, when a
  // testing aid acts on allocation (stressActions_), its step charge and injected failure.
  void admit(std::size_t bytes) {
    if (bytes > kMaxObjectBytes) throwOutOfMemory(bytes);
    if (stressActions_) [[unlikely]] applyStress(bytes);
  }
  virtual void applyStress(std::size_t bytes);
  // The boxes made since the last poll (boxesUnpaid_) are due.
  virtual void payForBoxes() = 0;
  void boxMade() {
    ++liveBoxes_;
    ++boxesCreated_;
  }
  // Writes the header of a new object and counts it.
  void initializeObject(void* object, Handle* handle, ClassInfo* klass, std::size_t bytes) {
    auto* header = static_cast<ObjectHeader*>(object);
    header->classId = klass->id;
    header->size = static_cast<std::uint32_t>(bytes);
    header->handle = handle;
    ++objectsCreated_;
  }

  heap::Heap& heap_;
  VmBinding& binding_;
  ClassInfo* boxedIntClass_;
  bool stressActions_ = false;  // a failure injection, a step limit or (subclasses) more is on
  std::size_t liveBoxes_ = 0;
  std::size_t boxesUnpaid_ = 0;  // made since the last poll (collectBoxesIfDue); 0 where the heap paces itself

 private:
  bool injectedFailure();  // --fail-alloc: this request fails
  void beginBoxing();      // the constructor's boxHere, remembering the space before
  void endBoxing();        // the destructor's: boxes go back to the space before

  std::uint64_t failAllocation_;
  std::uint64_t failAllocationEvery_;
  bool chargeSteps_;  // VMOptions::stepLimit is on
  std::uint64_t allocationRequests_ = 0;
  std::uint64_t objectsCreated_ = 0;
  std::uint64_t boxesCreated_ = 0;
  std::vector<Value> rootScratch_;  // forEachRoot's, kept for its capacity
  ObjectSpace* previousBoxingSpace_ = nullptr;
};

// The space for `heap`: a CollectedHeapSpace when the heap collects garbage itself
// and accepts the space's root scanner, else a HandleTableSpace that `collector` collects.
std::unique_ptr<ObjectSpace> makeObjectSpace(heap::Heap& heap, Collector& collector, VmBinding& binding,
                                             ClassInfo* boxedIntClass, const VMOptions& options);

}  // namespace kith::vm
