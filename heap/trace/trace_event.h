// TraceEvent: one entry of an allocation trace (trace.h) — an allocation, a free,
// a resize (a program's realloc), or a request the recording heap could not
// satisfy — and the sinks that collect events. Objects are named by id rather than by address, so that a trace means
// the same thing to every policy; the time is logical (the event's sequence number
// in a recorded trace).
#pragma once

#include <cstdint>
#include <string_view>
#include <vector>

namespace kith::heap {

// resize and move are both a realloc of a live object to `size` bytes, which keeps
// its id; they say what the recording policy did with it: resize, the block held
// the new size (in place); move, it did not (a new block, the contents copied, the
// old block freed). A replay does what the replaying policy can (cli/replay.h).
enum class TraceEventKind : std::uint8_t { alloc, free, failed, resize, move };

struct TraceEvent {
  TraceEventKind kind = TraceEventKind::alloc;
  std::uint64_t time = 0;  // logical timestamp
  std::uint64_t id = 0;    // object id (alloc, free, resize, move); 0 for failed
  std::uint64_t size = 0;  // bytes requested (alloc, failed; resize and move: the new size); 0 for free
  bool operator==(const TraceEvent&) const = default;
};

// A realloc of a live object: resize or move.
inline bool isResize(TraceEventKind kind) {
  return kind == TraceEventKind::resize || kind == TraceEventKind::move;
}

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
