// The virtual machine: the allocation gate, the object factories, the
// interpreter loop, exceptions, and the root set a collector starts from.
// See object.h for THE RULE about raw object addresses.
#pragma once

#include <cstddef>
#include <cstdint>
#include <deque>
#include <memory>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "heap/heap.h"
#include "heap/trace/trace.h"
#include "vm/opcodes.h"
#include "vm/collector.h"
#include "vm/gc_overhead_limit.h"
#include "vm/handle_table.h"
#include "vm/module_loader.h"
#include "vm/object.h"
#include "vm/value.h"

namespace kith::vm {

// A Kith exception in flight (the thrown value is VM::pendingException()). A C++
// exception so that natives, and natives calling back into script code, unwind
// without checking return codes; the interpreter catches it at each entry.
struct KithThrow {};
// System.exit(code): unwinds everything, then the runner exits with `code`.
struct ExitRequest {
  int code;
};
// VMOptions::stepLimit reached: unwinds everything, like ExitRequest, and no
// `catch` in a script can stop it. Only the fuzz targets set a step limit.
struct StepLimitReached {};

struct CallFrame {
  Handle* closure;
  FunctionProto* proto;
  const std::uint8_t* ip;
  Value* slots;
};

struct TryHandler {
  std::size_t frameIndex;  // the frame whose code holds the try block
  Value* stackTop;         // the stack height at `try` (locals only)
  const std::uint8_t* catchIp;
};

struct VMOptions {
  std::size_t maxDepth = 10000;
  std::vector<std::string> args;  // System.args
  // For a heap without a fixed arena (`malloc`): the most block bytes in use at
  // once, so every policy runs in the same --heap-size. 0: no limit.
  std::size_t unboundedHeapLimit = 0;
  // Testing aids (docs/RELIABILITY.md). Freed objects poisoned and handles
  // quarantined: always in debug and sanitizer builds; here for --gc-stress.
  bool checkFreedObjects = false;
  // --gc-stress=move: before every allocation, move a rotating share of the live
  // objects to new blocks (every policy), so a raw object address held across an
  // allocation reads a poisoned block.
  bool moveObjects = false;
  // --fail-alloc=N / --fail-alloc-every=N: the N-th allocation request (once), or
  // every N-th, fails as if the heap were exhausted. 0: off.
  std::uint64_t failAllocation = 0;
  std::uint64_t failAllocationEvery = 0;
  // --gc-overhead-limit (vm/gc_overhead_limit.h); 0: off. Off under --gc-stress.
  double gcOverheadLimit = GcOverheadLimit::kDefaultLimit;
  // For fuzzing only (tests/fuzz/run_fuzzer.cpp), not on the command line: once
  // more than this many instructions have run, the next loop back-edge, return or
  // caught exception throws StepLimitReached. Every endless run passes one of
  // these without end (a program is finite and call depth is bounded), so a
  // fuzzed `while (true) {}` ends instead of hanging the fuzzer. Each allocation
  // counts as 50 instructions against it (kStepsPerAllocation), each frame of a
  // captured stack trace as one (VM::spendSteps). 0: no limit.
  std::uint64_t stepLimit = 0;
};

class VM {
 public:
  VM(heap::Heap& heap, Collector& collector, VMOptions options = {});
  ~VM();
  VM(const VM&) = delete;
  VM& operator=(const VM&) = delete;

