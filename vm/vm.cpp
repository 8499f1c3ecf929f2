#include "vm/vm.h"

#include <cmath>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <new>

#include "vm/freed_object_guard.h"
#include "vm/opcodes.h"

namespace kith::vm {

namespace {

constexpr int kMaxNativeDepth = 1000;     // nested interpreter entries (C++ recursion)
constexpr std::size_t kMaxDisplayDepth = 1000;  // arrays nested inside one str() (LANGUAGE.md)
constexpr std::size_t kStackSlotsPerFrame = 64;
constexpr std::size_t kHandleQuarantine = 1 << 16;  // released handles that wait before reuse
constexpr std::size_t kMovesPerAllocation = 8;     // --gc-stress=move: objects moved per allocation
constexpr std::uint64_t kStepsPerAllocation = 50;   // VMOptions::stepLimit: what an allocation costs

std::uint64_t mix64(std::uint64_t x) {  // splitmix64's finalizer
  x ^= x >> 30;
  x *= 0xbf58476d1ce4e5b9ULL;
  x ^= x >> 27;
  x *= 0x94d049bb133111ebULL;
  x ^= x >> 31;
  return x;
}

std::uint64_t fnv1a(std::string_view s) {
  std::uint64_t h = 0xcbf29ce484222325ULL;
  for (unsigned char c : s) {
    h ^= c;
    h *= 0x100000001b3ULL;
  }
  return h;
}

std::string plural(int n, const char* word) {
  return std::to_string(n) + " " + word + (n == 1 ? "" : "s");
}

}  // namespace

const char* kindName(ObjectKind kind) {
  switch (kind) {
    case ObjectKind::string: return "string";
    case ObjectKind::array: return "array";
    case ObjectKind::instance: return "instance";
    case ObjectKind::closure: return "closure";
    case ObjectKind::boundMethod: return "bound method";
    case ObjectKind::upvalue: return "upvalue";
    case ObjectKind::list: return "List";
    case ObjectKind::map: return "Map";
    case ObjectKind::stringBuilder: return "StringBuilder";
    case ObjectKind::valueStorage: return "value storage";
    case ObjectKind::byteStorage: return "byte storage";
    case ObjectKind::boxedInt: return "boxed int";
    case ObjectKind::count: break;
  }
  return "?";
}

// --- construction ----------------------------------------------------------------------

VM::VM(heap::Heap& heap, Collector& collector, VMOptions options)
    : heap_(heap), collector_(collector), options_(std::move(options)), maxDepth_(options_.maxDepth) {
  if (maxDepth_ < 1) maxDepth_ = 1;
  // The stack and frames are single blocks that never move (open upvalues and
  // natives' argument pointers point into the stack); pages are committed as used.
  std::size_t slots = std::max<std::size_t>((maxDepth_ + 1) * kStackSlotsPerFrame, 1 << 16);
  stack_ = static_cast<Value*>(std::malloc(slots * sizeof(Value)));
  frames_ = static_cast<CallFrame*>(std::malloc((maxDepth_ + 1) * sizeof(CallFrame)));
  if (!stack_ || !frames_) {
    std::free(stack_);
    std::free(frames_);
    throw std::bad_alloc();
  }
  stackLimit_ = stack_ + slots;
  stackTop_ = stack_;
  for (std::size_t k = 0; k < kObjectKindCount; ++k) {
    auto klass = std::make_unique<ClassInfo>();
    klass->id = static_cast<std::uint32_t>(k);
    klass->kind = static_cast<ObjectKind>(k);
    klass->name = kindName(klass->kind);
    klass->defined = true;
    klass->instantiable = false;
    classes_.push_back(std::move(klass));
  }
  builtinClass(ObjectKind::array)->name = "Array";
  builtinClass(ObjectKind::instance)->name = "Object";
  boxedIntClass_ = builtinClass(ObjectKind::boxedInt);
  arrayClass_ = builtinClass(ObjectKind::array);
  beginBoxing();
  messageSymbol_ = symbol("message");
  toStringSymbol_ = symbol("toString");
  initSymbol_ = symbol("init");
  lengthSymbol_ = symbol("length");
  // The relocator is installed only for the allocation gate's last retry (see
  // allocateObject): a moving heap then defragments after a collection has freed
  // what it could, never before (moving garbage would be wasted work).
  canDefragment_ = heap_.setRelocator(&VM::relocateObject, this);
  if (canDefragment_) heap_.setRelocator(nullptr, nullptr);
  heapCollects_ = heap_.collectsGarbage() && heap_.setRootScanner(&VM::pushCollectedHeapRoots, this);
  if (heapCollects_) canDefragment_ = false;
#if !defined(NDEBUG) || defined(__SANITIZE_ADDRESS__)
  options_.checkFreedObjects = true;
#endif
  if (options_.moveObjects) options_.checkFreedObjects = true;
  if (options_.checkFreedObjects && !heapCollects_) {
    checkFreedObjects_ = true;
    handles_.setQuarantine(kHandleQuarantine, poisonedObjectPage());
    installFreedObjectFaultHandler();
  }
  overheadLimit_ = GcOverheadLimit(options_.gcOverheadLimit);
  if (options_.stepLimit) stepLimit_ = options_.stepLimit;
  stressActions_ = (options_.moveObjects && !heapCollects_) || options_.failAllocation || options_.failAllocationEvery ||
                   options_.stepLimit;
  // A collecting heap holds itself to its size; the budget counts explicit frees.
  if (!heap_.arenaBase() && !heapCollects_) budgetLimit_ = options_.unboundedHeapLimit;
}

VM::~VM() {
  heap_.setRelocator(nullptr, nullptr);
  if (heapCollects_) heap_.setRootScanner(nullptr, nullptr);  // its objects die with its heap
  // A policy over a fixed arena drops every object with the arena; the system
  // allocator (`malloc`) has no arena, so its live objects go back one by one
  // (else LeakSanitizer reports them). Freed through freeObject so that the heap
  // statistics and a trace see the frees too; no trace is attached by now.
  if (!heap_.arenaBase())
    handles_.forEachLive([&](Handle* h) {
      if (isBox(h)) releaseBox(h);
      else freeObject(h);
    });
  endBoxing();
  std::free(stack_);
  std::free(frames_);
}

void VM::setErrorClass(ClassInfo* klass) {
  errorClass_ = klass;
  klass->isErrorClass = true;
  // Preallocated so that even a heap too full for an error object can report one
  // (LANGUAGE.md: "the VM may throw a preallocated one"). Its message is a fixed
  // string that is never rewritten; the exact text of the failure is kept in C++
  // (fallbackMessage_) for the uncaught-error report.
  try {
    RootScope roots(*this);
    Value& text = roots.root(newString("out of memory"));
    Value error = newInstance(klass);
    auto slot = klass->fieldSlots.find(messageSymbol_);
    if (slot != klass->fieldSlots.end()) objectAt<InstanceObject>(error)->fields()[slot->second] = text;
    outOfMemoryError_ = error;
    outOfMemoryMessage_ = text;
  } catch (const KithThrow&) {
    clearException();
  }
}

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

// --- method area ------------------------------------------------------------------------------

ClassInfo* VM::newClass(std::string name, ObjectKind kind) {
  auto klass = std::make_unique<ClassInfo>();
  klass->id = static_cast<std::uint32_t>(classes_.size());
  klass->kind = kind;
  klass->name = std::move(name);
  ClassInfo* raw = klass.get();
  classes_.push_back(std::move(klass));
  if (kind == ObjectKind::instance) compiledClasses_[raw->name] = raw;
  return raw;
}

ClassInfo* VM::compiledClass(std::string_view name) {
  auto it = compiledClasses_.find(std::string(name));
  return it == compiledClasses_.end() ? nullptr : it->second;
}

FunctionProto* VM::newProto() {
  protos_.push_back(std::make_unique<FunctionProto>());
  return protos_.back().get();
}

int VM::symbol(std::string_view name) {
  auto [it, inserted] = symbols_.try_emplace(std::string(name), static_cast<int>(symbolNames_.size()));
  if (inserted) symbolNames_.emplace_back(name);
  return it->second;
}

int VM::globalSlot(std::string_view name) {
  auto [it, inserted] = globalSlots_.try_emplace(std::string(name), static_cast<int>(globals_.size()));
  if (inserted) {
    globalNames_.emplace_back(name);
    globals_.push_back(Value::undefined());
    globalDeclared_.push_back(false);
  }
  return it->second;
}

void VM::defineGlobal(std::string_view name, Value value) {
  KITH_WRITE_BARRIER(collector_, globals_[static_cast<std::size_t>(globalSlot(name))], value);
}

Value VM::global(std::string_view name) {
  auto it = globalSlots_.find(std::string(name));
  return it == globalSlots_.end() ? Value::undefined() : globals_[static_cast<std::size_t>(it->second)];
}

void VM::defineNative(ClassInfo* klass, const NativeFunction* native) {
  klass->methods[symbol(native->name)] = Value::nativeValue(native);
}

void VM::defineStatic(ClassInfo* klass, std::string_view name, Value value) {
  klass->statics[symbol(name)] = value;
}

// --- errors -------------------------------------------------------------------------------------

void VM::throwValue(Value value) {
  fallbackInFlight_ = false;
  pendingException_ = value;
  exceptionTrace_.clear();
  traceCaptured_ = false;
  throw KithThrow{};
}

void VM::throwError(const std::string& message) {
  Value error = Value::nil();
  bool made = false;
  if (!creatingError_) {  // an error while making an error: use the preallocated one
    creatingError_ = true;
    try {
      RootScope roots(*this);
      Value& text = roots.root(newString(message));
      if (errorClass_) {
        error = newInstance(errorClass_);
        auto slot = errorClass_->fieldSlots.find(messageSymbol_);
        if (slot != errorClass_->fieldSlots.end()) objectAt<InstanceObject>(error)->fields()[slot->second] = text;
      } else {
        error = text;  // before the prelude has defined Error
      }
      made = true;
    } catch (const KithThrow&) {
    }
    creatingError_ = false;
  }
  if (!made) {
    // The preallocated error, untouched (a script may hold it and even have set its
    // message); the exact words go to the uncaught report through fallbackMessage_.
    fallbackMessage_ = message;
    pendingException_ = outOfMemoryError_;
    exceptionTrace_.clear();
    traceCaptured_ = false;
    fallbackInFlight_ = true;
    throw KithThrow{};
  }
  throwValue(error);
}

void VM::throwArity(int expected, int got) {
  throwError("expected " + plural(expected, "argument") + " but got " + std::to_string(got));
}

void VM::captureTrace() {
  exceptionTrace_.clear();
  for (std::size_t i = frameCount_; i-- > 0;) {
    const CallFrame& f = frames_[i];
    std::size_t offset = static_cast<std::size_t>(f.ip - f.proto->code.data());
    int line = f.proto->lines.empty() ? 0 : f.proto->lines[offset > 0 ? std::min(offset - 1, f.proto->lines.size() - 1) : 0];
    exceptionTrace_.push_back({f.proto, line});
  }
  traceCaptured_ = true;
  // Under a step limit (fuzzing) a deep capture spends steps: a recursion that throws
  // and catches at every level would otherwise do O(depth) work per counted step.
  spendSteps(frameCount_);
}

// Work that is slow per instruction counts against VMOptions::stepLimit too.
void VM::spendSteps(std::uint64_t steps) {
  if (options_.stepLimit) stepLimit_ = stepLimit_ > steps ? stepLimit_ - steps : 0;
}

std::vector<std::string> VM::exceptionTrace() const {
  std::vector<std::string> lines;
  lines.reserve(exceptionTrace_.size());
  for (const TraceFrame& f : exceptionTrace_)
    lines.push_back("  at " + f.proto->name + " (" + f.proto->file + ":" + std::to_string(f.line) + ")");
  return lines;
}

std::string VM::exceptionMessage(Value value) {
  RootScope roots(*this);
  Value& thrown = roots.root(value);  // str() below may run toString(), which allocates
  bool isError = isKind(thrown, ObjectKind::instance) && thrown.asHandle()->klass->isErrorClass;
  auto slot = isError ? thrown.asHandle()->klass->fieldSlots.find(messageSymbol_) : ClassInfo::FieldSlots::iterator{};
  bool hasMessage = isError && slot != thrown.asHandle()->klass->fieldSlots.end();
  Value& message = roots.root(hasMessage ? objectAt<InstanceObject>(thrown)->fields()[slot->second] : thrown);
  if (fallbackInFlight_ && thrown.isObject() && thrown.asHandle() == outOfMemoryError_.asHandle())
    return fallbackMessage_;  // the preallocated error, as the VM threw it: the failure's exact words
  try {
    return toDisplayString(message);
  } catch (const KithThrow&) {
    clearException();
    return "<" + typeName(message) + " (its toString() threw)>";
  }
}

// --- values -----------------------------------------------------------------------------------------

// `a op b` for < <= > >= (op is the comparison opcode) past the interpreter's inline
// cases: ints exactly (boxed too), an int against a float exactly (never through a
// rounding double), false with NaN, strings bytewise; anything else is the error.
bool VM::compareSlow(Op op, Value a, Value b) {
  const char* symbol = op == Op::LESS ? "'<'" : op == Op::LESS_EQUAL ? "'<='" : op == Op::GREATER ? "'>'" : "'>='";
  if (a.isNumber() && b.isNumber()) {
    if ((a.isFloat() && std::isnan(a.asFloat())) || (b.isFloat() && std::isnan(b.asFloat()))) return false;
    switch (op) {
      case Op::LESS: return numberLess(a, b);
      case Op::LESS_EQUAL: return !numberLess(b, a);
      case Op::GREATER: return numberLess(b, a);
      default: return !numberLess(a, b);
    }
  }
  if (isKind(a, ObjectKind::string) && isKind(b, ObjectKind::string)) {
    int c = objectAt<StringObject>(a)->view().compare(objectAt<StringObject>(b)->view());
    switch (op) {
      case Op::LESS: return c < 0;
      case Op::LESS_EQUAL: return c <= 0;
      case Op::GREATER: return c > 0;
      default: return c >= 0;
    }
  }
  throwError(std::string("cannot compare ") + typeName(a) + " and " + typeName(b) + " with " + symbol);
}

// `a op b` for + - * (op is ADD, SUBTRACT or MULTIPLY) past the interpreter's inline
// cases: boxed ints (64-bit wrap), mixed int/float, `+` on strings, the type error.
Value VM::arithmeticSlow(Op op, Value a, Value b) {
  if (op == Op::ADD) return add(a, b);
  bool subtract = op == Op::SUBTRACT;
  if (a.isInt() && b.isInt()) {
    auto x = static_cast<std::uint64_t>(a.asInt()), y = static_cast<std::uint64_t>(b.asInt());
    return Value::integer(static_cast<std::int64_t>(subtract ? x - y : x * y));
  }
  if (a.isNumber() && b.isNumber())
    return Value::floating(subtract ? a.toDouble() - b.toDouble() : a.toDouble() * b.toDouble());
  binaryTypeError(subtract ? "-" : "*", a, b);
}

bool VM::valuesEqual(Value a, Value b) {
  if (a.isNumber() && b.isNumber()) return numbersEqual(a, b);
  if (a.type() != b.type()) return false;
  switch (a.type()) {
    case ValueType::nil: return true;
    case ValueType::boolean: return a.asBool() == b.asBool();
    case ValueType::object:
      if (a.asHandle() == b.asHandle()) return true;
      if (kindOf(a) == ObjectKind::string && kindOf(b) == ObjectKind::string) {
        auto* x = objectAt<StringObject>(a);
        auto* y = objectAt<StringObject>(b);
        return x->length == y->length && x->hash == y->hash && std::memcmp(x->bytes(), y->bytes(), x->length) == 0;
      }
      return false;
    case ValueType::klass: return a.asClass() == b.asClass();
    case ValueType::native: return a.asNative() == b.asNative();
    default: return false;
  }
}

std::uint64_t VM::hashValue(Value v) {
  switch (v.type()) {
    case ValueType::integer: return mix64(static_cast<std::uint64_t>(v.asInt()));
    case ValueType::floating: {
      double d = v.asFloat();
      // Equal numbers hash alike: a float with an int value hashes as that int.
      if (d >= -9223372036854775808.0 && d < 9223372036854775808.0 && std::trunc(d) == d)
        return mix64(static_cast<std::uint64_t>(static_cast<std::int64_t>(d)));
      std::uint64_t bits;
      std::memcpy(&bits, &d, sizeof bits);
      return mix64(bits);
    }
    case ValueType::boolean: return mix64(v.asBool() ? 0x9e3779b97f4a7c15ULL : 0x7f4a7c159e3779b9ULL);
    case ValueType::object:
      if (kindOf(v) == ObjectKind::string) return objectAt<StringObject>(v)->hash;
      // Handles never move, so identity hashes are stable even when objects move.
      return mix64(reinterpret_cast<std::uintptr_t>(v.asHandle()));
    case ValueType::klass: return mix64(reinterpret_cast<std::uintptr_t>(v.asClass()));
    case ValueType::native: return mix64(reinterpret_cast<std::uintptr_t>(v.asNative()));
    default: return 0;
  }
}

std::string VM::typeName(Value v) {
  switch (v.type()) {
    case ValueType::nil: return "nil";
    case ValueType::boolean: return "bool";
    case ValueType::integer: return "int";
    case ValueType::floating: return "float";
    case ValueType::klass: return "class";
    case ValueType::native: return "function";
    case ValueType::undefined: return "undefined";
    case ValueType::object: break;
  }
  switch (kindOf(v)) {
    case ObjectKind::string: return "string";
    case ObjectKind::array: return "array";
    case ObjectKind::closure:
    case ObjectKind::boundMethod: return "function";
    case ObjectKind::instance: return v.asHandle()->klass->name;
    default: return v.asHandle()->klass->name;
  }
}

std::string VM::toDisplayString(Value value) {
  std::string out;
  std::size_t mark = displayInProgress_.size();
  try {
    appendDisplay(out, value);
  } catch (...) {
    displayInProgress_.resize(mark);
    throw;
  }
  return out;
}

Value VM::toStringValue(Value value) {
  if (isKind(value, ObjectKind::string)) return value;
  return newString(toDisplayString(value));
}

// str() of `value`, appended to `out`. Arrays are walked with an explicit stack:
// displayInProgress_ holds the open arrays (roots: an element's toString() may drop
// every other reference to them), `next` the index to show next in each, so nesting
// costs no C++ stack. Only toString() recurses (through the interpreter, which bounds
// its own re-entry: kMaxNativeDepth).
void VM::appendDisplay(std::string& out, Value value) {
  std::size_t base = displayInProgress_.size();
  std::vector<std::uint64_t> next;
  Value item = value;  // rooted by the caller or in an open array's slot, until shown
  for (;;) {
    if (isKind(item, ObjectKind::array)) {
      bool open = false;
      for (const Value& a : displayInProgress_) open |= a.asHandle() == item.asHandle();
      if (open) {
        out += "[...]";  // an array that contains itself
      } else {
        if (next.size() >= kMaxDisplayDepth) throwError("stack overflow");
        displayInProgress_.push_back(item);
        next.push_back(0);
        out += '[';
      }
    } else {
      appendScalar(out, item);
    }
    // Move on to the next element of the innermost open array, closing finished ones.
    for (;;) {
      if (displayInProgress_.size() == base) return;
      Handle* array = displayInProgress_.back().asHandle();
      std::uint64_t i = next.back();
      if (i < objectAt<ArrayObject>(array)->length) {
        if (i) out += ", ";
        next.back() = i + 1;
        item = objectAt<ArrayObject>(array)->elements()[i];
        break;
      }
      out += ']';
      displayInProgress_.pop_back();
      next.pop_back();
    }
  }
}

// str() of anything but an array; an instance's toString() must return a string.
void VM::appendScalar(std::string& out, Value value) {
  switch (value.type()) {
    case ValueType::nil: out += "nil"; return;
    case ValueType::boolean: out += value.asBool() ? "true" : "false"; return;
    case ValueType::integer: out += std::to_string(value.asInt()); return;
    case ValueType::floating: out += formatFloat(value.asFloat()); return;
    case ValueType::klass: out += "<class " + value.asClass()->name + ">"; return;
    case ValueType::native: out += std::string("<native fn ") + value.asNative()->name + ">"; return;
    case ValueType::undefined: out += "<undefined>"; return;
    case ValueType::object: break;
  }
  Handle* h = value.asHandle();
  switch (h->klass->kind) {
    case ObjectKind::string: out += objectAt<StringObject>(h)->view(); return;
    case ObjectKind::closure: out += "<fn " + objectAt<ClosureObject>(h)->proto->name + ">"; return;
    case ObjectKind::boundMethod: {
      Value m = objectAt<BoundMethodObject>(h)->method;
      out += m.isNative() ? std::string("<native fn ") + m.asNative()->name + ">"
                          : "<fn " + objectAt<ClosureObject>(m)->proto->name + ">";
      return;
    }
    default: break;
  }
  auto method = h->klass->methods.find(toStringSymbol_);
  if (method == h->klass->methods.end()) {
    out += "<" + h->klass->name + " instance>";
    return;
  }
  push(value);  // the receiver, on the VM stack: a root for the call
  RootScope roots(*this);
  Value& result = roots.root(callMethod(method->second, 0));
  if (!isKind(result, ObjectKind::string)) throwError("toString() must return a string, got " + typeName(result));
  out += objectAt<StringObject>(result)->view();
}

// --- calls ---------------------------------------------------------------------------------------

void VM::push(Value v) {
  if (stackTop_ >= stackLimit_) throwError("stack overflow");
  *stackTop_++ = v;
}

void VM::callClosure(Handle* closure, int argc) {
  FunctionProto* proto = objectAt<ClosureObject>(closure)->proto;
  if (argc != proto->arity) throwArity(proto->arity, argc);
  if (frameCount_ >= maxDepth_) throwError("stack overflow");
  Value* slots = stackTop_ - argc - 1;
  if (slots + proto->maxStack > stackLimit_) throwError("stack overflow");
  frames_[frameCount_++] = CallFrame{closure, proto, proto->code.data(), slots};
}

void VM::callNative(const NativeFunction* native, int argc) {
  if (argc < native->minArity || (native->maxArity >= 0 && argc > native->maxArity)) {
    if (native->minArity == native->maxArity) throwArity(native->minArity, argc);
    throwError("expected " + std::to_string(native->minArity) + " to " +
               (native->maxArity < 0 ? std::string("any number of") : std::to_string(native->maxArity)) +
               " arguments but got " + std::to_string(argc));
  }
  Value* args = stackTop_ - argc;
  Value result = native->fn(*this, args, argc);
  stackTop_ = args - 1;
  *stackTop_++ = result;
  collectBoxesIfDue();  // the result is on the stack: a safe point
}

bool VM::callValue(Value callee, int argc) {
  switch (callee.type()) {
    case ValueType::object:
      switch (kindOf(callee)) {
        case ObjectKind::closure: callClosure(callee.asHandle(), argc); return true;
        case ObjectKind::boundMethod: {
          auto* bound = objectAt<BoundMethodObject>(callee);
          Value method = bound->method;
          stackTop_[-1 - argc] = bound->receiver;
          if (method.isNative()) {
            callNative(method.asNative(), argc);
            return false;
          }
          callClosure(method.asHandle(), argc);
          return true;
        }
        default: break;
      }
      break;
    case ValueType::native: callNative(callee.asNative(), argc); return false;
    case ValueType::klass:
      throwError("class " + callee.asClass()->name + " is instantiated with 'new " + callee.asClass()->name + "(...)'");
    default: break;
  }
  throwError("cannot call a value of type " + typeName(callee));
}

Value VM::call(int argc) {
  Value callee = stackTop_[-1 - argc];
  if (callValue(callee, argc)) return run(frameCount_ - 1);
  return *--stackTop_;
}

Value VM::callMethod(Value method, int argc) {
  if (method.isNative()) {
    callNative(method.asNative(), argc);
    return *--stackTop_;
  }
  callClosure(method.asHandle(), argc);
  return run(frameCount_ - 1);
}

bool VM::invokeFromClass(ClassInfo* klass, int symbol, int argc) {
  auto it = klass->methods.find(symbol);
  if (it == klass->methods.end())
    throwError("class " + klass->name + " has no method '" + symbolName(symbol) + "'");
  Value method = it->second;
  if (method.isNative()) {
    callNative(method.asNative(), argc);
    return false;
  }
  callClosure(method.asHandle(), argc);
  return true;
}

bool VM::invoke(int symbol, int argc, InlineCache* cache) {
  Value receiver = stackTop_[-1 - argc];
  if (receiver.isObject()) {
    ClassInfo* klass = receiver.asHandle()->klass;
    if (klass->kind == ObjectKind::instance) {
      auto field = klass->fieldSlots.find(symbol);
      if (field != klass->fieldSlots.end()) {  // a field holding a function: call it
        Value callee = objectAt<InstanceObject>(receiver)->fields()[field->second];
        stackTop_[-1 - argc] = callee;
        return callValue(callee, argc);
      }
    }
    auto it = klass->methods.find(symbol);
    if (it == klass->methods.end()) {
      if (klass->kind == ObjectKind::instance)
        throwError(klass->name + " has no field or method '" + symbolName(symbol) + "'");
      throwError(typeName(receiver) + " has no method '" + symbolName(symbol) + "'");
    }
    Value method = it->second;
    if (method.isNative()) {
      callNative(method.asNative(), argc);
      return false;
    }
    if (cache) *cache = InlineCache{klass, -1, method};
    callClosure(method.asHandle(), argc);
    return true;
  }
  if (receiver.isClass()) {
    ClassInfo* klass = receiver.asClass();
    auto it = klass->statics.find(symbol);
    if (it == klass->statics.end())
      throwError("class " + klass->name + " has no member '" + symbolName(symbol) + "'");
    return callValue(it->second, argc);
  }
  throwError("cannot call method '" + symbolName(symbol) + "' on " + typeName(receiver));
}

// --- properties and indexing ---------------------------------------------------------------------------

Value VM::bindMethod(Value receiver, ClassInfo* klass, int symbol, bool* found) {
  auto it = klass->methods.find(symbol);
  if (it == klass->methods.end()) {
    *found = false;
    return Value::nil();
  }
  *found = true;
  return newBoundMethod(receiver, it->second);
}

Value VM::getProperty(Value receiver, int symbol, InlineCache* cache) {
  if (receiver.isObject()) {
    ClassInfo* klass = receiver.asHandle()->klass;
    switch (klass->kind) {
      case ObjectKind::instance: {
        auto field = klass->fieldSlots.find(symbol);
        if (field != klass->fieldSlots.end()) {
          if (cache) *cache = InlineCache{klass, field->second, Value::nil()};
          return objectAt<InstanceObject>(receiver)->fields()[field->second];
        }
        break;
      }
      case ObjectKind::string:
        if (symbol == lengthSymbol_) return Value::integer(static_cast<std::int64_t>(objectAt<StringObject>(receiver)->length));
        break;
      case ObjectKind::array:
        if (symbol == lengthSymbol_) return Value::integer(static_cast<std::int64_t>(objectAt<ArrayObject>(receiver)->length));
        break;
      default: break;
    }
    bool found;
    Value bound = bindMethod(receiver, klass, symbol, &found);
    if (found) return bound;
    if (klass->kind == ObjectKind::instance)
      throwError(klass->name + " has no field or method '" + symbolName(symbol) + "'");
    throwError(typeName(receiver) + " has no property '" + symbolName(symbol) + "'");
  }
  if (receiver.isClass()) {
    auto it = receiver.asClass()->statics.find(symbol);
    if (it != receiver.asClass()->statics.end()) return it->second;
    throwError("class " + receiver.asClass()->name + " has no member '" + symbolName(symbol) + "'");
  }
  throwError("cannot read property '" + symbolName(symbol) + "' of " + typeName(receiver));
}

void VM::setProperty(Value receiver, int symbol, Value value, InlineCache* cache) {
  if (isKind(receiver, ObjectKind::instance)) {
    ClassInfo* klass = receiver.asHandle()->klass;
    auto field = klass->fieldSlots.find(symbol);
    if (field == klass->fieldSlots.end())
      throwError(klass->name + " has no field '" + symbolName(symbol) + "'");
    if (cache) *cache = InlineCache{klass, field->second, Value::nil()};
    KITH_WRITE_BARRIER(collector_, objectAt<InstanceObject>(receiver)->fields()[field->second], value);
    return;
  }
  throwError("cannot set property '" + symbolName(symbol) + "' on " + typeName(receiver));
}

namespace {
[[noreturn]] void outOfBounds(VM& vm, std::int64_t index, std::uint64_t length) {
  vm.throwError("index " + std::to_string(index) + " out of bounds for length " + std::to_string(length));
}
}  // namespace

Value VM::getIndex(Value container, Value index) {
  if (container.isObject() && (kindOf(container) == ObjectKind::array || kindOf(container) == ObjectKind::string)) {
    if (!index.isInt()) throwError("index must be an int, not " + typeName(index));
    std::int64_t i = index.asInt();
    if (kindOf(container) == ObjectKind::array) {
      auto* a = objectAt<ArrayObject>(container);
      if (i < 0 || static_cast<std::uint64_t>(i) >= a->length) outOfBounds(*this, i, a->length);
      return a->elements()[i];
    }
    auto* s = objectAt<StringObject>(container);
    if (i < 0 || static_cast<std::uint64_t>(i) >= s->length) outOfBounds(*this, i, s->length);
    char c = s->bytes()[i];  // copied out before the allocation
    return newString(std::string_view(&c, 1));
  }
  throwError("cannot index a value of type " + typeName(container));
}

void VM::setIndex(Value container, Value index, Value value) {
  if (isKind(container, ObjectKind::array)) {
    if (!index.isInt()) throwError("index must be an int, not " + typeName(index));
    auto* a = objectAt<ArrayObject>(container);
    std::int64_t i = index.asInt();
    if (i < 0 || static_cast<std::uint64_t>(i) >= a->length) outOfBounds(*this, i, a->length);
    KITH_WRITE_BARRIER(collector_, a->elements()[i], value);
    return;
  }
  if (isKind(container, ObjectKind::string)) throwError("strings are immutable");
  throwError("cannot index-assign a value of type " + typeName(container));
}

// --- operators ----------------------------------------------------------------------------------------

void VM::binaryTypeError(const char* op, Value a, Value b) {
  throwError(std::string("unsupported operand types for ") + op + ": " + typeName(a) + " and " + typeName(b));
}

Value VM::add(Value a, Value b) {
  if (a.isInt() && b.isInt())
    return Value::integer(static_cast<std::int64_t>(static_cast<std::uint64_t>(a.asInt()) + static_cast<std::uint64_t>(b.asInt())));
  if (a.isNumber() && b.isNumber()) return Value::floating(a.toDouble() + b.toDouble());
  bool aString = isKind(a, ObjectKind::string), bString = isKind(b, ObjectKind::string);
  if (!aString && !bString) binaryTypeError("+", a, b);
  RootScope roots(*this);
  a = roots.root(a);  // kept alive while the other operand's toString() runs
  b = roots.root(b);
  // str() of the other operand first (it may run toString()), then one allocation,
  // then copy the string operands through their handles (they may have moved).
  std::string aText = aString ? std::string() : toDisplayString(a);
  std::string bText = bString ? std::string() : toDisplayString(b);
  std::size_t aLength = aString ? objectAt<StringObject>(a)->length : aText.size();
  std::size_t bLength = bString ? objectAt<StringObject>(b)->length : bText.size();
  Handle* result = newStringUninitialized(aLength + bLength);
  char* out = objectAt<StringObject>(result)->bytes();
  std::memcpy(out, aString ? objectAt<StringObject>(a)->bytes() : aText.data(), aLength);
  std::memcpy(out + aLength, bString ? objectAt<StringObject>(b)->bytes() : bText.data(), bLength);
  finishString(result);
  return Value::object(result);
}

// --- upvalues --------------------------------------------------------------------------------------------

Handle* VM::captureUpvalue(Value* slot, Handle* closure) {
  std::size_t i = openUpvalues_.size();
  while (i > 0 && objectAt<UpvalueObject>(openUpvalues_[i - 1])->stackSlot > slot) --i;
  if (i > 0 && objectAt<UpvalueObject>(openUpvalues_[i - 1])->stackSlot == slot) return openUpvalues_[i - 1];
  Handle* h = allocateObject(builtinClass(ObjectKind::upvalue), sizeof(UpvalueObject), closure);
  auto* u = objectAt<UpvalueObject>(h);
  u->stackSlot = slot;
  u->closed = Value::nil();
  openUpvalues_.insert(openUpvalues_.begin() + static_cast<std::ptrdiff_t>(i), h);
  return h;
}

void VM::closeUpvalues(Value* last) {
  while (!openUpvalues_.empty()) {
    auto* u = objectAt<UpvalueObject>(openUpvalues_.back());
    if (u->stackSlot < last) break;
    u->closed = *u->stackSlot;
    u->stackSlot = nullptr;
    openUpvalues_.pop_back();
  }
}

// --- classes ------------------------------------------------------------------------------------------

void VM::defineClass(ClassInfo* klass, Value superclass, bool hasSuper) {
  if (hasSuper) {
    if (!superclass.isClass()) throwError("superclass must be a class, not " + typeName(superclass));
    ClassInfo* super = superclass.asClass();
    if (super->kind != ObjectKind::instance || !super->instantiable)
      throwError("class " + klass->name + " cannot inherit from built-in class " + super->name);
    for (int sym : klass->ownFieldSymbols)
      if (super->fieldSlots.count(sym))
        throwError("field '" + symbolName(sym) + "' is already declared in superclass '" + super->name + "'");
    klass->superclass = super;
    klass->fieldSymbols = super->fieldSymbols;
    klass->fieldSlots = super->fieldSlots;
    klass->methods = super->methods;  // copy-down inheritance: own methods override below
    klass->initializer = super->initializer;
    klass->isErrorClass = super->isErrorClass;
  } else {
    klass->superclass = nullptr;
  }
  for (int sym : klass->ownFieldSymbols) {
    klass->fieldSlots[sym] = static_cast<int>(klass->fieldSymbols.size());
    klass->fieldSymbols.push_back(sym);
  }
  klass->defined = true;
}

bool VM::newObjectInstance(int argc, Handle* near) {
  Value callee = stackTop_[-1 - argc];
  if (!callee.isClass()) throwError("'new' needs a class, not " + typeName(callee));
  ClassInfo* klass = callee.asClass();
  if (klass->kind == ObjectKind::instance && klass->instantiable) {
    Value object = newInstance(klass, near);
    stackTop_[-1 - argc] = object;
    if (klass->initializer.isObject()) {
      callClosure(klass->initializer.asHandle(), argc);
      return true;
    }
    if (argc != 0) throwArity(0, argc);
    return false;
  }
  if (klass->constructor) {
    callNative(klass->constructor, argc);
    return false;
  }
  throwError("cannot instantiate " + klass->name);
}

// --- running --------------------------------------------------------------------------------------------

void VM::runScript(FunctionProto* script) {
  modules_.noteMainScript(script->file);
  Handle* h = allocateObject(builtinClass(ObjectKind::closure), sizeof(ClosureObject));
  auto* c = objectAt<ClosureObject>(h);
  c->proto = script;
  c->upvalueCount = 0;
  Value* base = stackTop_;
  push(Value::object(h));
  try {
    callClosure(h, 0);
    run(frameCount_ - 1);
  } catch (...) {
    stackTop_ = base;
    throw;
  }
  stackTop_ = base;
}

// Computed goto (labels as values) is a GNU extension; -Wpedantic would flag every use.
#if defined(__GNUC__)
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wpedantic"
#endif
Value VM::run(std::size_t entryFrame) {
  boxHere();  // boxes made from here on go to this VM's handle table
  if (nativeDepth_ >= kMaxNativeDepth) {
    // Too deep in native -> script -> native calls for the C++ stack: drop the frame
    // the caller pushed, then report it like any other overflow.
    frameCount_ = entryFrame;
    stackTop_ = frames_[entryFrame].slots;
    throwError("stack overflow");
  }
  struct DepthGuard {
    int& depth;
    explicit DepthGuard(int& d) : depth(d) { ++depth; }
    ~DepthGuard() { --depth; }
  } depthGuard(nativeDepth_);

  CallFrame* frame;
  const std::uint8_t* ip;
  Value* slots;
  Value* sp = stackTop_;
  const Value* constants;
  InlineCache* caches;
  std::uint64_t executed = 0;

#define LOAD_FRAME()                                 \
  do {                                               \
    frame = &frames_[frameCount_ - 1];               \
    ip = frame->ip;                                  \
    slots = frame->slots;                            \
    constants = frame->proto->constants.data();      \
    caches = frame->proto->caches.data();            \
  } while (0)
// Before anything that may allocate, throw or call out: publish ip and stack top.
#define SYNC() (frame->ip = ip, stackTop_ = sp)
// An int result: inline when it fits 48 bits; else boxed (value.h) after SYNC, since
// a box is a handle (or a Boehm block) and boxes piling up collect here, with the
// result already on the stack.
#define STORE_INT(slot, expr)                               \
  do {                                                      \
    std::int64_t result_ = (expr);                          \
    if (Value::fitsSmallInt(result_)) [[likely]] {          \
      storeSmallInt(slot, result_);                         \
    } else {                                                \
      SYNC();                                               \
      *(slot) = Value::integer(result_);                    \
      collectBoxesIfDue();                                  \
    }                                                       \
  } while (0)
#define READ_BYTE() (*ip++)
#define READ_U16() (ip += 2, static_cast<std::uint16_t>(ip[-2] | (ip[-1] << 8)))
// VMOptions::stepLimit, checked where every endless run passes again and again.
#define CHECK_STEP_LIMIT()                                     \
  do {                                                         \
    if (instructions_ + executed > stepLimit_) [[unlikely]] {  \
      SYNC();                                                  \
      throw StepLimitReached{};                                \
    }                                                          \
  } while (0)
// A conditional forward jump, then the next instruction. Written as a branch that
// dispatches on each side: computed as `ip += cond ? offset : 0`, gcc emits a cmov,
// and the next opcode's address then waits for the condition (on mandelbrot's float
// compare that made the whole loop 40% slower), where a predicted branch runs ahead.
#define JUMP_FORWARD_IF(cond, offset) \
  do {                                \
    if (!(cond)) DISPATCH();          \
    ip += (offset);                   \
    DISPATCH();                       \
  } while (0)
// A loop's jump back (LOOP, LOOP_IF_TRUE, LOOP_IF_LESS ...): the step limit, and the
// collector's slice, so an incremental cycle also advances in loops that never allocate.
#define BACK_EDGE(offset)                \
  do {                                   \
    ip -= (offset);                      \
    CHECK_STEP_LIMIT();                  \
    if (collector_.atBackEdge()) {       \
      SYNC();                            \
      collector_.backEdgeSlice(*this);   \
    }                                    \
  } while (0)

  LOAD_FRAME();
  for (;;) {
    try {
#if defined(__GNUC__)
      static void* const dispatchTable[] = {
#define KITH_OP_LABEL(name, operands, effect) &&op_##name,
          KITH_OPCODES(KITH_OP_LABEL)
#undef KITH_OP_LABEL
      };
#define DISPATCH()                     \
  do {                                 \
    ++executed;                        \
    goto* dispatchTable[*ip++];        \
  } while (0)
#define CASE(name) op_##name:
      DISPATCH();
#else
#define DISPATCH() continue
#define CASE(name) case Op::name:
      for (;;) {
        ++executed;
        switch (static_cast<Op>(*ip++)) {
#endif

      CASE(CONSTANT) { *sp++ = constants[READ_U16()]; DISPATCH(); }
      CASE(NIL) { *sp++ = Value::nil(); DISPATCH(); }
      CASE(TRUE) { storeBool(sp++, true); DISPATCH(); }
      CASE(FALSE) { storeBool(sp++, false); DISPATCH(); }
      CASE(SMALL_INT) { storeSmallInt(sp++, static_cast<std::int16_t>(READ_U16())); DISPATCH(); }
      CASE(POP) { --sp; DISPATCH(); }
      CASE(GET_LOCAL) { *sp++ = slots[READ_BYTE()]; DISPATCH(); }
      CASE(GET_LOCAL2) {
        sp[0] = slots[ip[0]];
        sp[1] = slots[ip[1]];
        sp += 2;
        ip += 2;
        DISPATCH();
      }
      CASE(SET_LOCAL) { slots[READ_BYTE()] = sp[-1]; DISPATCH(); }
      CASE(SET_LOCAL_POP) { slots[READ_BYTE()] = *--sp; DISPATCH(); }
      CASE(GET_GLOBAL) {
        std::uint16_t slot = READ_U16();
        Value v = globals_[slot];
        if (v.isUndefined()) {
          SYNC();
          throwError("undefined variable '" + globalNames_[slot] + "'");
        }
        *sp++ = v;
        DISPATCH();
      }
      CASE(SET_GLOBAL) {
        std::uint16_t slot = READ_U16();
        if (globals_[slot].isUndefined()) {
          SYNC();
          throwError("undefined variable '" + globalNames_[slot] + "'");
        }
        KITH_WRITE_BARRIER(collector_, globals_[slot], sp[-1]);
        DISPATCH();
      }
      CASE(DEFINE_GLOBAL) {
        std::uint16_t slot = READ_U16();
        if (globalDeclared_[slot]) {  // declared at the top level of another file too
          SYNC();
          throwError("global '" + globalNames_[slot] + "' is already defined");
        }
        globalDeclared_[slot] = true;
        KITH_WRITE_BARRIER(collector_, globals_[slot], *--sp);
        DISPATCH();
      }
      CASE(GET_UPVALUE) {
        Value up = objectAt<ClosureObject>(frame->closure)->upvalues()[READ_BYTE()];
        auto* u = objectAt<UpvalueObject>(up);
        *sp++ = u->stackSlot ? *u->stackSlot : u->closed;
        DISPATCH();
      }
      CASE(SET_UPVALUE) {
        Value up = objectAt<ClosureObject>(frame->closure)->upvalues()[READ_BYTE()];
        auto* u = objectAt<UpvalueObject>(up);
        if (u->stackSlot) *u->stackSlot = sp[-1];  // open: a stack slot, a root
        else KITH_WRITE_BARRIER(collector_, u->closed, sp[-1]);
        DISPATCH();
      }
      CASE(CLOSE_UPVALUE) {
        closeUpvalues(sp - 1);
        --sp;
        DISPATCH();
      }
      CASE(GET_PROPERTY) {
        std::uint16_t sym = READ_U16();
        InlineCache* cache = &caches[READ_U16()];
        Value receiver = sp[-1];
        if (receiver.isObject() && receiver.asHandle()->klass == cache->klass && cache->slot >= 0) {
          sp[-1] = objectAt<InstanceObject>(receiver)->fields()[cache->slot];
          DISPATCH();
        }
        SYNC();
        sp[-1] = getProperty(receiver, sym, cache);
        DISPATCH();
      }
// A store into a field or an element; the statement form (_POP) leaves nothing.
#define SET_PROPERTY_OP(opName, leave)                                                           \
  CASE(opName) {                                                                                 \
    std::uint16_t sym = READ_U16();                                                              \
    InlineCache* cache = &caches[READ_U16()];                                                    \
    Value receiver = sp[-2];                                                                     \
    Value value = sp[-1];                                                                        \
    if (receiver.isObject() && receiver.asHandle()->klass == cache->klass && cache->slot >= 0) { \
      KITH_WRITE_BARRIER(collector_, objectAt<InstanceObject>(receiver)->fields()[cache->slot], value); \
    } else {                                                                                     \
      SYNC();                                                                                    \
      setProperty(receiver, sym, value, cache);                                                  \
    }                                                                                            \
    sp -= 2;                                                                                     \
    if (leave) *sp++ = value;                                                                    \
    DISPATCH();                                                                                  \
  }
      SET_PROPERTY_OP(SET_PROPERTY, true)
      SET_PROPERTY_OP(SET_PROPERTY_POP, false)
#undef SET_PROPERTY_OP
      CASE(GET_INDEX) {
        Value container = sp[-2], index = sp[-1];
        // An array and an inline int (a boxed one is past any array's end): the class
        // pointer is compared, not its kind, one load fewer.
        if (index.isSmallInt() && container.isObject() && container.asHandle()->klass == arrayClass_) {
          auto* a = objectAt<ArrayObject>(container);
          if (static_cast<std::uint64_t>(index.asSmallInt()) < a->length) {
            sp[-2] = a->elements()[index.asSmallInt()];
            --sp;
            DISPATCH();
          }
        }
        SYNC();
        sp[-2] = getIndex(container, index);
        --sp;
        DISPATCH();
      }
#define SET_INDEX_OP(opName, leave)                                                                   \
  CASE(opName) {                                                                                      \
    Value container = sp[-3], index = sp[-2], value = sp[-1];                                         \
    if (index.isSmallInt() && container.isObject() && container.asHandle()->klass == arrayClass_ &&   \
        static_cast<std::uint64_t>(index.asSmallInt()) < objectAt<ArrayObject>(container)->length) {  \
      KITH_WRITE_BARRIER(collector_, objectAt<ArrayObject>(container)->elements()[index.asSmallInt()], value); \
    } else {                                                                                          \
      SYNC();                                                                                         \
      setIndex(container, index, value);                                                              \
    }                                                                                                 \
    sp -= 3;                                                                                          \
    if (leave) *sp++ = value;                                                                         \
    DISPATCH();                                                                                       \
  }
      SET_INDEX_OP(SET_INDEX, true)
      SET_INDEX_OP(SET_INDEX_POP, false)
#undef SET_INDEX_OP
      CASE(GET_SUPER) {
        std::uint16_t classId = READ_U16();
        std::uint16_t sym = READ_U16();
        SYNC();
        ClassInfo* super = classes_[classId]->superclass;
        bool found;
        Value bound = bindMethod(sp[-1], super, sym, &found);
        if (!found) throwError("class " + super->name + " has no method '" + symbolName(sym) + "'");
        sp[-1] = bound;
        DISPATCH();
      }
// Same bits: the same value (but NaN != NaN). Different bits: unequal when either is
// nil or both are inline ints; else (strings by content, numbers across int, float and
// boxes) valuesEqual decides.
#define VALUES_EQUAL(a, b)                                                                        \
  ((a).sameAs(b) ? !((a).isFloat() && std::isnan((a).asFloat()))                                  \
                 : !(((a).isSmallInt() && (b).isSmallInt()) || (a).isNil() || (b).isNil()) && valuesEqual(a, b))
      CASE(EQUAL) {
        Value b = sp[-1], a = sp[-2];
        storeBool(sp - 2, VALUES_EQUAL(a, b));
        --sp;
        DISPATCH();
      }
      CASE(NOT_EQUAL) {
        Value b = sp[-1], a = sp[-2];
        storeBool(sp - 2, !VALUES_EQUAL(a, b));
        --sp;
        DISPATCH();
      }
      CASE(JUMP_UNLESS_EQUAL) {  // `if (a == b)`: EQUAL; POP_JUMP_IF_FALSE
        std::uint16_t offset = READ_U16();
        Value b = sp[-1], a = sp[-2];
        sp -= 2;
        JUMP_FORWARD_IF(!VALUES_EQUAL(a, b), offset);
      }
      CASE(JUMP_UNLESS_NOT_EQUAL) {
        std::uint16_t offset = READ_U16();
        Value b = sp[-1], a = sp[-2];
        sp -= 2;
        JUMP_FORWARD_IF(VALUES_EQUAL(a, b), offset);
      }
#undef VALUES_EQUAL

// Inline ints first, then two floats, inline; the rest (boxed ints, mixed int/float,
// strings, the type error) in compareSlow. COMPARE pushes the result; LOOP_IF_COMPARE is
// an inverted while's bottom test fused with its LOOP_IF_TRUE.
#define COMPARE_FAST(a, b, op, slowOp)                                                    \
  ((a).isSmallInt() && (b).isSmallInt() ? (a).asSmallInt() op (b).asSmallInt()            \
   : (a).isFloat() && (b).isFloat()     ? (a).asFloat() op (b).asFloat() /* false with NaN */ \
                                        : (SYNC(), compareSlow(Op::slowOp, a, b)))
#define COMPARE(opName, op)                       \
  CASE(opName) {                                  \
    Value b = sp[-1], a = sp[-2];                 \
    storeBool(sp - 2, COMPARE_FAST(a, b, op, opName)); \
    --sp;                                         \
    DISPATCH();                                   \
  }
      COMPARE(LESS, <)
      COMPARE(LESS_EQUAL, <=)
      COMPARE(GREATER, >)
      COMPARE(GREATER_EQUAL, >=)
#undef COMPARE
#define LOOP_IF_COMPARE(opName, op, compareOp) \
  CASE(opName) {                               \
    std::uint16_t offset = READ_U16();         \
    Value b = sp[-1], a = sp[-2];              \
    bool holds = COMPARE_FAST(a, b, op, compareOp); \
    sp -= 2;                                   \
    if (holds) BACK_EDGE(offset);              \
    DISPATCH();                                \
  }
      LOOP_IF_COMPARE(LOOP_IF_LESS, <, LESS)
      LOOP_IF_COMPARE(LOOP_IF_LESS_EQUAL, <=, LESS_EQUAL)
      LOOP_IF_COMPARE(LOOP_IF_GREATER, >, GREATER)
      LOOP_IF_COMPARE(LOOP_IF_GREATER_EQUAL, >=, GREATER_EQUAL)
#undef LOOP_IF_COMPARE
// A condition's comparison fused with its forward jump when false (`if (a < b)`).
#define JUMP_UNLESS_COMPARE(opName, op, compareOp)  \
  CASE(opName) {                                    \
    std::uint16_t offset = READ_U16();              \
    Value b = sp[-1], a = sp[-2];                   \
    bool holds = COMPARE_FAST(a, b, op, compareOp); \
    sp -= 2;                                        \
    JUMP_FORWARD_IF(!holds, offset);                \
  }
      JUMP_UNLESS_COMPARE(JUMP_UNLESS_LESS, <, LESS)
      JUMP_UNLESS_COMPARE(JUMP_UNLESS_LESS_EQUAL, <=, LESS_EQUAL)
      JUMP_UNLESS_COMPARE(JUMP_UNLESS_GREATER, >, GREATER)
      JUMP_UNLESS_COMPARE(JUMP_UNLESS_GREATER_EQUAL, >=, GREATER_EQUAL)
#undef JUMP_UNLESS_COMPARE
#undef COMPARE_FAST

// 64-bit two's complement: + - * wrap (LANGUAGE.md), computed on unsigned.
#define WRAP(x, op, y) static_cast<std::int64_t>(static_cast<std::uint64_t>(x) op static_cast<std::uint64_t>(y))

// `a op b` into dest (a stack or local slot, so a root when the slow path collects):
// inline ints and floats here, the rest (boxed ints, mixed int/float, `+` on strings,
// the type errors) through arithmeticSlow.
#define ARITHMETIC_INTO(dest, a, b, op, opName)                        \
  if ((a).isSmallInt() && (b).isSmallInt()) {                          \
    STORE_INT(dest, WRAP((a).asSmallInt(), op, (b).asSmallInt()));     \
  } else if ((a).isFloat() && (b).isFloat()) {                         \
    storeFloat(dest, (a).asFloat() op (b).asFloat());                  \
  } else {                                                             \
    SYNC();                                                            \
    *(dest) = arithmeticSlow(Op::opName, a, b);                        \
    collectBoxesIfDue();                                               \
  }
// `a op n` into dest for the small int literal n (SMALL_INT n; ADD or SUBTRACT, and
// `x = x + n;`, fused by the compiler): a float stays a float, as unfused.
#define SMALL_INT_INTO(dest, a, n, op, opName)                                     \
  if ((a).isSmallInt()) {                                                          \
    STORE_INT(dest, (a).asSmallInt() op std::int64_t{n}); /* 48 bits op 16: no overflow */ \
  } else if ((a).isFloat()) {                                                      \
    storeFloat(dest, (a).asFloat() op static_cast<double>(n));                     \
  } else {                                                                         \
    SYNC();                                                                        \
    *(dest) = arithmeticSlow(Op::opName, a, Value::smallInt(n));                   \
    collectBoxesIfDue();                                                           \
  }
#define SMALL_INT_ARITHMETIC(opName, op, genericOp)   \
  CASE(opName) {                                      \
    Value a = sp[-1];                                 \
    auto n = static_cast<std::int16_t>(READ_U16());   \
    SMALL_INT_INTO(sp - 1, a, n, op, genericOp)       \
    DISPATCH();                                       \
  }
      SMALL_INT_ARITHMETIC(ADD_SMALL, +, ADD)
      SMALL_INT_ARITHMETIC(SUB_SMALL, -, SUBTRACT)
#undef SMALL_INT_ARITHMETIC
      CASE(ADD_LOCAL_SMALL) {  // `x = x + n;`: what GET_LOCAL, ADD_SMALL, SET_LOCAL_POP would do
        Value* local = &slots[READ_BYTE()];
        auto n = static_cast<std::int16_t>(READ_U16());
        Value a = *local;
        SMALL_INT_INTO(local, a, n, +, ADD)
        DISPATCH();
      }
#undef SMALL_INT_INTO
// `a op b` on the stack, `top op local` and `local op local` (the compiler fuses the
// reads into the op). op_LL first pushes nil, so its result slot is a root.
#define ARITHMETIC(opName, op)                                         \
  CASE(opName) {                                                       \
    Value b = sp[-1], a = sp[-2];                                      \
    ARITHMETIC_INTO(sp - 2, a, b, op, opName)                          \
    --sp;                                                              \
    DISPATCH();                                                        \
  }
#define ARITHMETIC_LOCAL(opName, op, genericOp)                        \
  CASE(opName) {                                                       \
    Value b = slots[READ_BYTE()], a = sp[-1];                          \
    ARITHMETIC_INTO(sp - 1, a, b, op, genericOp)                       \
    DISPATCH();                                                        \
  }
#define ARITHMETIC_LOCALS(opName, op, genericOp)                       \
  CASE(opName) {                                                       \
    Value a = slots[ip[0]], b = slots[ip[1]];                          \
    ip += 2;                                                           \
    *sp++ = Value::nil();                                              \
    ARITHMETIC_INTO(sp - 1, a, b, op, genericOp)                       \
    DISPATCH();                                                        \
  }
      ARITHMETIC(ADD, +)
      ARITHMETIC(SUBTRACT, -)
      ARITHMETIC(MULTIPLY, *)
      ARITHMETIC_LOCAL(ADD_L, +, ADD)
      ARITHMETIC_LOCAL(SUB_L, -, SUBTRACT)
      ARITHMETIC_LOCAL(MUL_L, *, MULTIPLY)
      ARITHMETIC_LOCALS(ADD_LL, +, ADD)
      ARITHMETIC_LOCALS(SUB_LL, -, SUBTRACT)
      ARITHMETIC_LOCALS(MUL_LL, *, MULTIPLY)
#define ARITHMETIC_LOCALS_TO(opName, op, genericOp)                    \
  CASE(opName) {                                                       \
    Value a = slots[ip[0]], b = slots[ip[1]];                          \
    Value* dest = &slots[ip[2]];                                       \
    ip += 3;                                                           \
    ARITHMETIC_INTO(dest, a, b, op, genericOp)                         \
    DISPATCH();                                                        \
  }
      ARITHMETIC_LOCALS_TO(ADD_LL_TO, +, ADD)
      ARITHMETIC_LOCALS_TO(SUB_LL_TO, -, SUBTRACT)
      ARITHMETIC_LOCALS_TO(MUL_LL_TO, *, MULTIPLY)
#undef ARITHMETIC_LOCALS_TO
#define ARITHMETIC_LOCAL_TO(opName, op, genericOp)                     \
  CASE(opName) {                                                       \
    Value a = sp[-1], b = slots[ip[0]]; /* a stays a root until the store */ \
    Value* dest = &slots[ip[1]];                                       \
    ip += 2;                                                           \
    ARITHMETIC_INTO(dest, a, b, op, genericOp)                         \
    --sp;                                                              \
    DISPATCH();                                                        \
  }
      ARITHMETIC_LOCAL_TO(ADD_L_TO, +, ADD)
      ARITHMETIC_LOCAL_TO(SUB_L_TO, -, SUBTRACT)
      ARITHMETIC_LOCAL_TO(MUL_L_TO, *, MULTIPLY)
#undef ARITHMETIC_LOCAL_TO
#undef ARITHMETIC_LOCALS
#undef ARITHMETIC_LOCAL
#undef ARITHMETIC
#undef ARITHMETIC_INTO
      CASE(DIVIDE) {
        Value b = sp[-1], a = sp[-2];
        if (a.isInt() && b.isInt()) {
          if (b.asInt() == 0) {
            SYNC();
            throwError("division by zero");
          }
          // INT64_MIN / -1 overflows in C++; in Kith it wraps to INT64_MIN.
          STORE_INT(sp - 2, b.asInt() == -1 ? static_cast<std::int64_t>(0 - static_cast<std::uint64_t>(a.asInt()))
                                                 : a.asInt() / b.asInt());
        } else if (a.isNumber() && b.isNumber()) {
          storeFloat(sp - 2, a.toDouble() / b.toDouble());
        } else {
          SYNC();
          binaryTypeError("/", a, b);
        }
        --sp;
        DISPATCH();
      }
      CASE(MODULO) {
        Value b = sp[-1], a = sp[-2];
        if (a.isInt() && b.isInt()) {
          if (b.asInt() == 0) {
            SYNC();
            throwError("division by zero");
          }
          STORE_INT(sp - 2, b.asInt() == -1 ? 0 : a.asInt() % b.asInt());
        } else if (a.isNumber() && b.isNumber()) {
          storeFloat(sp - 2, std::fmod(a.toDouble(), b.toDouble()));
        } else {
          SYNC();
          binaryTypeError("%", a, b);
        }
        --sp;
        DISPATCH();
      }
#define BITWISE(opName, symbolText, expr)                 \
  CASE(opName) {                                          \
    Value b = sp[-1], a = sp[-2];                         \
    if (!a.isInt() || !b.isInt()) {                       \
      SYNC();                                             \
      binaryTypeError(symbolText, a, b);                  \
    }                                                     \
    std::uint64_t x = static_cast<std::uint64_t>(a.asInt()); \
    std::uint64_t y = static_cast<std::uint64_t>(b.asInt()); \
    (void)x; (void)y;                                     \
    STORE_INT(sp - 2, static_cast<std::int64_t>(expr));  \
    --sp;                                                 \
    DISPATCH();                                           \
  }
      BITWISE(BIT_AND, "&", x & y)
      BITWISE(BIT_OR, "|", x | y)
      BITWISE(BIT_XOR, "^", x ^ y)
      BITWISE(SHIFT_LEFT, "<<", x << (y & 63))
      BITWISE(SHIFT_RIGHT, ">>", a.asInt() >> (y & 63))
      BITWISE(SHIFT_RIGHT_LOGICAL, ">>>", x >> (y & 63))
#undef BITWISE
      CASE(NEGATE) {
        Value a = sp[-1];
        if (a.isInt()) STORE_INT(sp - 1, static_cast<std::int64_t>(0 - static_cast<std::uint64_t>(a.asInt())));
        else if (a.isFloat()) storeFloat(sp - 1, -a.asFloat());
        else {
          SYNC();
          throwError("unsupported operand type for unary -: " + typeName(a));
        }
        DISPATCH();
      }
      CASE(NOT) { storeBool(sp - 1, sp[-1].isFalsy()); DISPATCH(); }
      CASE(BIT_NOT) {
        if (!sp[-1].isInt()) {
          SYNC();
          throwError("unsupported operand type for ~: " + typeName(sp[-1]));
        }
        STORE_INT(sp - 1, ~sp[-1].asInt());
        DISPATCH();
      }
      CASE(JUMP) {
        std::uint16_t offset = READ_U16();
        ip += offset;
        DISPATCH();
      }
      CASE(JUMP_IF_FALSE) {
        std::uint16_t offset = READ_U16();
        JUMP_FORWARD_IF(sp[-1].isFalsy(), offset);
      }
      CASE(JUMP_IF_TRUE) {
        std::uint16_t offset = READ_U16();
        JUMP_FORWARD_IF(!sp[-1].isFalsy(), offset);
      }
      CASE(POP_JUMP_IF_FALSE) {
        std::uint16_t offset = READ_U16();
        JUMP_FORWARD_IF((--sp)->isFalsy(), offset);
      }
      CASE(LOOP) {
        std::uint16_t offset = READ_U16();
        BACK_EDGE(offset);
        DISPATCH();
      }
      CASE(LOOP_IF_TRUE) {  // the bottom test of an inverted while: a back-edge when it holds
        std::uint16_t offset = READ_U16();
        if (!(*--sp).isFalsy()) BACK_EDGE(offset);
        DISPATCH();
      }
      CASE(CALL) {
        int argc = READ_BYTE();
        Value callee = sp[-1 - argc];
        if (callee.isObject() && callee.asHandle()->klass->kind == ObjectKind::closure) {
          // The common case inline: a script function with the right arity and room.
          FunctionProto* proto = objectAt<ClosureObject>(callee)->proto;
          Value* newSlots = sp - argc - 1;
          if (argc == proto->arity && frameCount_ < maxDepth_ && newSlots + proto->maxStack <= stackLimit_) {
            frame->ip = ip;
            frame = &frames_[frameCount_++];
            *frame = CallFrame{callee.asHandle(), proto, proto->code.data(), newSlots};
            ip = frame->ip;
            slots = newSlots;
            constants = proto->constants.data();
            caches = proto->caches.data();
            DISPATCH();
          }
        }
        SYNC();
        if (callValue(callee, argc)) LOAD_FRAME();
        sp = stackTop_;
        DISPATCH();
      }
      CASE(INVOKE) {
        std::uint16_t sym = READ_U16();
        int argc = READ_BYTE();
        InlineCache* cache = &caches[READ_U16()];
        Value receiver = sp[-1 - argc];
        if (receiver.isObject() && receiver.asHandle()->klass == cache->klass && cache->slot < 0) {
          Handle* closure = cache->method.asHandle();
          FunctionProto* proto = objectAt<ClosureObject>(closure)->proto;
          Value* newSlots = sp - argc - 1;
          if (argc == proto->arity && frameCount_ < maxDepth_ && newSlots + proto->maxStack <= stackLimit_) {
            frame->ip = ip;
            frame = &frames_[frameCount_++];
            *frame = CallFrame{closure, proto, proto->code.data(), newSlots};
            ip = frame->ip;
            slots = newSlots;
            constants = proto->constants.data();
            caches = proto->caches.data();
            DISPATCH();
          }
        }
        SYNC();
        if (invoke(sym, argc, cache)) LOAD_FRAME();
        sp = stackTop_;
        DISPATCH();
      }
      CASE(SUPER_INVOKE) {
        std::uint16_t classId = READ_U16();
        std::uint16_t sym = READ_U16();
        int argc = READ_BYTE();
        SYNC();
        if (invokeFromClass(classes_[classId]->superclass, sym, argc)) LOAD_FRAME();
        sp = stackTop_;
        DISPATCH();
      }
      CASE(NEW) {
        int argc = READ_BYTE();
        SYNC();
        if (newObjectInstance(argc)) LOAD_FRAME();
        sp = stackTop_;
        DISPATCH();
      }
      CASE(NEW_NEAR) {  // obj.f = new C(...): build the instance near obj, below the class
        int argc = READ_BYTE();
        SYNC();
        Value owner = stackTop_[-2 - argc];
        if (newObjectInstance(argc, owner.isObject() ? owner.asHandle() : nullptr)) LOAD_FRAME();
        sp = stackTop_;
        DISPATCH();
      }
      CASE(CLOSURE) {
        FunctionProto* proto = frame->proto->functions[READ_U16()];
        SYNC();
        std::size_t count = static_cast<std::size_t>(proto->upvalueCount);
        Handle* closure = allocateObject(builtinClass(ObjectKind::closure), sizeof(ClosureObject) + count * sizeof(Value));
        auto* c = objectAt<ClosureObject>(closure);
        c->proto = proto;
        c->upvalueCount = count;
        for (std::size_t i = 0; i < count; ++i) c->upvalues()[i] = Value::nil();
        *sp++ = Value::object(closure);  // on the stack (a root) while its upvalues are captured
        stackTop_ = sp;
        for (std::size_t i = 0; i < count; ++i) {
          bool isLocal = READ_BYTE() != 0;
          std::uint8_t index = READ_BYTE();
          Handle* up = isLocal ? captureUpvalue(slots + index, closure)
                               : objectAt<ClosureObject>(frame->closure)->upvalues()[index].asHandle();
          objectAt<ClosureObject>(closure)->upvalues()[i] = Value::object(up);  // re-read: capture allocates
        }
        DISPATCH();
      }
      CASE(RETURN) {
        CHECK_STEP_LIMIT();
        Value result = *--sp;
        if (!openUpvalues_.empty()) closeUpvalues(slots);
        while (!handlers_.empty() && handlers_.back().frameIndex >= frameCount_ - 1) handlers_.pop_back();
        --frameCount_;
        if (frameCount_ == entryFrame) {
          stackTop_ = slots;
          instructions_ += executed;
          return result;
        }
        sp = slots;
        *sp++ = result;
        LOAD_FRAME();
        DISPATCH();
      }
      CASE(CLASS) {
        std::uint16_t classId = READ_U16();
        bool hasSuper = READ_BYTE() != 0;
        SYNC();
        ClassInfo* klass = classes_[classId].get();
        defineClass(klass, hasSuper ? sp[-1] : Value::nil(), hasSuper);
        if (hasSuper) sp[-1] = Value::klassValue(klass);
        else *sp++ = Value::klassValue(klass);
        DISPATCH();
      }
      CASE(METHOD) {
        int sym = READ_U16();
        ClassInfo* klass = sp[-2].asClass();
        klass->methods[sym] = sp[-1];
        if (sym == initSymbol_) klass->initializer = sp[-1];
        --sp;
        DISPATCH();
      }
      CASE(ARRAY) {
        std::size_t count = READ_U16();
        SYNC();
        Value array = newArray(count, Value::nil());  // the elements stay on the stack meanwhile
        if (count) std::memcpy(static_cast<void*>(objectAt<ArrayObject>(array)->elements()), sp - count, count * sizeof(Value));
        sp -= count;
        *sp++ = array;
        DISPATCH();
      }
      CASE(FOR_IN) {
        std::uint8_t slot = READ_BYTE();
        std::uint16_t offset = READ_U16();
        Value array = slots[slot];
        if (!isKind(array, ObjectKind::array)) {
          SYNC();
          throwError("for-in needs an array, not " + typeName(array));
        }
        std::int64_t index = slots[slot + 1].asInt();
        auto* a = objectAt<ArrayObject>(array);
        if (static_cast<std::uint64_t>(index) < a->length) {
          *sp++ = a->elements()[index];
          storeSmallInt(&slots[slot + 1], index + 1);  // an index: far below 2^47
        } else {
          ip += offset;
        }
        DISPATCH();
      }
      CASE(IMPORT) {
        SYNC();  // the path stays on the stack (rooted) while the module compiles
        FunctionProto* module;
        {  // scoped: clang rejects a computed goto out of a std::string's scope
          std::string path(stringView(sp[-1]));
          module = modules_.load(*this, path, frame->proto->file);
        }
        if (!module) {
          sp[-1] = Value::nil();
          DISPATCH();
        }
        Handle* closure = allocateObject(builtinClass(ObjectKind::closure), sizeof(ClosureObject));
        auto* c = objectAt<ClosureObject>(closure);
        c->proto = module;
        c->upvalueCount = 0;
        sp[-1] = Value::object(closure);
        frame->ip = ip;
        callClosure(closure, 0);  // the module's frame; its RETURN leaves nil in the path's slot
        LOAD_FRAME();
        sp = stackTop_;
        DISPATCH();
      }
      CASE(THROW) {
        Value thrown = *--sp;
        SYNC();
        throwValue(thrown);
      }
      CASE(TRY) {
        std::uint16_t offset = READ_U16();
        handlers_.push_back(TryHandler{frameCount_ - 1, sp, ip + offset});
        DISPATCH();
      }
      CASE(END_TRY) {
        handlers_.pop_back();
        DISPATCH();
      }
#if !defined(__GNUC__)
        }
      }
#endif
    } catch (const KithThrow&) {
      instructions_ += executed;
      executed = 0;
      frame->ip = ip;  // the top frame is this invocation's: inner ones have unwound
      if (instructions_ > stepLimit_) throw StepLimitReached{};
      if (!traceCaptured_) captureTrace();
      if (!handlers_.empty() && handlers_.back().frameIndex >= entryFrame) {
        TryHandler handler = handlers_.back();
        handlers_.pop_back();
        closeUpvalues(handler.stackTop);
        frameCount_ = handler.frameIndex + 1;
        sp = handler.stackTop;
        *sp++ = pendingException_;
        stackTop_ = sp;
        pendingException_ = Value::nil();
        exceptionTrace_.clear();
        traceCaptured_ = false;
        LOAD_FRAME();
        ip = handler.catchIp;
        continue;
      }
      closeUpvalues(frames_[entryFrame].slots);
      stackTop_ = frames_[entryFrame].slots;
      frameCount_ = entryFrame;
      throw;
    } catch (...) {
      instructions_ += executed;
      throw;
    }
  }
#undef LOAD_FRAME
#undef SYNC
#undef BACK_EDGE
#undef JUMP_FORWARD_IF
#undef STORE_INT
#undef WRAP
#undef READ_BYTE
#undef READ_U16
#undef CHECK_STEP_LIMIT
#undef DISPATCH
#undef CASE
}
#if defined(__GNUC__)
#pragma GCC diagnostic pop
#endif

}  // namespace kith::vm
