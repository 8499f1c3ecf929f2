// The text encoding of a trace (version 1): for reading by eye, hand-written test
// traces, and `kith trace dump`. One event per line, fields separated by one space:
//   # kith-trace 1          first line, always
//   A <time> <id> <size>    alloc: object <id> of <size> bytes
//   F <time> <id>           free of object <id>
//   R <time> <id> <size>    realloc of object <id> to <size> bytes, in place on the
//                           recording policy (its block held the new size)
//   M <time> <id> <size>    realloc of object <id> to <size> bytes that moved it on
//                           the recording policy; either way the object keeps its id
//   X <time> <size>         a request of <size> bytes the recording heap could not
//                           satisfy (it returned nullptr); it gets no id, and nothing
//                           later refers to it.
// Numbers are unsigned decimal (up to 2^64-1). Lines that are empty or start with
// '#' after the header are comments; a trailing '\r' is accepted, and so is a last
// line without '\n'. Text has no end marker: a file cut inside a line is usually
// caught (a missing field), one cut at a line end is not — record real runs in the
// binary encoding (trace_binary.h), which has one. Errors read "line N: what is
// wrong" (N from 1). The consistency rules are trace_objects.h's.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string>
#include <string_view>

#include "heap/trace/trace_event.h"
#include "heap/trace/trace_input.h"

namespace kith::heap {

inline constexpr std::string_view kTraceHeader = "# kith-trace 1";

// The longest line encodeTextEvent writes: a kind, three 20-digit numbers, three
// spaces and '\n'.
inline constexpr std::size_t kMaxTextEventBytes = 65;

// Writes one event as a line at `out` (room for kMaxTextEventBytes); returns the end.
char* encodeTextEvent(const TraceEvent& e, char* out);

// Reads the text encoding, one event at a time (syntax only: TraceReader adds the
// consistency rules).
class TextTraceDecoder {
 public:
  // A line longer than this is an error, not a reason to read the whole file.
  static constexpr std::size_t kMaxLineBytes = std::size_t{1} << 20;

  // The next event into `out`: false at the end of the input (error stays empty)
  // or at the first error ("line N: ...").
  // next and readLine stay inline: out of line, each line of a text replay pays
  // for two more calls and a line passed back through memory.
  bool next(TraceInput& in, TraceEvent& out, std::string& error) {
    std::string_view line;
    while (readLine(in, line, error)) {
      ++lineNumber_;
      if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
      if (lineNumber_ == 1) {
        if (!checkHeader(line, error)) return false;
        continue;
      }
      if (line.empty() || line[0] == '#') continue;
      return parseEvent(line, out, error);
    }
    if (!error.empty()) return false;
    if (in.readFailed()) return fail("read error", error);
    if (lineNumber_ == 0) {
      lineNumber_ = 1;
      return fail("empty input; expected the header '" + std::string(kTraceHeader) + "'", error);
    }
    return false;
  }

  std::uint64_t lineNumber() const { return lineNumber_; }
  std::string position() const { return "line " + std::to_string(lineNumber_); }

 private:
  // The next line, without its '\n'; valid until the next call.
  bool readLine(TraceInput& in, std::string_view& line, std::string& error) {
    in.consume(pendingConsume_);
    pendingConsume_ = 0;
    std::size_t searched = 0;
    for (;;) {
      const auto* data = reinterpret_cast<const char*>(in.data());
      std::size_t n = in.available();
      if (const void* nl = std::memchr(data + searched, '\n', n - searched)) {
        std::size_t length = static_cast<std::size_t>(static_cast<const char*>(nl) - data);
        line = std::string_view(data, length);
        pendingConsume_ = length + 1;
        return true;
      }
      searched = n;
      if (n > kMaxLineBytes) {
        ++lineNumber_;
        return fail("longer than " + std::to_string(kMaxLineBytes) + " bytes", error);
      }
      if (in.fill(n + 1) == n) {  // the input ended: what is left is a last line without '\n'
        line = std::string_view(reinterpret_cast<const char*>(in.data()), n);
        pendingConsume_ = n;
        return n > 0;
      }
    }
  }

  bool fail(const std::string& what, std::string& error) const;
  bool checkHeader(std::string_view line, std::string& error) const;
  // Splits on single spaces; an empty field (two spaces in a row, a trailing
  // space) is malformed.
  bool parseEvent(std::string_view line, TraceEvent& out, std::string& error) const;

  std::uint64_t lineNumber_ = 0;
  std::size_t pendingConsume_ = 0;  // the line handed out last, consumed on the next call
};

}  // namespace kith::heap
