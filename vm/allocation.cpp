// The allocation gate (every object the VM makes passes here: the collector's pacing,
// the heap policy, traces, failure injection, out of memory) and the object factories.
#include "vm/vm.h"

#include <cmath>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <new>

#include "vm/freed_object_guard.h"

namespace kith::vm {

namespace {

constexpr std::size_t kMovesPerAllocation = 8;     // --gc-stress=move: objects moved per allocation
constexpr std::uint64_t kStepsPerAllocation = 50;   // VMOptions::stepLimit: what an allocation costs

std::uint64_t fnv1a(std::string_view s) {
  std::uint64_t h = 0xcbf29ce484222325ULL;
  for (unsigned char c : s) {
    h ^= c;
    h *= 0x100000001b3ULL;
  }
  return h;
}

}  // namespace

// --- the allocation gate -----------------------------------------------------------------

void VM::traceAllocation(const Handle* handle, std::size_t bytes) {
  std::uint64_t id = traceNextId_++;
  // Under a heap that collects itself the handle lives in the block and frees are
  // unseen (see allocateInCollectedHeap): no id to remember.
  if (!heapCollects_) {
    if (handle->slot >= traceIdBySlot_.size()) traceIdBySlot_.resize(handles_.capacity(), 0);
    traceIdBySlot_[handle->slot] = id + 1;
  }
  trace_->record({heap::TraceEventKind::alloc, traceTime_++, id, bytes});
}

void VM::traceFree(const Handle* handle) {
  if (handle->slot >= traceIdBySlot_.size() || traceIdBySlot_[handle->slot] == 0) return;
  std::uint64_t id = traceIdBySlot_[handle->slot] - 1;
  traceIdBySlot_[handle->slot] = 0;
  trace_->record({heap::TraceEventKind::free, traceTime_++, id, 0});
}

void VM::traceFailure(std::size_t bytes) {
  trace_->record({heap::TraceEventKind::failed, traceTime_++, 0, bytes});
}

// The system allocator has no fixed size: hold it to the budget as if it had one.
void* VM::mallocWithinBudget(std::size_t bytes, const void* hint) {
  void* object = heap_.malloc(bytes, hint);
  if (object && budgetLimit_) {
    std::size_t block = heap_.getSize(object);
    if (budgetInUse_ + block > budgetLimit_) {
      heap_.free(object);
      return nullptr;
    }
    budgetInUse_ += block;
  }
  return object;
}

Handle* VM::allocateObject(ClassInfo* klass, std::size_t bytes, Handle* near) {
  if (bytes > std::numeric_limits<std::uint32_t>::max()) throwOutOfMemory(bytes);
  if (stressActions_) {
    // Under a step limit an allocation spends steps too: with a collection before
    // each one (--gc-stress), a loop that only throws and catches is slow per step.
    spendSteps(kStepsPerAllocation);
    if (injectedFailure()) throwOutOfMemory(bytes);
    if (options_.moveObjects && !heapCollects_) moveObjectsForStress();
  }
  if (heapCollects_) return allocateInCollectedHeap(klass, bytes);
  collector_.beforeAllocation(*this, bytes);  // may collect (threshold, --gc-stress) or run a slice
  if (thrashing_) throwThrashing();
  // The hint is read at each try: a collection may have moved `near`.
  auto hint = [&]() -> const void* { return near ? near->object : klass->lastAllocated; };
  // One virtual call per allocation (heap::Heap), whose cost the studies measure.
  void* object = tryMalloc(bytes, hint());
  if (!object) {
    // collect -> retry -> defragment (moving heaps) -> "out of memory".
    if (trace_) traceFailure(bytes);
    collector_.collect(*this, GcCause::allocationFailure);
    if (thrashing_) throwThrashing();
    object = tryMalloc(bytes, hint());
    if (!object && canDefragment_) {
      heap_.setRelocator(&VM::relocateObject, this);
      object = tryMalloc(bytes, hint());
      heap_.setRelocator(nullptr, nullptr);
    }
    if (!object) {
      if (trace_) traceFailure(bytes);
      overheadLimit_.reset();  // plainly out of memory: not a streak of thrashing
      throwOutOfMemory(bytes);
    }
  }
  Handle* handle = handles_.allocate(object, klass);
  if (!handle) {
    heap_.free(object);
    throwOutOfMemory(bytes);
  }
  auto* header = static_cast<ObjectHeader*>(object);
  header->classId = klass->id;
  header->size = static_cast<std::uint32_t>(bytes);
  header->handle = handle;
  handle->gcBits = collector_.allocationColour();  // black while an incremental cycle marks
  klass->lastAllocated = object;
  ++objectsCreated_;
  if (trace_) traceAllocation(handle, bytes);
  return handle;
}

// See vm.h (heapCollects_) for the layout and why. Boehm has already collected
// before returning null; one more full collection, then "out of memory".
Handle* VM::allocateInCollectedHeap(ClassInfo* klass, std::size_t bytes) {
  void* block = heap_.malloc(kCollectedHandleBytes + bytes);
  if (!block) {
    if (trace_) traceFailure(bytes);
    heap_.collect();
    block = heap_.malloc(kCollectedHandleBytes + bytes);
    if (!block) throwOutOfMemory(bytes);
  }
  void* object = static_cast<std::byte*>(block) + kCollectedHandleBytes;
  auto* handle = new (block) Handle{object, klass, 0, 0};  // slot unused: not in the table
  auto* header = static_cast<ObjectHeader*>(object);
  header->classId = klass->id;
  header->size = static_cast<std::uint32_t>(bytes);
  header->handle = handle;
  ++objectsCreated_;
  if (trace_) traceAllocation(handle, bytes);  // frees are Boehm's, unseen
  return handle;
}

void VM::pushCollectedHeapRoots(void* context, heap::PushRootsFn push) {
  auto* vm = static_cast<VM*>(context);
  std::vector<Handle*>& roots = vm->collectedHeapRoots_;
  roots.clear();
  vm->forEachRoot([&](Value& v) {
    if (v.holdsHandle()) roots.push_back(v.handle());
  });
  if (!roots.empty()) push(roots.data(), roots.data() + roots.size());
}

void VM::freeObject(Handle* handle) {
  if (trace_) traceFree(handle);
  releaseBlock(handle->object);
  handles_.release(handle);
}

void VM::releaseBlock(void* object) {
  if (budgetLimit_) budgetInUse_ -= heap_.getSize(object);
  if (checkFreedObjects_) std::memset(object, kFreedObjectByte, static_cast<ObjectHeader*>(object)->size);
  heap_.free(object);
}

bool VM::injectedFailure() {
  ++allocationRequests_;
  return allocationRequests_ == options_.failAllocation ||
         (options_.failAllocationEvery && allocationRequests_ % options_.failAllocationEvery == 0);
}

// Moves the next kMovesPerAllocation live objects (a cursor over the handle table)
// to fresh blocks of the same size, as a moving collector would: copy, point the
// handle at the copy, poison and free the old block. Uses the heap directly (no
// collection); an object that finds no block stays where it is.
void VM::moveObjectsForStress() {
  std::size_t capacity = handles_.capacity();
  if (capacity == 0 || trace_) return;  // a trace records the program's own allocations only
  for (std::size_t moved = 0, looked = 0; moved < kMovesPerAllocation && looked < capacity; ++looked) {
    moveCursor_ = (moveCursor_ + 1) % capacity;
    Handle* h = &handles_.chunk(moveCursor_ / HandleTable::kHandlesPerChunk)[moveCursor_ % HandleTable::kHandlesPerChunk];
    if (!h->klass || isBox(h)) continue;  // a free slot, or a box (no heap block)
    std::size_t size = static_cast<ObjectHeader*>(h->object)->size;
    void* to = tryMalloc(size, nullptr);
    if (!to) return;
    std::memcpy(to, h->object, size);
    void* from = h->object;
    h->object = to;
    releaseBlock(from);
    ++moved;
  }
}

void VM::collectGarbage(GcCause cause) {
  if (heapCollects_) heap_.collect();
  else collector_.collect(*this, cause);
}

// The heap moved an object (defragmentation) and has already copied its bytes:
// the header at the new address names the handle; the handle is all that changes.
void VM::relocateObject(void*, void*, void* to, std::size_t) {
  static_cast<ObjectHeader*>(to)->handle->object = to;  // a trace's ids go by handle: unchanged
}

void VM::throwThrashing() {
  thrashing_ = false;
  std::string message = std::move(thrashingMessage_);
  throwError(message);
}

void VM::throwOutOfMemory(std::size_t bytes) {
  throwError("out of memory: requested " + std::to_string(bytes) + " bytes");
}

// --- factories ----------------------------------------------------------------------------

Handle* VM::newStringUninitialized(std::size_t length) {
  if (length > std::numeric_limits<std::uint32_t>::max()) throwOutOfMemory(length);
  Handle* h = allocateObject(builtinClass(ObjectKind::string), sizeof(StringObject) + length + 1);
  auto* s = objectAt<StringObject>(h);
  s->length = length;
  s->hash = 0;
  s->bytes()[length] = '\0';
  return h;
}

void VM::finishString(Handle* string) {
  auto* s = objectAt<StringObject>(string);
  s->hash = fnv1a(s->view());
}

Value VM::newString(std::string_view text) {
  Handle* h = newStringUninitialized(text.size());
  auto* s = objectAt<StringObject>(h);
  if (!text.empty()) std::memcpy(s->bytes(), text.data(), text.size());
  s->hash = fnv1a(text);
  return Value::object(h);
}

Value VM::newArray(std::size_t length, Value fill, Handle* near) {
  constexpr std::size_t maxLength = (std::numeric_limits<std::uint32_t>::max() - sizeof(ArrayObject)) / sizeof(Value);
  if (length > maxLength) {
    // The request in bytes, even when it does not fit in 64 bits.
    __extension__ typedef unsigned __int128 Wide;
    Wide bytes = static_cast<Wide>(length) * sizeof(Value) + sizeof(ArrayObject);
    std::string digits;
    do {
      digits.insert(digits.begin(), static_cast<char>('0' + static_cast<int>(bytes % 10)));
      bytes /= 10;
    } while (bytes != 0);
    throwError("out of memory: requested " + digits + " bytes");
  }
  Handle* h = allocateObject(builtinClass(ObjectKind::array), sizeof(ArrayObject) + length * sizeof(Value), near);
  auto* a = objectAt<ArrayObject>(h);
  a->length = length;
  for (std::size_t i = 0; i < length; ++i) a->elements()[i] = fill;
  return Value::object(h);
}

Handle* VM::newValueStorage(std::size_t length, Handle* owner) {
  Value v = newArray(length, Value::nil(), owner);  // same layout, its own class for the studies
  v.asHandle()->klass = builtinClass(ObjectKind::valueStorage);
  objectAt<ObjectHeader>(v)->classId = static_cast<std::uint32_t>(ObjectKind::valueStorage);
  return v.asHandle();
}

Handle* VM::newByteStorage(std::size_t capacity, Handle* owner) {
  if (capacity > std::numeric_limits<std::uint32_t>::max()) throwOutOfMemory(capacity);
  Handle* h = allocateObject(builtinClass(ObjectKind::byteStorage), sizeof(ByteStorageObject) + capacity, owner);
  objectAt<ByteStorageObject>(h)->capacity = capacity;
  return h;
}

Value VM::newInstance(ClassInfo* klass, Handle* near) {
  Handle* h = allocateObject(klass, klass->instanceBytes(), near);
  auto* o = objectAt<InstanceObject>(h);
  for (std::size_t i = 0; i < klass->fieldSymbols.size(); ++i) o->fields()[i] = Value::nil();
  return Value::object(h);
}

Value VM::newBoundMethod(Value receiver, Value method) {
  RootScope roots(*this);
  Value& r = roots.root(receiver);
  Value& m = roots.root(method);
  Handle* h = allocateObject(builtinClass(ObjectKind::boundMethod), sizeof(BoundMethodObject));
  auto* b = objectAt<BoundMethodObject>(h);
  b->receiver = r;
  b->method = m;
  return Value::object(h);
}

Value VM::newList() {
  Handle* h = allocateObject(builtinClass(ObjectKind::list), sizeof(ListObject));
  auto* l = objectAt<ListObject>(h);
  l->storage = Value::nil();
  l->size = 0;
  return Value::object(h);
}

Value VM::newMap() {
  Handle* h = allocateObject(builtinClass(ObjectKind::map), sizeof(MapObject));
  auto* m = objectAt<MapObject>(h);
  m->entries = Value::nil();
  m->index = Value::nil();
  m->count = 0;
  m->used = 0;
  return Value::object(h);
}

Value VM::newStringBuilder() {
  Handle* h = allocateObject(builtinClass(ObjectKind::stringBuilder), sizeof(StringBuilderObject));
  auto* b = objectAt<StringBuilderObject>(h);
  b->buffer = Value::nil();
  b->length = 0;
  return Value::object(h);
}

}  // namespace kith::vm
