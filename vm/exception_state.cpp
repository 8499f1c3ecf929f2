// The exception state's trace: captured raw, formatted when printed.
#include "vm/exception_state.h"

#include <algorithm>

#include "vm/trace_folding.h"

namespace kith::vm {

void ExceptionState::captureTrace(const ExecutionStack& stack) {
  trace_.clear();
  for (std::size_t i = stack.frameCount; i-- > 0;) {
    const CallFrame& f = stack.frames[i];
    std::size_t offset = static_cast<std::size_t>(f.ip - f.proto->code.data());
    int line = f.proto->lines.empty() ? 0 : f.proto->lines[offset > 0 ? std::min(offset - 1, f.proto->lines.size() - 1) : 0];
    trace_.push_back({f.proto, line});
  }
  traceCaptured_ = true;
}

std::vector<std::string> ExceptionState::traceLines() const {
  std::vector<std::string> lines;
  lines.reserve(trace_.size());
  for (const TraceFrame& f : trace_)
    lines.push_back("  at " + f.proto->name + " (" + f.proto->file + ":" + std::to_string(f.line) + ")");
  return foldTrace(lines);
}

}  // namespace kith::vm
