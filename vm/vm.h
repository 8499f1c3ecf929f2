// The virtual machine: the interpreter loop, calls, the object factories, value
// operations and the root set a collector starts from. Its state is three parts with
// three lifetimes, each its own type held by value: the execution stack (frames,
// values, try handlers, open upvalues: vm/execution_stack.h), the method area
// (classes, symbols, globals: vm/method_area.h) and the exception state (the value in
// flight and its trace: vm/exception_state.h). Objects come from its object space
// (vm/object_space.h). See object.h for THE RULE about raw object addresses.
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <deque>
#include <memory>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "heap/heap.h"
#include "vm/collector.h"
#include "vm/exception_state.h"
#include "vm/execution_stack.h"
#include "vm/handle_table.h"
#include "vm/method_area.h"
#include "vm/module_loader.h"
#include "vm/vm_binding.h"
#include "vm/object.h"
#include "vm/object_space.h"
#include "vm/opcodes.h"
#include "vm/value.h"
#include "vm/vm_options.h"

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
// VM::requestInterrupt (Ctrl-C in kith repl) seen by the interpreter: unwinds
// everything, like StepLimitReached, so no script `catch` can keep a loop from being
// stopped. exceptionTrace() then says where the code was.
struct Interrupted {};

class VM final : private VmBinding {
 public:
  VM(heap::Heap& heap, Collector& collector, VMOptions options = {});
  ~VM();
  VM(const VM&) = delete;
  VM& operator=(const VM&) = delete;

  // --- objects -------------------------------------------------------------------
  // Where objects live: the allocation gate, boxes, the trace, the handles
  // (vm/object_space.h). Every heap object is born there; allocateObject is its gate.
  ObjectSpace& space() { return *space_; }
  Handle* allocateObject(ClassInfo* klass, std::size_t bytes, Handle* near = nullptr) {
    return space_->allocate(klass, bytes, near);
  }

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

  // --- classes, symbols, globals (the method area, vm/method_area.h) -------------
  ClassInfo* builtinClass(ObjectKind kind) { return methods_.builtinClass(kind); }
  ClassInfo* newClass(std::string name, ObjectKind kind = ObjectKind::instance) {
    return methods_.newClass(std::move(name), kind);
  }
  ClassInfo* classById(std::size_t id) { return methods_.classById(id); }
  // A user class compiled so far, by name (for compile-time field checks).
  ClassInfo* compiledClass(std::string_view name) { return methods_.compiledClass(name); }
  ClassInfo* errorClass() const { return methods_.errorClass(); }
  // Installs the class runtime errors are instances of (stdlib's prelude defines it).
  void setErrorClass(ClassInfo* klass);
  FunctionProto* newProto() { return methods_.newProto(); }

  int symbol(std::string_view name) { return methods_.symbol(name); }
  const std::string& symbolName(int symbol) const { return methods_.symbolName(symbol); }
  int globalSlot(std::string_view name) { return methods_.globalSlot(name); }  // creates an undefined global on first use
  void defineGlobal(std::string_view name, Value value);
  Value global(std::string_view name) { return methods_.global(name); }  // undefined() if absent
  const std::string& globalName(std::size_t slot) const { return methods_.globalName(slot); }
  void defineNative(ClassInfo* klass, const NativeFunction* native) { methods_.defineNative(klass, native); }
  void defineStatic(ClassInfo* klass, std::string_view name, Value value) { methods_.defineStatic(klass, name, value); }

  // --- running ------------------------------------------------------------------
  // How runScript makes the script's frame. `allocate`: with a closure object, as
  // every call has (kith run: an allocation that traces and studies count). `none`:
  // top-level code captures no upvalues, so its frame needs no closure; kith repl
  // runs its input so, because an input that frees memory must run when the heap is full.
  enum class ScriptClosure { allocate, none };
  // Runs a compiled script to the end (its file counts as imported: see ModuleLoader). Returns normally, or throws KithThrow
  // (uncaught exception: see pendingException / exceptionTrace), ExitRequest or Interrupted.
  // Whatever it throws, the frames, stack, try handlers and open upvalues it made are gone.
  void runScript(FunctionProto* script, ScriptClosure closure = ScriptClosure::allocate);
  // Asks the running code to stop: the interpreter throws Interrupted at its next
  // loop back-edge, return or throw. Only atomic stores, so a signal handler may call it.
  void requestInterrupt() noexcept {
    interruptPending_.store(true, std::memory_order_relaxed);
    stepsLeft_.store(0, std::memory_order_relaxed);  // the one check the interpreter makes anyway
  }
  // Withdraws a request the interpreter has not seen (it came after the code ended).
  void clearInterrupt() noexcept;
  // Calls `callee` with `argc` arguments already pushed above it (push callee,
  // then each argument) and returns the result, popping all of them. For natives
  // that call back into script code (List.forEach, str() calling toString()).
  Value call(int argc);
  // Calls `method` (a closure or native) with the receiver and argc arguments
  // already pushed (receiver first); returns the result, popping them all.
  Value callMethod(Value method, int argc);
  void push(Value v);
  Value pop() { return *--stack_.top; }
  Value peek(int distance = 0) const { return stack_.top[-1 - distance]; }