  // --- the allocation gate ------------------------------------------------------
  // Every heap object is born here: the collector's per-allocation check
  // (Collector::beforeAllocation: may run a collection or an incremental slice),
  // heap.malloc (one virtual call per allocation through heap::Heap — a cost we
  // measure). On failure, in this order: a full collection, a retry; then, on a
  // policy that can move blocks (knuth, estranged), a retry with its defragmenter
  // on; then the catchable "out of memory: requested N bytes". Writes the header,
  // gives the object its handle and the collector's allocation colour. Throws
  // KithThrow on failure.
  // `near`: an object the new one belongs with (its owner, the closure of an upvalue,
  // the object whose field receives it); the heap is asked to put it close
  // (heap::Heap::malloc(size, near)). Without one, near the last object of `klass`.
  Handle* allocateObject(ClassInfo* klass, std::size_t bytes, Handle* near = nullptr);
  // Boxed ints (value.h): a handle outside the studied heap; never collects.
  Handle* boxInteger(std::int64_t i);
  bool isBox(const Handle* h) const { return h->klass == boxedIntClass_; }
  // A collector frees an unreachable box with this (not freeObject: no heap block).
  void releaseBox(Handle* box);
  // At a safe point: boxes made since the last poll pay the collector's pacing, and a
  // collection runs when they have piled up (vm/boxed_int.cpp).
  void collectBoxesIfDue();
  std::size_t liveBoxes() const { return liveBoxes_; }
  // Handle bytes of boxes that may still be made before their limit forces a collection.
  std::size_t boxRoomBytes() const { return boxLimit_ > liveBoxes_ ? (boxLimit_ - liveBoxes_) * sizeof(Handle) : 0; }
  std::uint64_t boxesCreated() const { return boxesCreated_; }
  // Frees one object and its handle (for collectors).
  void freeObject(Handle* handle);
  // Collectors report every collection; when the run is thrashing
  // (vm/gc_overhead_limit.h) the next allocation throws the catchable "out of
  // memory" saying so. System.gc(), --gc-stress and boxed-int collections do not count.
  void collectionEnded(GcCause cause, std::size_t bytesBefore, std::size_t bytesAfter, std::size_t heapBytes) {
    // Half the survivors again, at least 2^20, before the next box-driven collection;
    // not twice them: an incremental cycle's survivors include every box born during
    // it, and doubling those each cycle would let the limit ratchet up.
    boxLimit_ = liveBoxes_ + std::max(kMinBoxLimit, liveBoxes_ / 2);
    if (cause == GcCause::systemGc || cause == GcCause::stress || cause == GcCause::boxedIntegers) return;
    bool heapRefused = cause == GcCause::allocationFailure;
    if (overheadLimit_.collectionEnded(bytesBefore, bytesAfter, heapBytes, heapRefused, &thrashingMessage_))
      thrashing_ = true;
  }
  // Runs a full collection (System.gc() passes systemGc; the gate calls the
  // collector itself, with allocationFailure).
  void collectGarbage(GcCause cause = GcCause::systemGc);

  // --- factories (each may allocate: see THE RULE) ------------------------------
  Value newString(std::string_view text);  // `text` must not point into the heap
  Handle* newStringUninitialized(std::size_t length);  // fill bytes, then finishString
  void finishString(Handle* string);                   // computes the hash
  Value newArray(std::size_t length, Value fill, Handle* near = nullptr);
  Value newInstance(ClassInfo* klass, Handle* near = nullptr);
  Value newBoundMethod(Value receiver, Value method);
  Value newList();
  Value newMap();
  Value newStringBuilder();
  // Backing storage; `owner` (the List, Map or StringBuilder) is the allocation hint.
  Handle* newValueStorage(std::size_t length, Handle* owner = nullptr);  // filled with nil
  Handle* newByteStorage(std::size_t capacity, Handle* owner = nullptr);

  // --- classes, symbols, globals (method area) ---------------------------------
  ClassInfo* builtinClass(ObjectKind kind) { return classes_[static_cast<std::size_t>(kind)].get(); }
  ClassInfo* newClass(std::string name, ObjectKind kind = ObjectKind::instance);
  ClassInfo* classById(std::size_t id) { return classes_[id].get(); }
  // A user class compiled so far, by name (for compile-time field checks).
  ClassInfo* compiledClass(std::string_view name);
  ClassInfo* errorClass() const { return errorClass_; }
  // Installs the class runtime errors are instances of (stdlib's prelude defines it).
  void setErrorClass(ClassInfo* klass);
  FunctionProto* newProto();

  int symbol(std::string_view name);
  const std::string& symbolName(int symbol) const { return symbolNames_[static_cast<std::size_t>(symbol)]; }
  int globalSlot(std::string_view name);  // creates an undefined global on first use
  void defineGlobal(std::string_view name, Value value);
  Value global(std::string_view name);     // undefined() if absent
  const std::string& globalName(std::size_t slot) const { return globalNames_[slot]; }
  void defineNative(ClassInfo* klass, const NativeFunction* native);  // a method of a built-in class
  void defineStatic(ClassInfo* klass, std::string_view name, Value value);

  // --- running ------------------------------------------------------------------
  // Runs a compiled script to the end (its file counts as imported: see ModuleLoader). Returns normally, or throws KithThrow
  // (uncaught exception: see pendingException / exceptionTrace) or ExitRequest.
  void runScript(FunctionProto* script);
  // Calls `callee` with `argc` arguments already pushed above it (push callee,
  // then each argument) and returns the result, popping all of them. For natives
  // that call back into script code (List.forEach, str() calling toString()).
  Value call(int argc);
  // Calls `method` (a closure or native) with the receiver and argc arguments
  // already pushed (receiver first); returns the result, popping them all.
  Value callMethod(Value method, int argc);
  void push(Value v);
  Value pop() { return *--stackTop_; }
  Value peek(int distance = 0) const { return stackTop_[-1 - distance]; }

