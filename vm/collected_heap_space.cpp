#include "vm/collected_heap_space.h"

#include <new>

namespace kith::vm {

CollectedHeapSpace::CollectedHeapSpace(heap::Heap& heap, VmBinding& binding, ClassInfo* boxedIntClass,
                                       const VMOptions& options)
    : ObjectSpace(heap, binding, boxedIntClass, options) {
  scansRoots_ = heap_.setRootScanner(&CollectedHeapSpace::pushRoots, this);
}

CollectedHeapSpace::~CollectedHeapSpace() {
  if (scansRoots_) heap_.setRootScanner(nullptr, nullptr);  // its objects die with its heap
}

// The heap has already collected before returning null; one more full collection,
// then "out of memory".
Handle* CollectedHeapSpace::allocate(ClassInfo* klass, std::size_t bytes, Handle*) {
  admit(bytes);
  void* block = heap_.malloc(kHandleBytes + bytes);
  if (!block) {
    if (trace_.recording()) trace_.failed(bytes);
    heap_.collect();
    block = heap_.malloc(kHandleBytes + bytes);
    if (!block) throwOutOfMemory(bytes);
  }
  void* object = static_cast<std::byte*>(block) + kHandleBytes;
  auto* handle = new (block) Handle{object, klass, 0, 0};  // slot unused: not in a table
  initializeObject(object, handle, klass, bytes);
  if (trace_.recording()) trace_.allocatedUnfreed(bytes);  // frees are the heap's, unseen
  return handle;
}

// A box is a block of the heap (a Value holds the Handle* plus tag 1, an interior
// pointer, which libgc honours).
Handle* CollectedHeapSpace::boxInteger(std::int64_t i) {
  void* block = heap_.malloc(sizeof(Handle));
  if (!block) throwOutOfMemory(sizeof(Handle));
  auto* handle = new (block) Handle{reinterpret_cast<void*>(static_cast<std::uintptr_t>(i)), boxedIntClass_, 0, 0};
  boxMade();
  return handle;
}

void CollectedHeapSpace::pushRoots(void* context, heap::PushRootsFn push) {
  auto* space = static_cast<CollectedHeapSpace*>(context);
  std::vector<Handle*>& roots = space->pushedRoots_;
  roots.clear();
  space->forEachRoot([&](const Value& v) {
    if (v.holdsHandle()) roots.push_back(v.handle());
  });
  if (!roots.empty()) push(roots.data(), roots.data() + roots.size());
}

}  // namespace kith::vm
