// The text encoding of a trace (version 1): for reading by eye, hand-written test
// traces, and `kith trace dump`. One event per line, fields separated by one space:
//   # kith-trace 1          first line, always
//   A <time> <id> <size>    alloc: object <id> of <size> bytes
//   F <time> <id>           free of object <id>
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

#include <charconv>
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
inline char* encodeTextEvent(const TraceEvent& e, char* out) {
  auto number = [&](std::uint64_t v) {
    *out++ = ' ';
    out = std::to_chars(out, out + 20, v).ptr;
  };
  switch (e.kind) {
    case TraceEventKind::alloc:
      *out++ = 'A';
      number(e.time), number(e.id), number(e.size);
      break;
    case TraceEventKind::free:
      *out++ = 'F';
      number(e.time), number(e.id);
      break;
    case TraceEventKind::failed:
      *out++ = 'X';
      number(e.time), number(e.size);
      break;
  }
  *out++ = '\n';
  return out;
}

inline std::string textTraceLine(const TraceEvent& e) {
  char line[kMaxTextEventBytes];
  return std::string(line, encodeTextEvent(e, line));
}

// A line (or field) as an error message quotes it: bytes outside printable ASCII
// as \xNN, and cut after kMaxQuotedBytes with "..." (a binary file fed to the
// text reader gives a readable one-line message, not its raw bytes).
inline std::string quoteTraceText(std::string_view text) {
  constexpr std::size_t kMaxQuotedBytes = 60;
  std::string out;
  for (std::size_t i = 0; i < text.size() && i < kMaxQuotedBytes; ++i) {
    auto c = static_cast<unsigned char>(text[i]);
    if (c >= 0x20 && c < 0x7f) {
      out += static_cast<char>(c);
    } else {
      const char* digits = "0123456789abcdef";
      out += {'\\', 'x', digits[c >> 4], digits[c & 15]};
    }
  }
  if (text.size() > kMaxQuotedBytes) out += "...";
  return out;
}

// Reads the text encoding, one event at a time (syntax only: TraceReader adds the
// consistency rules).
class TextTraceDecoder {
 public:
  // A line longer than this is an error, not a reason to read the whole file.
  static constexpr std::size_t kMaxLineBytes = std::size_t{1} << 20;

  // The next event into `out`: false at the end of the input (error stays empty)
  // or at the first error ("line N: ...").
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

  bool fail(const std::string& what, std::string& error) const {
    error = position() + ": " + what;
    return false;
  }

  bool checkHeader(std::string_view line, std::string& error) const {
    constexpr std::string_view magic = "# kith-trace ";
    if (line.substr(0, magic.size()) != magic)
      return fail("expected the header '" + std::string(kTraceHeader) + "', found '" + quoteTraceText(line) + "'",
                  error);
    if (line != kTraceHeader)
      return fail("unsupported trace version '" + quoteTraceText(line.substr(magic.size())) +
                      "' (this reader knows version 1)",
                  error);
    return true;
  }

  // Splits on single spaces; an empty field (two spaces in a row, a trailing
  // space) is malformed.
  bool parseEvent(std::string_view line, TraceEvent& out, std::string& error) const {
    std::string_view fields[4];
    std::size_t fieldCount = 0;
    for (std::size_t start = 0;;) {
      std::size_t space = line.find(' ', start);
      if (fieldCount < 4) fields[fieldCount] = line.substr(start, space - start);
      ++fieldCount;
      if (space == std::string_view::npos) break;
      start = space + 1;
    }
    std::string_view kind = fields[0];
    const char* expect;
    std::size_t numbers;
    if (kind == "A") {
      out.kind = TraceEventKind::alloc, expect = "A <time> <id> <size>", numbers = 3;
    } else if (kind == "F") {
      out.kind = TraceEventKind::free, expect = "F <time> <id>", numbers = 2;
    } else if (kind == "X") {
      out.kind = TraceEventKind::failed, expect = "X <time> <size>", numbers = 2;
    } else {
      return fail("unknown event kind '" + quoteTraceText(kind) + "' (expected A, F or X)", error);
    }
    if (fieldCount != numbers + 1)
      return fail("expected '" + std::string(expect) + "' (" + std::to_string(numbers) +
                      " numbers after the kind), found " + std::to_string(fieldCount - 1) +
                      " fields in '" + quoteTraceText(line) + "'",
                  error);
    std::uint64_t v[3] = {};
    for (std::size_t i = 0; i < numbers; ++i) {
      std::string_view f = fields[i + 1];
      auto [end, ec] = std::from_chars(f.data(), f.data() + f.size(), v[i]);
      if (f.empty() || ec == std::errc::invalid_argument || end != f.data() + f.size())
        return fail("'" + quoteTraceText(f) + "' is not an unsigned decimal number, in '" +
                        quoteTraceText(line) + "'",
                    error);
      if (ec == std::errc::result_out_of_range)
        return fail("number " + quoteTraceText(f) + " does not fit in 64 bits", error);
    }
    out.time = v[0];
    out.id = out.kind == TraceEventKind::failed ? 0 : v[1];
    out.size = out.kind == TraceEventKind::alloc    ? v[2]
               : out.kind == TraceEventKind::failed ? v[1]
                                                    : 0;
    return true;
  }

  std::uint64_t lineNumber_ = 0;
  std::size_t pendingConsume_ = 0;  // the line handed out last, consumed on the next call
};

}  // namespace kith::heap
