// The exception state: the Kith exception in flight (thrown, not yet caught), where
// the frames were when it was thrown, and the preallocated error the VM throws when
// no error object fits in the heap. A throw sets it, a `catch`, the runner's report
// or the REPL's next input clears it — each through clear(), the one place it is
// reset. Held by value inside the VM.
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "vm/execution_stack.h"
#include "vm/object.h"
#include "vm/value.h"

namespace kith::vm {

class ExceptionState {
 public:
  // The thrown value; nil when none is in flight.
  Value pending() const { return pending_; }
  // `thrown` is in flight, with no trace yet.
  void raise(Value thrown) {
    clear();
    pending_ = thrown;
  }
  // The preallocated error is in flight for a failure the words `message` say
  // (fallbackMessage: the uncaught report gives them, not the error's message).
  void raiseFallback(std::string message) {
    clear();
    pending_ = preallocatedError_;
    fallbackMessage_ = std::move(message);
    fallbackInFlight_ = true;
  }
  // Nothing is in flight: no value, no trace, no fallback.
  void clear() {
    pending_ = Value::nil();
    trace_.clear();
    traceCaptured_ = false;
    fallbackInFlight_ = false;
  }

  // --- the trace ----------------------------------------------------------------------
  bool traceCaptured() const { return traceCaptured_; }
  // Where each of `stack`'s frames is now, innermost first. Kept raw and formatted
  // only when a trace is printed: a program that throws and catches deep in the
  // stack pays O(depth) small writes per throw, not O(depth) strings.
  void captureTrace(const ExecutionStack& stack);
  // "  at FUNCTION (FILE:LINE)" lines, innermost first, folded as LANGUAGE.md says
  // (vm/trace_folding.h).
  std::vector<std::string> traceLines() const;

  // --- the preallocated error -----------------------------------------------------------
  // Made once Error is defined (VM::setErrorClass), so that even a heap too full
  // for an error object can report one; its message is the fixed string `message`
  // ("out of memory"), never rewritten.
  void setPreallocated(Value error, Value message) {
    preallocatedError_ = error;
    preallocatedMessage_ = message;
  }
  Value preallocatedError() const { return preallocatedError_; }
  Value preallocatedMessage() const { return preallocatedMessage_; }
  // Whether `thrown` is the preallocated error as the VM threw it (or nothing at all,
  // when even that could not be made): then the report is fallbackMessage().
  bool isFallback(Value thrown) const {
    return fallbackInFlight_ &&
           (preallocatedError_.isNil() || (thrown.isObject() && thrown.asHandle() == preallocatedError_.asHandle()));
  }
  const std::string& fallbackMessage() const { return fallbackMessage_; }
  // Whether an error object is being made (VM::throwError): an error meanwhile
  // throws the preallocated one.
  bool creatingError() const { return creatingError_; }
  void setCreatingError(bool creating) { creatingError_ = creating; }

  // The roots here: the value in flight, the preallocated error and its message.
  template <class Fn>
  void forEachRoot(Fn&& fn) {
    fn(pending_);
    fn(preallocatedError_);
    fn(preallocatedMessage_);
  }

 private:
  struct TraceFrame {
    const FunctionProto* proto;  // protos live as long as the VM (MethodArea)
    int line;
  };

  Value pending_ = Value::nil();
  std::vector<TraceFrame> trace_;
  bool traceCaptured_ = false;
  Value preallocatedError_ = Value::nil();
  Value preallocatedMessage_ = Value::nil();
  std::string fallbackMessage_;   // the exact words of its last use (uncaught report)
  bool fallbackInFlight_ = false;  // the pending exception is that use (not a rethrow)
  bool creatingError_ = false;
};

}  // namespace kith::vm
