// The execution stack: the Value stack, the call frames on it, the try handlers and
// the open upvalues that point into it. It lives while code runs; an exception unwinds
// it (unwindTo) and a finished run leaves it as it found it. Held by value inside
// the VM, so the interpreter reaches its fields as it reaches the VM's own: no
// pointer more per instruction. Its fields are public, as a clox VM's: the interpreter
// keeps the top and the current frame in locals, writes them back before anything that
// may allocate, throw or call out, and pushes and pops frames itself.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "vm/object.h"
#include "vm/value.h"

namespace kith::vm {

struct CallFrame {
  Handle* closure;  // nullptr for top-level code that runs without one (kith repl)
  FunctionProto* proto;
  const std::uint8_t* ip;
  Value* slots;
};

struct TryHandler {
  std::size_t frameIndex;  // the frame whose code holds the try block
  Value* stackTop;         // the stack height at `try` (locals only)
  const std::uint8_t* catchIp;
};

class ExecutionStack {
 public:
  // Room for `depth` frames (at least 1) and their values; throws std::bad_alloc.
  explicit ExecutionStack(std::size_t depth);
  ~ExecutionStack();
  ExecutionStack(const ExecutionStack&) = delete;
  ExecutionStack& operator=(const ExecutionStack&) = delete;

  // Drops the try handlers of frames[frame] and above (they returned or unwound).
  void dropHandlersFrom(std::size_t frame) {
    while (!handlers.empty() && handlers.back().frameIndex >= frame) handlers.pop_back();
  }
  // Closes the open upvalues of the slots from `last` up: each takes its slot's value.
  void closeUpvalues(Value* last);
  // Drops frames[frame] and above as an exception does: their open upvalues close,
  // their try handlers go, the top returns to the frame's first slot.
  void unwindTo(std::size_t frame);

  // The values among the roots: each live slot and each frame's closure; then,
  // separately, the open upvalues (VM::forEachRoot gives the roots in a fixed order).
  template <class Fn>
  void forEachValueRoot(Fn&& fn);
  template <class Fn>
  void forEachUpvalueRoot(Fn&& fn);

  // The Value stack: one block that never moves (open upvalues and natives' argument
  // pointers point into it); pages are committed as used. values <= top <= limit.
  Value* values = nullptr;
  Value* limit = nullptr;
  Value* top = nullptr;
  // The frames, one block of maxDepth + 1: frames[frameCount - 1] runs.
  CallFrame* frames = nullptr;
  std::size_t frameCount = 0;
  const std::size_t maxDepth;
  int nativeDepth = 0;  // nested interpreter entries (C++ recursion)
  std::vector<TryHandler> handlers;    // innermost last
  std::vector<Handle*> openUpvalues;   // sorted by stack slot, ascending
};

template <class Fn>
void ExecutionStack::forEachValueRoot(Fn&& fn) {
  for (Value* v = values; v < top; ++v) fn(*v);
  for (std::size_t i = 0; i < frameCount; ++i) {
    if (frames[i].closure) {
      Value closure = Value::object(frames[i].closure);
      fn(closure);
    }
  }
}

template <class Fn>
void ExecutionStack::forEachUpvalueRoot(Fn&& fn) {
  for (Handle* h : openUpvalues) {
    Value upvalue = Value::object(h);
    fn(upvalue);
  }
}

}  // namespace kith::vm
