#include "vm/handle_table_space.h"

#include <cstdlib>
#include <cstring>

#include "vm/freed_object_guard.h"

namespace kith::vm {

namespace {

constexpr std::size_t kHandleQuarantine = 1 << 16;  // released handles that wait before reuse
constexpr std::size_t kMovesPerAllocation = 8;      // --gc-stress=move: objects moved per allocation

}  // namespace

HandleTableSpace::HandleTableSpace(heap::Heap& heap, Collector& collector, VmBinding& binding,
                                   ClassInfo* boxedIntClass, const VMOptions& options)
    : ObjectSpace(heap, binding, boxedIntClass, options),
      collector_(collector),
      collected_(heap, binding, liveBoxes_, boxedIntClass, *this),
      moveObjects_(options.moveObjects),
      overheadLimit_(options.gcOverheadLimit) {
  bool checkFreedObjects = options.checkFreedObjects || options.moveObjects;
#if !defined(NDEBUG) || defined(__SANITIZE_ADDRESS__)
  checkFreedObjects = true;
#endif
  if (checkFreedObjects) {
    collected_.checkFreedObjects_ = true;
    handles().setQuarantine(kHandleQuarantine, poisonedObjectPage());
    installFreedObjectFaultHandler();
  }
  stressActions_ = stressActions_ || moveObjects_;
  if (!heap_.arenaBase()) collected_.budgetLimit_ = options.unboundedHeapLimit;
}

HandleTableSpace::~HandleTableSpace() {
  // A policy over a fixed arena drops every object with the arena; the system
  // allocator (`malloc`) has no arena, so its live objects go back one by one
  // (else LeakSanitizer reports them). Freed through freeObject so that the heap
  // statistics and a trace see the frees too; no trace is attached by now.
  if (!heap_.arenaBase())
    handles().forEachLive([&](Handle* h) {
      if (isBox(h)) collected_.releaseBox(h);
      else collected_.freeObject(h);
    });
}

Handle* HandleTableSpace::allocate(ClassInfo* klass, std::size_t bytes, Handle* near) {
  admit(bytes);
  collector_.beforeAllocation(collected_, bytes);  // may collect (threshold, --gc-stress) or run a slice
  if (thrashing_) throwThrashing();
  // One virtual call per allocation (heap::Heap), whose cost the studies measure.
  void* object = tryMalloc(bytes, near ? near->object : klass->lastAllocated);
  if (!object) [[unlikely]] object = mallocAfterCollecting(bytes, klass, near);
  Handle* handle = handles().allocate(object, klass);
  if (!handle) {
    heap_.free(object);
    throwOutOfMemory(bytes);
  }
  initializeObject(object, handle, klass, bytes);
  handle->gcBits = collector_.allocationColour();  // black while an incremental cycle marks
  klass->lastAllocated = object;
  if (collected_.trace_.recording()) collected_.trace_.allocated(handle, bytes, handles().capacity());
  return handle;
}

// The heap refused: collect -> retry -> defragment (moving heaps) -> "out of memory".
void* HandleTableSpace::mallocAfterCollecting(std::size_t bytes, ClassInfo* klass, Handle* near) {
  if (collected_.trace_.recording()) collected_.trace_.failed(bytes);
  collector_.collect(collected_, GcCause::allocationFailure);
  if (thrashing_) throwThrashing();
  // The hint is read at each try: a collection may have moved `near`.
  auto hint = [&]() -> const void* { return near ? near->object : klass->lastAllocated; };
  void* object = tryMalloc(bytes, hint());
  // A moving heap defragments only now, after the collection freed what it could
  // (moving garbage would be wasted work); nullptr at once on one that cannot move.
  // Never under the budget: a heap without an arena does not move blocks.
  if (!object) object = heap_.mallocDefragmenting(bytes, hint(), &HandleTableSpace::relocateObject, this);
  if (!object) {
    // No second X event: the trace records the program's request, failed once at the
    // first refusal above, whatever the gate retried (docs/RELIABILITY.md).
    overheadLimit_.reset();  // plainly out of memory: not a streak of thrashing
    throwOutOfMemory(bytes);
  }
  return object;
}

// The system allocator has no fixed size: hold it to the budget as if it had one.
void* HandleTableSpace::mallocWithinBudget(std::size_t bytes, const void* hint) {
  void* object = heap_.malloc(bytes, hint);
  if (object && collected_.budgetLimit_) {
    std::size_t block = heap_.getSize(object);
    if (collected_.budgetInUse_ + block > collected_.budgetLimit_) {
      heap_.free(object);
      return nullptr;
    }
    collected_.budgetInUse_ += block;
  }
  return object;
}

// The heap moved an object (defragmentation) and has already copied its bytes:
// the header at the new address names the handle; the handle is all that changes.
void HandleTableSpace::relocateObject(void*, void*, void* to, std::size_t) {
  static_cast<ObjectHeader*>(to)->handle->object = to;  // a trace's ids go by handle: unchanged
}

void HandleTableSpace::applyStress(std::size_t bytes) {
  ObjectSpace::applyStress(bytes);
  if (moveObjects_) moveObjectsForStress();
}

// Moves the next kMovesPerAllocation live objects (a cursor over the handle table)
// to fresh blocks of the same size, as a moving collector would: copy, point the
// handle at the copy, poison and free the old block. Uses the heap directly (no
// collection); an object that finds no block stays where it is.
void HandleTableSpace::moveObjectsForStress() {
  std::size_t capacity = handles().capacity();
  if (capacity == 0 || collected_.trace_.recording()) return;  // a trace records the program's own allocations only
  for (std::size_t moved = 0, looked = 0; moved < kMovesPerAllocation && looked < capacity; ++looked) {
    moveCursor_ = (moveCursor_ + 1) % capacity;
    Handle* h =
        &handles().chunk(moveCursor_ / HandleTable::kHandlesPerChunk)[moveCursor_ % HandleTable::kHandlesPerChunk];
    if (!h->klass || isBox(h)) continue;  // a free slot, or a box (no heap block)
    std::size_t size = static_cast<ObjectHeader*>(h->object)->size;
    void* to = tryMalloc(size, nullptr);
    if (!to) return;
    std::memcpy(to, h->object, size);
    void* from = h->object;
    h->object = to;
    collected_.releaseBlock(from);
    ++moved;
  }
}

void HandleTableSpace::collectionEnded(GcCause cause, std::size_t bytesBefore, std::size_t bytesAfter,
                                       std::size_t heapBytes) {
  // Half the survivors again, at least 2^20, before the next box-driven collection;
  // not twice them: an incremental cycle's survivors include every box born during
  // it, and doubling those each cycle would let the limit ratchet up.
  boxLimit_ = liveBoxes_ + std::max(kMinBoxLimit, liveBoxes_ / 2);
  if (cause == GcCause::systemGc || cause == GcCause::stress || cause == GcCause::boxedIntegers) return;
  bool heapRefused = cause == GcCause::allocationFailure;
  if (overheadLimit_.collectionEnded(bytesBefore, bytesAfter, heapBytes, heapRefused, &thrashingMessage_))
    thrashing_ = true;
}

void HandleTableSpace::throwThrashing() {
  thrashing_ = false;
  std::string message = std::move(thrashingMessage_);
  binding_.throwError(message);
  std::abort();  // not reached: GCC does not carry [[noreturn]] through a virtual call
}

// Boxes live in the handle table, outside the studied heap, so making one never
// collects and is safe anywhere.
Handle* HandleTableSpace::boxInteger(std::int64_t i) {
  Handle* handle = handles().allocate(reinterpret_cast<void*>(static_cast<std::uintptr_t>(i)), boxedIntClass_);
  if (!handle) throwOutOfMemory(sizeof(Handle));
  handle->gcBits = collector_.allocationColour();  // black while an incremental cycle marks
  boxMade();
  ++boxesUnpaid_;
  return handle;
}

void HandleTableSpace::payForBoxes() {
  // Boxes pay the collector's pacing like heap bytes (an incremental cycle gets its
  // slices from them too, so one that boxes started keeps up with them).
  std::size_t bytes = boxesUnpaid_ * sizeof(Handle);
  boxesUnpaid_ = 0;
  collector_.beforeAllocation(collected_, bytes);
  if (liveBoxes_ < boxLimit_) return;
  boxLimit_ = 2 * liveBoxes_;  // until the collection asked for here ends (collectionEnded)
  collector_.boxesPiledUp(collected_);
}

}  // namespace kith::vm
