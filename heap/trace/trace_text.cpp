// The text trace encoding: writing an event as a line, and parsing a line back
// into an event, with the reader's errors (trace_text.h describes the format).
#include "heap/trace/trace_text.h"

#include <charconv>
#include <string>
#include <string_view>

namespace kith::heap {

namespace {

// A line (or field) as an error message quotes it: bytes outside printable ASCII
// as \xNN, and cut after kMaxQuotedBytes with "..." (a binary file fed to the
// text reader gives a readable one-line message, not its raw bytes).
std::string quoteTraceText(std::string_view text) {
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

}  // namespace

char* encodeTextEvent(const TraceEvent& e, char* out) {
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
    case TraceEventKind::resize:
    case TraceEventKind::move:
      *out++ = e.kind == TraceEventKind::resize ? 'R' : 'M';
      number(e.time), number(e.id), number(e.size);
      break;
  }
  *out++ = '\n';
  return out;
}

bool TextTraceDecoder::fail(const std::string& what, std::string& error) const {
  error = position() + ": " + what;
  return false;
}

bool TextTraceDecoder::checkHeader(std::string_view line, std::string& error) const {
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

bool TextTraceDecoder::parseEvent(std::string_view line, TraceEvent& out, std::string& error) const {
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
  } else if (kind == "R") {
    out.kind = TraceEventKind::resize, expect = "R <time> <id> <size>", numbers = 3;
  } else if (kind == "M") {
    out.kind = TraceEventKind::move, expect = "M <time> <id> <size>", numbers = 3;
  } else {
    return fail("unknown event kind '" + quoteTraceText(kind) + "' (expected A, F, R, M or X)", error);
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
  out.size = out.kind == TraceEventKind::free     ? 0
             : out.kind == TraceEventKind::failed ? v[1]
                                                  : v[2];
  return true;
}

}  // namespace kith::heap