  // --- errors (the exception state, vm/exception_state.h) ---------------------------
  [[noreturn]] void throwError(const std::string& message) override;  // a new Error(message)
  [[noreturn]] void throwValue(Value value);
  Value pendingException() const { return exceptions_.pending(); }
  void clearException() { exceptions_.clear(); }
  // "  at FUNCTION (FILE:LINE)" lines of the frames live when the exception was thrown,
  // innermost first, folded as LANGUAGE.md says (vm/trace_folding.h).
  std::vector<std::string> exceptionTrace() const { return exceptions_.traceLines(); }
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
  // open upvalues, the objects among the functions' constants, the methods each class
  // defines and its statics, values pinned by native code, the arrays str() is
  // showing, the pending exception and the preallocated error. The object space
  // reports them to its collector (gatherRoots, vm/vm_binding.h).
  template <class Fn>
  void forEachRoot(Fn&& fn);
  void gatherRoots(std::vector<Value>& roots) override;  // VmBinding: forEachRoot's values
  // A value on the heap (a string, a boxed int) became a constant of a function: rooted
  // for the whole run (MethodArea keeps these roots).
  void rootConstant(Value constant) { methods_.rootConstant(constant); }
  // Compiled code that will never run keeps no constant alive: kith repl drops the
  // roots of a compile it does not run (and of an import that does not compile) by
  // the count taken before it, and after an input ran, those of its top-level code
  // (functions it defined keep theirs). A long session so leaks no heap.
  std::size_t constantRootCount() const { return methods_.constantRootCount(); }
  void dropConstantRoots(std::size_t count) { methods_.dropConstantRoots(count); }
  void dropTopLevelConstantRoots(const FunctionProto& script, std::size_t count) {
    methods_.dropTopLevelConstantRoots(script, count);
  }

  // --- statistics ---------------------------------------------------------------
  heap::Heap& heap() { return space_->heap(); }
  Collector& collector() { return collector_; }
  std::uint64_t instructionsExecuted() const { return instructions_; }
  const std::vector<std::string>& args() const { return args_; }

 private:
  // The interpreter loop: runs from stack_.frames[entryFrame] until that frame returns.
  Value run(std::size_t entryFrame);
  // Calls `callee` with argc args on the stack. True: a script frame was pushed
  // (run it); false: the call finished (a native) and its result is on the stack.
  // `calleeName`: the symbol the call site read the callee from, for the error when
  // it cannot be called (kNoCalleeName: none).
  bool callValue(Value callee, int argc, std::uint16_t calleeName = kNoCalleeName);
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
  void defineClass(ClassInfo* klass, Value superclass, bool hasSuper);
  bool newObjectInstance(int argc, Handle* near = nullptr);  // OP_NEW; true when `init` runs as a new frame
  void captureTrace();
  void appendDisplay(std::string& out, Value value);
  void appendScalar(std::string& out, Value value);
  // "'NAME' expects N arguments but got M": the message names what was called.
  [[noreturn]] void throwArity(std::string_view callee, int expected, int got);
  void spendSteps(std::uint64_t steps) override;  // VmBinding: VMOptions::stepLimit
  // The interpreter's step check failed: Interrupted when an interrupt was asked
  // for, else StepLimitReached; first the frames from `unwindFrame` up are dropped,
  // when it is given (a throw from a catch handler that would skip that unwinding).
  static constexpr std::size_t kNoUnwind = SIZE_MAX;
  [[noreturn]] void stepLimitReached(std::size_t unwindFrame = kNoUnwind);
  // Drops the frames from `frame` up (an exception unwinds them): their try handlers
  // and open upvalues, and the imports they were running (ModuleLoader::unwound).
  void unwindTo(std::size_t frame);

  Collector& collector_;  // its write barrier and back-edge budget
  std::vector<std::string> args_;
  bool stepLimited_;      // VMOptions::stepLimit is on

  ExecutionStack stack_;
  std::deque<Value> rootStack_;
  MethodArea methods_;
  ModuleLoader modules_;
  ExceptionState exceptions_;
  std::vector<Value> displayInProgress_;  // arrays being shown by str() (roots; cycle check)

  std::uint64_t instructions_ = 0;
  std::uint64_t stepBudget_ = UINT64_MAX;  // VMOptions::stepLimit less spendSteps, or no limit
  // What a run() invocation compares the instructions it has executed with at every
  // back-edge and return: stepBudget_ less instructions_ (kept so by addInstructions),
  // or 0 while an interrupt is pending. One load and compare, where `instructions_ +
  // executed > limit` took two loads and an add. Atomic for requestInterrupt.
  std::atomic<std::uint64_t> stepsLeft_{UINT64_MAX};
  std::atomic<bool> interruptPending_{false};
  static_assert(std::atomic<std::uint64_t>::is_always_lock_free, "requestInterrupt runs in a signal handler");
  void addInstructions(std::uint64_t executed) {
    instructions_ += executed;
    refreshStepsLeft();
  }
  void refreshStepsLeft() {
    stepsLeft_.store(stepBudget_ > instructions_ ? stepBudget_ - instructions_ : 0, std::memory_order_relaxed);
    if (interruptPending_.load(std::memory_order_relaxed)) stepsLeft_.store(0, std::memory_order_relaxed);  // asked meanwhile
  }
  // Last: made from the classes above, and gone (freeing what it must) before them.
  std::unique_ptr<ObjectSpace> space_;
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

// The order is fixed (collectors mark in it, so heaps and gc logs depend on it).
template <class Fn>
void VM::forEachRoot(Fn&& fn) {
  stack_.forEachValueRoot(fn);
  methods_.forEachGlobalRoot(fn);
  stack_.forEachUpvalueRoot(fn);
  methods_.forEachCodeRoot(fn);
  for (Value& v : rootStack_) fn(v);
  for (Value& v : displayInProgress_) fn(v);
  exceptions_.forEachRoot(fn);
}

}  // namespace kith::vm
