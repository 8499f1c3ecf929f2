// The allocation trace: what TraceHeap records and `kith replay` feeds back to any
// policy. A trace is the sequence of a run's heap requests, with objects named by
// id rather than by address, so it means the same thing to every policy.
//
// Text format, version 1 — one event per line, fields separated by one space:
//   # kith-trace 1          first line, always
//   A <time> <id> <size>    alloc: object <id> of <size> bytes
//   F <time> <id>           free of object <id>
//   X <time> <size>         a request of <size> bytes the recording heap could not
//                           satisfy (it returned nullptr); it gets no id, and nothing
//                           later refers to it. A replay may skip it or issue it as a
//                           probe (freeing the block at once if it now succeeds).
// <time> is the logical timestamp: the event's sequence number from 0 in a trace
// TraceHeap writes. Numbers are unsigned decimal (up to 2^64-1). Lines that are
// empty or start with '#' after the header are comments; a trailing '\r' is
// accepted. The reader insists on a consistent trace: times strictly increase,
// alloc ids strictly increase (TraceHeap numbers objects 0, 1, 2, ...), and a free
// names an object that is live (allocated, not yet freed).
#pragma once

#include <charconv>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <istream>
#include <ostream>
#include <string>
#include <string_view>
#include <unordered_set>
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

inline constexpr std::string_view kTraceHeader = "# kith-trace 1";

// Anything TraceHeap can record to.
template <class S>
concept TraceSink = requires(S s, const TraceEvent& e) { s.record(e); };

// The in-memory sink, for tests and for keeping a short trace whole.
struct TraceBuffer {
  std::vector<TraceEvent> events;
  void record(const TraceEvent& e) { events.push_back(e); }
};

// Writes the text format to a FILE* or std::ostream it does not own; the header
// goes out on construction. ok() turns false once a write fails.
class TraceWriter {
 public:
  explicit TraceWriter(std::FILE* file) : file_(file) { writeHeader(); }
  explicit TraceWriter(std::ostream& stream) : stream_(&stream) { writeHeader(); }
  TraceWriter(const TraceWriter&) = delete;
  TraceWriter& operator=(const TraceWriter&) = delete;
  ~TraceWriter() { flush(); }

  void record(const TraceEvent& e) {
    char line[80];  // kind, three 20-digit numbers, separators, newline: 65 at most
    auto u = [](std::uint64_t v) { return static_cast<unsigned long long>(v); };
    int n = 0;
    switch (e.kind) {
      case TraceEventKind::alloc:
        n = std::snprintf(line, sizeof line, "A %llu %llu %llu\n", u(e.time), u(e.id), u(e.size));
        break;
      case TraceEventKind::free:
        n = std::snprintf(line, sizeof line, "F %llu %llu\n", u(e.time), u(e.id));
        break;
      case TraceEventKind::failed:
        n = std::snprintf(line, sizeof line, "X %llu %llu\n", u(e.time), u(e.size));
        break;
    }
    write(line, static_cast<std::size_t>(n));
  }

  void flush() {
    if (file_) {
      if (std::fflush(file_) != 0) ok_ = false;
    } else if (!stream_->flush()) {
      ok_ = false;
    }
  }
  bool ok() const { return ok_ && (file_ ? !std::ferror(file_) : !stream_->fail()); }

 private:
  void writeHeader() {
    write(kTraceHeader.data(), kTraceHeader.size());
    write("\n", 1);
  }
  void write(const char* data, std::size_t n) {
    if (file_) {
      if (std::fwrite(data, 1, n, file_) != n) ok_ = false;
    } else if (!stream_->write(data, static_cast<std::streamsize>(n))) {
      ok_ = false;
    }
  }

  std::FILE* file_ = nullptr;
  std::ostream* stream_ = nullptr;
  bool ok_ = true;
};

// Reads the text format back, one event at a time, checking it as it goes.
//   TraceReader reader(in);
//   TraceEvent e;
//   while (reader.next(e)) replay(e);
//   if (!reader.error().empty()) complain(reader.error());  // "line 7: ..."
class TraceReader {
 public:
  explicit TraceReader(std::FILE* file) : file_(file) {}
  explicit TraceReader(std::istream& stream) : stream_(&stream) {}

  // The next event into `out`: false at the end of the trace or at the first
  // error (then error() says which line and what is wrong).
  bool next(TraceEvent& out) {
    if (!error_.empty()) return false;
    std::string line;
    while (readLine(line)) {
      ++lineNumber_;
      if (!line.empty() && line.back() == '\r') line.pop_back();
      if (lineNumber_ == 1) {
        if (!checkHeader(line)) return false;
        continue;
      }
      if (line.empty() || line[0] == '#') continue;
      return parseEvent(line, out);
    }
    if (readFailed_) {
      fail("read error");
    } else if (lineNumber_ == 0) {
      lineNumber_ = 1;
      fail("empty input; expected the header '" + std::string(kTraceHeader) + "'");
    }
    return false;
  }

