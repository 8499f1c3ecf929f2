// Boxed ints (vm/value.h): an int outside 48 bits is a handle of class "boxed int"
// whose `object` word holds the 64 bits. Value::integer has no VM to ask, so each
// thread's boxes go to one object space (ObjectSpace::boxHere), which makes them
// (HandleTableSpace: in its handle table, outside the studied heap, so making one
// never collects and is safe anywhere; the collectors mark boxes as leaves and free
// them with releaseBox, and a program that makes boxes faster than its heap
// allocations trigger collections is collected at the interpreter's next poll,
// ObjectSpace::collectBoxesIfDue).
#include <new>

#include "vm/object_space.h"

namespace kith::vm {

namespace {
// The space that takes boxes made on this thread; set by the newest space and by
// every entry into VM::run().
thread_local ObjectSpace* boxingSpace = nullptr;
}  // namespace

void ObjectSpace::beginBoxing() {
  previousBoxingSpace_ = boxingSpace;
  boxingSpace = this;
}

void ObjectSpace::endBoxing() {
  if (boxingSpace == this) boxingSpace = previousBoxingSpace_;
}

void ObjectSpace::boxHere() { boxingSpace = this; }

Handle* boxInteger(std::int64_t i) {
  if (boxingSpace) [[likely]] return boxingSpace->boxInteger(i);
  // No space on this thread (a unit test of Values): a box nobody collects, kept to exit.
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

}  // namespace kith::vm
