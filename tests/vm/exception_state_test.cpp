// The exception state (vm/exception_state.h): a throw sets it, clear() — its one
// reset — empties all of it, and the VM leaves none behind once a script catches.
#include "vm/exception_state.h"

#include <gtest/gtest.h>

#include <vector>

#include "vm_test_support.h"

namespace kith::vm {
namespace {

// A function of three code bytes on lines 10, 11, 12 of `file`.
FunctionProto functionAt(const char* name, const char* file) {
  FunctionProto proto;
  proto.name = name;
  proto.file = file;
  proto.code = {0, 0, 0};
  proto.lines = {10, 11, 12};
  return proto;
}

TEST(ExceptionState, TheTraceNamesEachFrameInnermostFirstAtTheLineOfItsLastByte) {
  FunctionProto script = functionAt("<script>", "main.kith"), f = functionAt("f", "lib.kith");
  ExecutionStack stack(10);
  stack.frames[stack.frameCount++] = CallFrame{nullptr, &script, script.code.data() + 1, stack.values};
  stack.frames[stack.frameCount++] = CallFrame{nullptr, &f, f.code.data() + 3, stack.values + 1};
  ExceptionState state;
  EXPECT_FALSE(state.traceCaptured());
  state.captureTrace(stack);
  EXPECT_TRUE(state.traceCaptured());
  std::vector<std::string> want = {"  at f (lib.kith:12)", "  at <script> (main.kith:10)"};
  EXPECT_EQ(state.traceLines(), want);
}

TEST(ExceptionState, ClearEmptiesTheValueTheTraceAndTheFallback) {
  FunctionProto script = functionAt("<script>", "main.kith");
  ExecutionStack stack(10);
  stack.frames[stack.frameCount++] = CallFrame{nullptr, &script, script.code.data(), stack.values};
  ExceptionState state;
  state.raiseFallback("out of memory: requested 64 bytes");  // no preallocated error yet: nil
  state.captureTrace(stack);
  EXPECT_TRUE(state.isFallback(state.pending()));
  EXPECT_EQ(state.fallbackMessage(), "out of memory: requested 64 bytes");

  state.clear();
  EXPECT_TRUE(state.pending().isNil());
  EXPECT_FALSE(state.traceCaptured());
  EXPECT_TRUE(state.traceLines().empty());
  EXPECT_FALSE(state.isFallback(state.pending()));
}

TEST(ExceptionState, ARaiseReplacesWhateverWasInFlight) {
  Handle preallocated{};
  ExceptionState state;
  state.setPreallocated(Value::object(&preallocated), Value::integer(0));
  state.raiseFallback("out of memory");
  EXPECT_EQ(state.pending().asHandle(), &preallocated);
  EXPECT_TRUE(state.isFallback(Value::object(&preallocated)));

  state.raise(Value::object(&preallocated));  // a script rethrows it: no longer the VM's words
  EXPECT_FALSE(state.isFallback(state.pending()));
  state.raise(Value::integer(3));
  EXPECT_TRUE(state.pending().sameAs(Value::integer(3)));
  std::vector<Value> roots;
  state.forEachRoot([&](Value& v) { roots.push_back(v); });
  ASSERT_EQ(roots.size(), 3u);  // in flight, the preallocated error, its message
  EXPECT_TRUE(roots[0].sameAs(Value::integer(3)));
  EXPECT_EQ(roots[1].asHandle(), &preallocated);
}

TEST(ExceptionState, ACaughtExceptionLeavesNothingInFlight) {
  testing::TestVM machine;
  testing::RunOutcome outcome = machine.run(R"(
    fn deep(n) { if (n == 0) throw "bottom"; deep(n - 1); }
    try { deep(5); } catch (e) { print(e); }
    try { new Array(1000000000000); } catch (e) { print(e.message); }
  )");
  EXPECT_EQ(outcome.error, "");
  EXPECT_EQ(outcome.out.substr(0, 7), "bottom\n");
  EXPECT_TRUE(machine.vm().pendingException().isNil());
  EXPECT_TRUE(machine.vm().exceptionTrace().empty());
}

}  // namespace
}  // namespace kith::vm