  const std::string& error() const { return error_; }  // "" while all is well
  std::size_t lineNumber() const { return lineNumber_; }

 private:
  bool readLine(std::string& line) {
    line.clear();
    if (stream_) {
      if (std::getline(*stream_, line)) return true;
      readFailed_ = stream_->bad();
      return false;
    }
    char chunk[4096];
    while (std::fgets(chunk, sizeof chunk, file_)) {
      line += chunk;
      if (line.back() == '\n') {
        line.pop_back();
        return true;
      }
    }
    readFailed_ = std::ferror(file_) != 0;
    return !line.empty();  // a last line without '\n'
  }

  bool fail(const std::string& what) {
    error_ = "line " + std::to_string(lineNumber_) + ": " + what;
    return false;
  }

  bool checkHeader(std::string_view line) {
    constexpr std::string_view magic = "# kith-trace ";
    if (line.substr(0, magic.size()) != magic)
      return fail("expected the header '" + std::string(kTraceHeader) + "', found '" +
                  std::string(line) + "'");
    if (line != kTraceHeader)
      return fail("unsupported trace version '" + std::string(line.substr(magic.size())) +
                  "' (this reader knows version 1)");
    return true;
  }

  // Splits on single spaces; an empty field (two spaces in a row, a trailing
  // space) is malformed.
  bool parseEvent(std::string_view line, TraceEvent& out) {
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
      return fail("unknown event kind '" + std::string(kind) + "' (expected A, F or X)");
    }
    if (fieldCount != numbers + 1)
      return fail("expected '" + std::string(expect) + "' (" + std::to_string(numbers) +
                  " numbers after the kind), found " + std::to_string(fieldCount - 1) +
                  " fields in '" + std::string(line) + "'");
    std::uint64_t v[3] = {};
    for (std::size_t i = 0; i < numbers; ++i) {
      std::string_view f = fields[i + 1];
      auto [end, ec] = std::from_chars(f.data(), f.data() + f.size(), v[i]);
      if (f.empty() || ec == std::errc::invalid_argument || end != f.data() + f.size())
        return fail("'" + std::string(f) + "' is not an unsigned decimal number, in '" +
                    std::string(line) + "'");
      if (ec == std::errc::result_out_of_range)
        return fail("number " + std::string(f) + " does not fit in 64 bits");
    }
    out.time = v[0];
    out.id = out.kind == TraceEventKind::failed ? 0 : v[1];
    out.size = out.kind == TraceEventKind::alloc    ? v[2]
               : out.kind == TraceEventKind::failed ? v[1]
                                                    : 0;
    return checkConsistent(out);
  }

  bool checkConsistent(const TraceEvent& e) {
    if (events_ > 0 && e.time <= lastTime_)
      return fail("time " + std::to_string(e.time) + " is not after the previous event's time " +
                  std::to_string(lastTime_));
    if (e.kind == TraceEventKind::alloc) {
      if (allocs_ > 0 && e.id <= lastId_)
        return fail("object id " + std::to_string(e.id) +
                    " is not above the previous alloc's id " + std::to_string(lastId_));
      live_.insert(e.id);
      lastId_ = e.id;
      ++allocs_;
    } else if (e.kind == TraceEventKind::free) {
      if (live_.erase(e.id) == 0)
        return fail("free of object " + std::to_string(e.id) +
                    (allocs_ > 0 && e.id <= lastId_ ? ", which is not live (freed twice?)"
                                                    : ", which was never allocated"));
    }
    lastTime_ = e.time;
    ++events_;
    return true;
  }

  std::FILE* file_ = nullptr;
  std::istream* stream_ = nullptr;
  std::size_t lineNumber_ = 0;
  bool readFailed_ = false;
  std::string error_;
  std::uint64_t events_ = 0, allocs_ = 0, lastTime_ = 0, lastId_ = 0;
  std::unordered_set<std::uint64_t> live_;
};

// Reads a whole trace. On a malformed trace returns the events before the bad
// line and sets *error (if given) to "line N: ..."; otherwise *error is "".
inline std::vector<TraceEvent> readTrace(std::istream& in, std::string* error = nullptr) {
  std::vector<TraceEvent> events;
  TraceReader reader(in);
  for (TraceEvent e; reader.next(e);) events.push_back(e);
  if (error) *error = reader.error();
  return events;
}

}  // namespace kith::heap