  // --- errors ---------------------------------------------------------------------
  [[noreturn]] void throwError(const std::string& message);  // a new Error(message)
  [[noreturn]] void throwValue(Value value);
  Value pendingException() const { return pendingException_; }
  void clearException() {
    pendingException_ = Value::nil();
    exceptionTrace_.clear();
    traceCaptured_ = false;
    fallbackInFlight_ = false;
  }
  // "  at FUNCTION (FILE:LINE)" lines of the frames live when the exception was thrown,
  // innermost first, folded as LANGUAGE.md says (vm/trace_folding.h).
  std::vector<std::string> exceptionTrace() const;
  // The message an uncaught exception reports: an Error's message, else str(value).
  std::string exceptionMessage(Value value);

  // --- values -------------------------------------------------------------------
  std::string toDisplayString(Value value);  // str(); may call toString() (script code)
  Value toStringValue(Value value);           // the same, as a heap string
  bool valuesEqual(Value a, Value b);
  bool compareSlow(Op op, Value a, Value b);  // < <= > >= past the interpreter's inline cases
  Value arithmeticSlow(Op op, Value a, Value b);  // + - * past the interpreter's inline cases
  std::uint64_t hashValue(Value v);
  std::string typeName(Value v);             // typeOf()
  ObjectKind kindOf(Value v) const { return v.asHandle()->klass->kind; }
  bool isKind(Value v, ObjectKind kind) const { return v.isObject() && kindOf(v) == kind; }
  std::string_view stringView(Value v) { return objectAt<StringObject>(v)->view(); }  // until the next allocation

  // --- roots ----------------------------------------------------------------------
  // Values native code holds across allocations (THE ROOTING RULE, object.h): a
  // RootScope puts them here. A deque: its elements never move as it grows or
  // shrinks at the end, so a slot's address stays good while its scope lives.
  std::deque<Value>& rootStack() { return rootStack_; }
  // Calls fn(Value&) for every root: the VM stack, each frame's closure, globals,
  // open upvalues, constants of every function, class method tables and statics,
  // values pinned by native code, the pending exception. A collector marks from these.
  template <class Fn>
  void forEachRoot(Fn&& fn);

  // --- statistics ---------------------------------------------------------------
  heap::Heap& heap() { return heap_; }
  Collector& collector() { return collector_; }
  // The heap collects garbage itself (boehm): handles() is empty, freeObject unused.
  bool heapCollectsGarbage() const { return heapCollects_; }
  HandleTable& handles() { return handles_; }
  std::uint64_t instructionsExecuted() const { return instructions_; }
  std::uint64_t objectsCreated() const { return objectsCreated_; }
  // Records every allocation and free to `writer` (heap/trace/trace.h), ids by object.
  void setTraceWriter(heap::TraceWriter* writer) { trace_ = writer; }
  std::size_t maxDepth() const { return maxDepth_; }
  const std::vector<std::string>& args() const { return options_.args; }

 private:
  friend struct VMAccess;
  static void relocateObject(void* context, void* from, void* to, std::size_t size);
  // --- a heap that collects garbage itself (`--heap=boehm`, the baseline) ---------
  // Such a heap reclaims what it cannot reach, but handles live in the system
  // allocator (invisible to it), and a handle table scanned as a root would keep
  // every object alive. So there each object's Handle is the first cell of the
  // object's own block: [Handle, padded to kCollectedHandleBytes][object]. A Value
  // holds the Handle*, which is the block's address, so whatever reaches a Value
  // reaches the block, whose handle->object points into the same block; an
  // unreachable handle and its object die together, with no finalizer and no entry
  // in handles_. The roots in system-allocator memory (stack, frames, globals,
  // constants, pinned, ...: forEachRoot) are reported at each collection by
  // pushCollectedHeapRoots; C++ locals are on the thread stack, which Boehm scans.
  // Objects never move there, and nothing is freed explicitly.
  static constexpr std::size_t kCollectedHandleBytes = 32;  // sizeof(Handle) to 16
  static void pushCollectedHeapRoots(void* context, heap::PushRootsFn push);
  Handle* allocateInCollectedHeap(ClassInfo* klass, std::size_t bytes);
  void* mallocWithinBudget(std::size_t bytes, const void* hint);
  void* tryMalloc(std::size_t bytes, const void* hint) {
    return budgetLimit_ ? mallocWithinBudget(bytes, hint) : heap_.malloc(bytes, hint);
  }

