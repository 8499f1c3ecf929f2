// Thrown values and runtime errors: making them, their messages and traces, and the
// step limit. What is in flight is the exception state's (vm/exception_state.h).
#include "vm/vm.h"

#include <cmath>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <new>

namespace kith::vm {

namespace {

std::string plural(int n, const char* word) {
  return std::to_string(n) + " " + word + (n == 1 ? "" : "s");
}

}  // namespace

// --- errors -------------------------------------------------------------------------------------

void VM::throwValue(Value value) {
  exceptions_.raise(value);
  throw KithThrow{};
}

void VM::throwError(const std::string& message) {
  Value error = Value::nil();
  bool made = false;
  if (!exceptions_.creatingError()) {  // an error while making an error: use the preallocated one
    exceptions_.setCreatingError(true);
    try {
      RootScope roots(*this);
      Value& text = roots.root(newString(message));
      if (ClassInfo* errorClass = methods_.errorClass()) {
        error = newInstance(errorClass);
        auto slot = errorClass->fieldSlots.find(methods_.messageSymbol());
        if (slot != errorClass->fieldSlots.end()) objectAt<InstanceObject>(error)->fields()[slot->second] = text;
      } else {
        error = text;  // before the prelude has defined Error
      }
      made = true;
    } catch (const KithThrow&) {
    }
    exceptions_.setCreatingError(false);
  }
  if (!made) {
    // The preallocated error, untouched (a script may hold it and even have set its
    // message); the exact words go to the uncaught report (raiseFallback).
    // Its message is the out-of-memory one again each time it is thrown, whatever a
    // script that caught it before assigned to it (LANGUAGE.md); the string is the
    // preallocated one, never rewritten, so no allocation is needed.
    Value preallocated = exceptions_.preallocatedError();
    if (preallocated.isObject()) {
      ClassInfo* errorClass = methods_.errorClass();
      auto slot = errorClass->fieldSlots.find(methods_.messageSymbol());
      if (slot != errorClass->fieldSlots.end())
        KITH_WRITE_BARRIER(collector_, objectAt<InstanceObject>(preallocated)->fields()[slot->second],
                           exceptions_.preallocatedMessage());
    }
    exceptions_.raiseFallback(message);
    throw KithThrow{};
  }
  throwValue(error);
}

void VM::throwArity(std::string_view callee, int expected, int got) {
  throwError("'" + std::string(callee) + "' expects " + plural(expected, "argument") + " but got " + std::to_string(got));
}

void VM::captureTrace() {
  exceptions_.captureTrace(stack_);
  // Under a step limit (fuzzing) a deep capture spends steps: a recursion that throws
  // and catches at every level would otherwise do O(depth) work per counted step.
  spendSteps(stack_.frameCount);
}

// Work that is slow per instruction counts against VMOptions::stepLimit too.
void VM::spendSteps(std::uint64_t steps) {
  if (!stepLimited_) return;
  stepBudget_ = stepBudget_ > steps ? stepBudget_ - steps : 0;
  refreshStepsLeft();
}

void VM::clearInterrupt() noexcept {
  interruptPending_.store(false, std::memory_order_relaxed);
  refreshStepsLeft();
}

void VM::stepLimitReached(std::size_t unwindFrame) {
  bool interrupted = interruptPending_.load(std::memory_order_relaxed);
  if (interrupted) {
    clearInterrupt();
    captureTrace();  // where it stopped, for the report
  }
  if (unwindFrame != kNoUnwind) unwindTo(unwindFrame);
  if (interrupted) throw Interrupted{};
  throw StepLimitReached{};
}

std::string VM::exceptionMessage(Value value) {
  RootScope roots(*this);
  Value& thrown = roots.root(value);  // str() below may run toString(), which allocates
  bool isError = isKind(thrown, ObjectKind::instance) && thrown.asHandle()->klass->isErrorClass;
  auto slot = isError ? thrown.asHandle()->klass->fieldSlots.find(methods_.messageSymbol()) : ClassInfo::FieldSlots::iterator{};
  bool hasMessage = isError && slot != thrown.asHandle()->klass->fieldSlots.end();
  Value& message = roots.root(hasMessage ? objectAt<InstanceObject>(thrown)->fields()[slot->second] : thrown);
  // The preallocated error as the VM threw it (or nothing at all, when even that
  // could not be made): the report gives the failure's exact words.
  if (exceptions_.isFallback(thrown)) return exceptions_.fallbackMessage();
  try {
    return toDisplayString(message);
  } catch (const KithThrow&) {
    clearException();
    return "<" + typeName(message) + " (its toString() threw)>";
  }
}

}  // namespace kith::vm
