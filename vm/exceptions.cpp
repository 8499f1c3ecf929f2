// Thrown values and runtime errors: their messages, traces and the step limit.
#include "vm/vm.h"

#include <cmath>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <new>

#include "vm/trace_folding.h"

namespace kith::vm {

namespace {

std::string plural(int n, const char* word) {
  return std::to_string(n) + " " + word + (n == 1 ? "" : "s");
}

}  // namespace

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
    // Its message is the out-of-memory one again each time it is thrown, whatever a
    // script that caught it before assigned to it (LANGUAGE.md); the string is the
    // preallocated one, never rewritten, so no allocation is needed.
    if (outOfMemoryError_.isObject()) {
      auto slot = errorClass_->fieldSlots.find(messageSymbol_);
      if (slot != errorClass_->fieldSlots.end())
        KITH_WRITE_BARRIER(collector_, objectAt<InstanceObject>(outOfMemoryError_)->fields()[slot->second],
                           outOfMemoryMessage_);
    }
    pendingException_ = outOfMemoryError_;
    exceptionTrace_.clear();
    traceCaptured_ = false;
    fallbackInFlight_ = true;
    throw KithThrow{};
  }
  throwValue(error);
}

void VM::throwArity(std::string_view callee, int expected, int got) {
  throwError("'" + std::string(callee) + "' expects " + plural(expected, "argument") + " but got " + std::to_string(got));
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

std::vector<std::string> VM::exceptionTrace() const {
  std::vector<std::string> lines;
  lines.reserve(exceptionTrace_.size());
  for (const TraceFrame& f : exceptionTrace_)
    lines.push_back("  at " + f.proto->name + " (" + f.proto->file + ":" + std::to_string(f.line) + ")");
  return foldTrace(lines);
}

std::string VM::exceptionMessage(Value value) {
  RootScope roots(*this);
  Value& thrown = roots.root(value);  // str() below may run toString(), which allocates
  bool isError = isKind(thrown, ObjectKind::instance) && thrown.asHandle()->klass->isErrorClass;
  auto slot = isError ? thrown.asHandle()->klass->fieldSlots.find(messageSymbol_) : ClassInfo::FieldSlots::iterator{};
  bool hasMessage = isError && slot != thrown.asHandle()->klass->fieldSlots.end();
  Value& message = roots.root(hasMessage ? objectAt<InstanceObject>(thrown)->fields()[slot->second] : thrown);
  // The preallocated error as the VM threw it (or nothing at all, when even that
  // could not be made): the report gives the failure's exact words.
  if (fallbackInFlight_ && (outOfMemoryError_.isNil() ||
                            (thrown.isObject() && thrown.asHandle() == outOfMemoryError_.asHandle())))
    return fallbackMessage_;  // the preallocated error, as the VM threw it: the failure's exact words
  try {
    return toDisplayString(message);
  } catch (const KithThrow&) {
    clearException();
    return "<" + typeName(message) + " (its toString() threw)>";
  }
}

}  // namespace kith::vm
