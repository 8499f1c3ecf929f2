// TraceEvent: one entry of an allocation trace (trace.h) — an allocation, a free,
// or a request the recording heap could not satisfy — and the sinks that collect
// events. Objects are named by id rather than by address, so that a trace means
// the same thing to every policy; the time is logical (the event's sequence number
// in a recorded trace).
#pragma once

#include <cstdint>
#include <string_view>
#include <vector>

namespace kith::heap {

enum class TraceEventKind : std::uint8_t { alloc, free, failed };

struct TraceEvent {
  TraceEventKind kind = TraceEventKind::alloc;
  std::uint64_t time = 0;  // logical timestamp
  std::uint64_t id = 0;    // object id (alloc, free); 0 for failed
  std::uint64_t size = 0;  // bytes requested (alloc, failed); 0 for free
  bool operator==(const TraceEvent&) const = default;
};

// The two encodings of a trace file: text (trace_text.h) for reading and tests,
// binary (trace_binary.h) for real runs.
enum class TraceFormat : std::uint8_t { text, binary };

inline std::string_view traceFormatName(TraceFormat format) {
  return format == TraceFormat::text ? "text" : "binary";
}

// Anything TraceHeap (or the VM) can record to.
template <class S>
concept TraceSink = requires(S s, const TraceEvent& e) { s.record(e); };

// The in-memory sink, for tests and for keeping a short trace whole.
struct TraceBuffer {
  std::vector<TraceEvent> events;
  void record(const TraceEvent& e) { events.push_back(e); }
};

}  // namespace kith::heap