  // The interpreter loop: runs from frames_[entryFrame] until that frame returns.
  Value run(std::size_t entryFrame);
  // Calls `callee` with argc args on the stack. True: a script frame was pushed
  // (run it); false: the call finished (a native) and its result is on the stack.
  bool callValue(Value callee, int argc);
  bool invoke(int symbol, int argc, InlineCache* cache);
  bool invokeFromClass(ClassInfo* klass, int symbol, int argc);
  void callClosure(Handle* closure, int argc);
  void callNative(const NativeFunction* native, int argc);
  Value getProperty(Value receiver, int symbol, InlineCache* cache);
  void setProperty(Value receiver, int symbol, Value value, InlineCache* cache);
  Value bindMethod(Value receiver, ClassInfo* klass, int symbol, bool* found);
  Value getIndex(Value container, Value index);
  void setIndex(Value container, Value index, Value value);
  Value add(Value a, Value b);
  [[noreturn]] void binaryTypeError(const char* op, Value a, Value b);
  Handle* captureUpvalue(Value* slot, Handle* closure = nullptr);
  void closeUpvalues(Value* last);
  void defineClass(ClassInfo* klass, Value superclass, bool hasSuper);
  bool newObjectInstance(int argc, Handle* near = nullptr);  // OP_NEW; true when `init` runs as a new frame
  void captureTrace();
  void appendDisplay(std::string& out, Value value);
  void appendScalar(std::string& out, Value value);
  [[noreturn]] void throwOutOfMemory(std::size_t bytes);
  [[noreturn]] void throwThrashing();
  // "'NAME' expects N arguments but got M": the message names what was called.
  [[noreturn]] void throwArity(std::string_view callee, int expected, int got);
  // --trace: the program's requests as the recorder sees them (heap/trace/trace.h).
  void traceAllocation(const Handle* handle, std::size_t bytes);
  void traceFree(const Handle* handle);
  void traceFailure(std::size_t bytes);
  void releaseBlock(void* object);  // back to the heap (poisoned first when checking)
  bool injectedFailure();           // --fail-alloc: this request fails
  void spendSteps(std::uint64_t steps);  // VMOptions::stepLimit
  void moveObjectsForStress();      // --gc-stress=move

  heap::Heap& heap_;
  Collector& collector_;
  VMOptions options_;
  HandleTable handles_;

  Value* stack_ = nullptr;  // fixed block: Values on it never move
  Value* stackLimit_ = nullptr;
  Value* stackTop_ = nullptr;
  CallFrame* frames_ = nullptr;
  std::size_t frameCount_ = 0;
  std::size_t maxDepth_;
  int nativeDepth_ = 0;  // nested run() invocations (C++ recursion)

  std::vector<TryHandler> handlers_;
  std::vector<Handle*> openUpvalues_;  // sorted by stack slot, ascending
  std::deque<Value> rootStack_;

  std::vector<std::unique_ptr<ClassInfo>> classes_;
  std::unordered_map<std::string, ClassInfo*> compiledClasses_;
  std::vector<std::unique_ptr<FunctionProto>> protos_;
  std::unordered_map<std::string, int> symbols_;
  std::vector<std::string> symbolNames_;
  std::unordered_map<std::string, int> globalSlots_;
  std::vector<std::string> globalNames_;
  std::vector<Value> globals_;
  std::vector<bool> globalDeclared_;  // by a top-level let/fn/class that has run (not built-ins)
  ModuleLoader modules_;
  ClassInfo* errorClass_ = nullptr;
  int messageSymbol_;
  int toStringSymbol_;
  int initSymbol_;
  int lengthSymbol_;

  Value pendingException_ = Value::nil();
  // Where each frame was when the exception was thrown, innermost first. Kept raw
  // and formatted only when a trace is printed: a program that throws and catches
  // deep in the stack pays O(depth) small writes per throw, not O(depth) strings.
  struct TraceFrame {
    const FunctionProto* proto;  // protos live as long as the VM (protos_)
    int line;
  };
  std::vector<TraceFrame> exceptionTrace_;
  bool traceCaptured_ = false;
  Value outOfMemoryError_ = Value::nil();    // preallocated, for when no error object fits
  Value outOfMemoryMessage_ = Value::nil();  // its message, "out of memory" (never rewritten)
  std::string fallbackMessage_;              // the exact words of its last use (uncaught report)
  bool fallbackInFlight_ = false;            // the pending exception is that use (not a rethrow)
  bool creatingError_ = false;

