// Boxed ints (vm/value.h): an int outside 48 bits is a handle of class "boxed int"
// whose `object` word holds the 64 bits. Boxes live in the handle table, outside the
// studied heap, so making one never collects and is safe anywhere; the collectors
// mark boxes as leaves and free them with releaseBox. A program that makes boxes
// faster than its heap allocations trigger collections is collected at the
// interpreter's next poll (collectBoxesIfDue).
#include <cstdio>
#include <new>

#include "vm/collector.h"
#include "vm/vm.h"

namespace kith::vm {

namespace {
// The VM whose handle table takes boxes made on this thread (Value::integer has no
// VM to ask); set by the newest VM and by every entry into run().
thread_local VM* boxingVM = nullptr;
}  // namespace

void VM::beginBoxing() {
  previousBoxingVM_ = boxingVM;
  boxingVM = this;
}

void VM::endBoxing() {
  if (boxingVM == this) boxingVM = previousBoxingVM_;
}

void VM::boxHere() { boxingVM = this; }

Handle* boxInteger(std::int64_t i) {
  if (boxingVM) [[likely]] return boxingVM->boxInteger(i);
  // No VM on this thread (a unit test of Values): a box nobody collects, kept to exit.
  static HandleTable orphans;
  static ClassInfo orphanClass = [] {
    ClassInfo klass;
    klass.kind = ObjectKind::boxedInt;
    klass.name = kindName(ObjectKind::boxedInt);
    return klass;
  }();
  Handle* box = orphans.allocate(reinterpret_cast<void*>(static_cast<std::uintptr_t>(i)), &orphanClass);
  if (!box) throw std::bad_alloc();
  return box;
}

Handle* VM::boxInteger(std::int64_t i) {
  void* bits = reinterpret_cast<void*>(static_cast<std::uintptr_t>(i));
  ClassInfo* klass = boxedIntClass_;
  Handle* handle;
  if (heapCollects_) {
    // Boehm frees what it cannot reach: the box is a block of its heap (a Value
    // holds the Handle* plus tag 1, an interior pointer, which libgc honours).
    void* block = heap_.malloc(sizeof(Handle));
    if (!block) throwOutOfMemory(sizeof(Handle));
    handle = new (block) Handle{bits, klass, 0, 0};
  } else {
    handle = handles_.allocate(bits, klass);
    if (!handle) throw std::bad_alloc();
    handle->gcBits = collector_.allocationColour();  // black while an incremental cycle marks
  }
  ++liveBoxes_;
  ++boxesUnpaid_;
  ++boxesCreated_;
  return handle;
}

void VM::releaseBox(Handle* box) {
  --liveBoxes_;
  handles_.release(box);
}

void VM::collectBoxesIfDue() {
  if (boxesUnpaid_ == 0 || heapCollects_) return;
  // Boxes pay the collector's pacing like heap bytes (an incremental cycle gets its
  // slices from them too, so one that boxes started keeps up with them).
  std::size_t bytes = boxesUnpaid_ * sizeof(Handle);
  boxesUnpaid_ = 0;
  collector_.beforeAllocation(*this, bytes);
  if (liveBoxes_ < boxLimit_) return;
  boxLimit_ = 2 * liveBoxes_;  // until the collection asked for here ends (collectionEnded)
  collector_.boxesPiledUp(*this);
}

}  // namespace kith::vm
