// The allocation trace: what `kith run --trace` and TraceHeap record and
// `kith replay` feeds back to any policy. A trace is the sequence of a run's heap
// requests (trace_event.h), with objects named by id rather than by address, so it
// means the same thing to every policy.
//
// Two encodings of the same events, told apart by their first bytes:
//   text    "# kith-trace 1", one event per line     trace_text.h
//   binary  "KITHTRC\0" + version, 1-2 bytes/event   trace_binary.h
// Both obey trace_objects.h's consistency rules (times and alloc ids increase,
// frees name live objects); readers check them as they go.
//
// This file: TraceWriter (either encoding, buffered: one write per 256 KiB, no
// call into stdio per event) and TraceReader (either encoding, detected; errors
// "line N: ..." for text, "offset N: ..." for binary). Recorders name blocks by
// id with a TraceIdMap (trace_id_map.h).
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <istream>
#include <memory>
#include <ostream>
#include <string>
#include <string_view>
#include <vector>

#include "heap/trace/trace_binary.h"
#include "heap/trace/trace_event.h"
#include "heap/trace/trace_id_map.h"
#include "heap/trace/trace_input.h"
#include "heap/trace/trace_objects.h"
#include "heap/trace/trace_text.h"

namespace kith::heap {

// The encoding a path asks for when none is named: ".txt" means text, anything
// else binary (what `kith run --trace=PATH` does without --trace-format).
TraceFormat traceFormatForPath(std::string_view path);

// Writes a trace to a FILE* or std::ostream it does not own; the header goes out
// with the first bytes. Events collect in a buffer that is written when full, at
// flush() and at finish(). finish() ends the trace (the binary end marker) — the
// destructor calls it — and ok() turns false once a write fails.
class TraceWriter {
 public:
  static constexpr std::size_t kBufferBytes = std::size_t{256} << 10;

  explicit TraceWriter(std::FILE* file, TraceFormat format = TraceFormat::text);
  explicit TraceWriter(std::ostream& stream, TraceFormat format = TraceFormat::text);
  TraceWriter(const TraceWriter&) = delete;
  TraceWriter& operator=(const TraceWriter&) = delete;
  ~TraceWriter();

  void record(const TraceEvent& e) {
    if (kBufferBytes - used_ < kMaxEventBytes) drain();
    unsigned char* at = buffer_.get() + used_;
    if (format_ == TraceFormat::binary) {
      used_ = static_cast<std::size_t>(binary_.encode(e, at) - buffer_.get());
    } else {
      char* end = encodeTextEvent(e, reinterpret_cast<char*>(at));
      used_ += static_cast<std::size_t>(end - reinterpret_cast<char*>(at));
    }
    ++events_;
  }

  // Everything recorded so far reaches the file or stream.
  void flush();

  // Ends the trace (binary: the end marker) and flushes; later calls do nothing.
  void finish();

  bool ok() const { return ok_ && (file_ ? !std::ferror(file_) : !stream_->fail()); }
  TraceFormat format() const { return format_; }
  std::uint64_t eventsRecorded() const { return events_; }

 private:
  static constexpr std::size_t kMaxEventBytes =
      kMaxBinaryEventBytes > kMaxTextEventBytes ? kMaxBinaryEventBytes : kMaxTextEventBytes;

  void start();
  void drain();

  std::FILE* file_ = nullptr;
  std::ostream* stream_ = nullptr;
  TraceFormat format_;
  std::unique_ptr<unsigned char[]> buffer_{new unsigned char[kBufferBytes]};
  std::size_t used_ = 0;
  BinaryTraceEncoder binary_;
  std::uint64_t events_ = 0;
  bool ok_ = true, finished_ = false;
};

// Reads a trace in either encoding, one event at a time, checking it as it goes.
//   TraceReader reader(in);
//   TraceEvent e;
//   while (reader.next(e)) replay(e, reader.objectIndex());
//   if (!reader.error().empty()) complain(reader.error());  // "line 7: ..." / "offset 93: ..."
class TraceReader {
 public:
  explicit TraceReader(std::FILE* file) : input_(file) {}
  explicit TraceReader(std::istream& stream) : input_(stream) {}

  // The next event into `out`: false at the end of the trace or at the first
  // error (then error() says where and what is wrong).
  bool next(TraceEvent& out) {
    if (stopped_) return false;
    if (!detected_) detect();
    bool got = format_ == TraceFormat::binary ? binary_.next(input_, out, error_)
                                              : text_.next(input_, out, error_);
    if (got && objects_.accept(out, index_, error_)) [[likely]] return true;
    return stop(got);
  }

  // The dense index of the last alloc's or free's object: 0 for the first
  // allocation, 1 for the next, ... (its id, in every trace Kith records).
  std::uint64_t objectIndex() const { return index_; }
  std::uint64_t objectCount() const { return objects_.objectCount(); }
  std::uint64_t liveCount() const { return objects_.liveCount(); }
  std::uint64_t events() const { return objects_.events(); }

  const std::string& error() const { return error_; }  // "" while all is well
  TraceFormat format() const { return format_; }        // known after the first next()
  std::size_t lineNumber() const { return text_.lineNumber(); }  // text
  // Where the last event (or the error) is: "line N" or "offset N".
  std::string position() const {
    return format_ == TraceFormat::binary ? binary_.position() : text_.position();
  }

 private:
  // After the last event or an error: an inconsistent event's error gets its position.
  [[gnu::cold]] bool stop(bool inconsistent);

  // Binary when the input starts with (a prefix of) the magic "KITHTRC\0";
  // anything else is read as text, whose header check then explains.
  void detect();

  TraceInput input_;
  TraceFormat format_ = TraceFormat::text;
  TextTraceDecoder text_;
  BinaryTraceDecoder binary_;
  TraceObjects objects_;
  std::uint64_t index_ = 0;
  std::string error_;
  bool detected_ = false, stopped_ = false;
};

// Reads a whole trace. On a malformed trace returns the events before the fault
// and sets *error (if given) to "line N: ..." or "offset N: ..."; otherwise "".
std::vector<TraceEvent> readTrace(std::istream& in, std::string* error = nullptr);

}  // namespace kith::heap
