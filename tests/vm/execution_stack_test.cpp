// The execution stack (vm/execution_stack.h): its blocks, and unwinding — frames,
// try handlers and open upvalues go together.
#include "vm/execution_stack.h"

#include <gtest/gtest.h>

#include <vector>

namespace kith::vm {
namespace {

// An open upvalue for `slot`, with no heap behind it: objectAt reads handle.object.
struct FakeUpvalue {
  UpvalueObject object{};
  Handle handle{};
  explicit FakeUpvalue(Value* slot) {
    object.stackSlot = slot;
    handle.object = &object;
  }
};

// Frames 0, 1, 2 whose slots start at values + 0, 4, 8; a try handler in each.
void pushThreeFrames(ExecutionStack& stack) {
  for (std::size_t i = 0; i < 3; ++i) {
    stack.frames[stack.frameCount++] = CallFrame{nullptr, nullptr, nullptr, stack.values + 4 * i};
    stack.handlers.push_back(TryHandler{i, stack.values + 4 * i + 1, nullptr});
  }
  stack.top = stack.values + 12;
}

TEST(ExecutionStack, StartsEmptyWithRoomForItsDepth) {
  ExecutionStack stack(100);
  EXPECT_EQ(stack.top, stack.values);
  EXPECT_EQ(stack.frameCount, 0u);
  EXPECT_EQ(stack.maxDepth, 100u);
  EXPECT_GE(stack.limit - stack.values, 1 << 16);
  EXPECT_TRUE(stack.handlers.empty());
  EXPECT_TRUE(stack.openUpvalues.empty());
  EXPECT_EQ(ExecutionStack(0).maxDepth, 1u);  // a depth of 0 still runs the script's frame
}

TEST(ExecutionStack, UnwindingDropsTheFramesTheirHandlersAndClosesTheirUpvalues) {
  ExecutionStack stack(10);
  pushThreeFrames(stack);
  for (int i = 0; i < 12; ++i) stack.values[i] = Value::integer(i);
  FakeUpvalue low(stack.values + 2), high(stack.values + 9);
  stack.openUpvalues = {&low.handle, &high.handle};

  stack.unwindTo(1);
  EXPECT_EQ(stack.frameCount, 1u);
  EXPECT_EQ(stack.top, stack.values + 4);
  ASSERT_EQ(stack.handlers.size(), 1u);
  EXPECT_EQ(stack.handlers[0].frameIndex, 0u);
  ASSERT_EQ(stack.openUpvalues.size(), 1u);  // frame 0's stays open
  EXPECT_EQ(low.object.stackSlot, stack.values + 2);
  EXPECT_EQ(high.object.stackSlot, nullptr);  // closed, with the slot's value
  EXPECT_TRUE(high.object.closed.sameAs(Value::integer(9)));
}

TEST(ExecutionStack, DropHandlersFromKeepsThoseOfOuterFrames) {
  ExecutionStack stack(10);
  pushThreeFrames(stack);
  stack.dropHandlersFrom(2);
  EXPECT_EQ(stack.handlers.size(), 2u);
  stack.dropHandlersFrom(0);
  EXPECT_TRUE(stack.handlers.empty());
}

TEST(ExecutionStack, RootsAreTheLiveSlotsTheFramesClosuresAndTheOpenUpvalues) {
  ExecutionStack stack(10);
  Handle closure{};
  stack.frames[stack.frameCount++] = CallFrame{&closure, nullptr, nullptr, stack.values};
  stack.frames[stack.frameCount++] = CallFrame{nullptr, nullptr, nullptr, stack.values + 1};  // top-level code
  stack.values[0] = Value::integer(1);
  stack.values[1] = Value::integer(2);
  stack.top = stack.values + 2;
  std::vector<Value> roots;
  stack.forEachValueRoot([&](Value& v) { roots.push_back(v); });
  ASSERT_EQ(roots.size(), 3u);
  EXPECT_TRUE(roots[1].sameAs(Value::integer(2)));
  EXPECT_EQ(roots[2].asHandle(), &closure);

  FakeUpvalue open(stack.values);
  stack.openUpvalues = {&open.handle};
  roots.clear();
  stack.forEachUpvalueRoot([&](Value& v) { roots.push_back(v); });
  ASSERT_EQ(roots.size(), 1u);
  EXPECT_EQ(roots[0].asHandle(), &open.handle);
}

}  // namespace
}  // namespace kith::vm