  std::vector<Value> displayInProgress_;  // arrays being shown by str() (roots; cycle check)

  bool heapCollects_ = false;  // the heap collects garbage itself (see allocateInCollectedHeap)
  std::vector<Handle*> collectedHeapRoots_;  // the roots pushCollectedHeapRoots reports
  bool canDefragment_ = false;  // the heap accepted the relocator (knuth, estranged)
  bool checkFreedObjects_ = false;  // poison freed objects (VMOptions::checkFreedObjects)
  bool stressActions_ = false;      // moveObjects, a failure injection or a step limit is on
  GcOverheadLimit overheadLimit_;
  bool thrashing_ = false;          // see collectionEnded
  std::string thrashingMessage_;
  std::uint64_t allocationRequests_ = 0;
  std::size_t moveCursor_ = 0;      // the handle slot moveObjectsForStress looks at next
  std::size_t budgetLimit_ = 0;  // see VMOptions::unboundedHeapLimit; 0 when the heap has an arena
  std::size_t budgetInUse_ = 0;
  std::uint64_t instructions_ = 0;
  std::uint64_t stepLimit_ = UINT64_MAX;  // VMOptions::stepLimit, or no limit
  std::uint64_t objectsCreated_ = 0;
  ClassInfo* boxedIntClass_ = nullptr;
  ClassInfo* arrayClass_ = nullptr;  // the interpreter's array fast paths compare it
  VM* previousBoxingVM_ = nullptr;
  // This thread's boxes go to this VM (constructor, run) until it ends (destructor).
  void beginBoxing();
  void boxHere();
  void endBoxing();
  static constexpr std::size_t kMinBoxLimit = std::size_t{1} << 20;  // 24 MiB of handles
  std::size_t liveBoxes_ = 0;
  std::size_t boxLimit_ = kMinBoxLimit;
  std::size_t boxesUnpaid_ = 0;  // made since the last poll (collectBoxesIfDue)
  std::uint64_t boxesCreated_ = 0;
  heap::TraceWriter* trace_ = nullptr;
  std::uint64_t traceTime_ = 0;
  std::uint64_t traceNextId_ = 0;
  // 1 + the trace id of the object in handle slot i (Handle::slot); 0: none (made
  // before the trace began). Keyed by handle, so a moved object keeps its id.
  std::vector<std::uint64_t> traceIdBySlot_;
};

// THE ROOTING RULE's one mechanism (object.h): native code that holds a heap Value
// across anything that may allocate keeps it in a slot of a RootScope,
//   RootScope roots(vm);
//   Value& map = roots.root(vm.newMap());   // a root until `roots` ends
// and uses the slot (never a copy) from then on. Slots are popped when the scope
// ends, also when an exception unwinds it. Like V8's HandleScope.
class RootScope {
 public:
  explicit RootScope(VM& vm) : roots_(vm.rootStack()), mark_(roots_.size()) {}
  ~RootScope() { roots_.resize(mark_); }
  Value& root(Value v) {
    roots_.push_back(v);
    return roots_.back();
  }
  RootScope(const RootScope&) = delete;
  RootScope& operator=(const RootScope&) = delete;

 private:
  std::deque<Value>& roots_;
  std::size_t mark_;
};

template <class Fn>
void VM::forEachRoot(Fn&& fn) {
  for (Value* v = stack_; v < stackTop_; ++v) fn(*v);
  for (std::size_t i = 0; i < frameCount_; ++i) {
    if (frames_[i].closure) {
      Value closure = Value::object(frames_[i].closure);
      fn(closure);
    }
  }
  for (Value& v : globals_) fn(v);
  for (Handle* h : openUpvalues_) {
    Value upvalue = Value::object(h);
    fn(upvalue);
  }
  for (auto& proto : protos_)
    for (Value& v : proto->constants) fn(v);
  for (auto& klass : classes_) {
    for (auto& [symbol, method] : klass->methods) fn(method);
    for (auto& [symbol, value] : klass->statics) fn(value);
    fn(klass->initializer);
  }
  for (Value& v : rootStack_) fn(v);
  for (Value& v : displayInProgress_) fn(v);
  fn(pendingException_);
  fn(outOfMemoryError_);
  fn(outOfMemoryMessage_);
}

}  // namespace kith::vm
