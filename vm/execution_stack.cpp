// The execution stack's blocks, and what unwinding does to it.
#include "vm/execution_stack.h"

#include <algorithm>
#include <cstdlib>
#include <new>

namespace kith::vm {

namespace {

constexpr std::size_t kStackSlotsPerFrame = 64;

}  // namespace

ExecutionStack::ExecutionStack(std::size_t depth) : maxDepth(std::max<std::size_t>(depth, 1)) {
  std::size_t slots = std::max<std::size_t>((maxDepth + 1) * kStackSlotsPerFrame, 1 << 16);
  values = static_cast<Value*>(std::malloc(slots * sizeof(Value)));
  frames = static_cast<CallFrame*>(std::malloc((maxDepth + 1) * sizeof(CallFrame)));
  if (!values || !frames) {
    std::free(values);
    std::free(frames);
    throw std::bad_alloc();
  }
  limit = values + slots;
  top = values;
}

ExecutionStack::~ExecutionStack() {
  std::free(values);
  std::free(frames);
}

void ExecutionStack::closeUpvalues(Value* last) {
  while (!openUpvalues.empty()) {
    auto* u = objectAt<UpvalueObject>(openUpvalues.back());
    if (u->stackSlot < last) break;
    u->closed = *u->stackSlot;
    u->stackSlot = nullptr;
    openUpvalues.pop_back();
  }
}

void ExecutionStack::unwindTo(std::size_t frame) {
  closeUpvalues(frames[frame].slots);
  dropHandlersFrom(frame);
  top = frames[frame].slots;
  frameCount = frame;
}

}  // namespace kith::vm
