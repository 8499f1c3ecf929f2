// The trace codec (heap/trace/trace.h): both encodings round-trip every event, convert
// into each other without loss, and a malformed binary trace is refused with the
// byte offset of the event at fault and what is wrong with it (the text encoding's
// "line N: ..." cases are in tests/heap/trace_test.cpp; a few more here).
#include "heap/trace/trace.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <cstdio>
#include <thread>
#include <unistd.h>
#include <sstream>
#include <string>
#include <vector>

#include "heap/workload.h"

namespace kith::heap {
namespace {

using Kind = TraceEventKind;

// A consistent trace (times and alloc ids increase, frees name live objects)
// with every corner of the binary encoding: gaps in time and ids, sizes that fit
// the tag and sizes that do not, frees near and far, failures, 2^64-1.
std::vector<TraceEvent> cornerTrace() {
  return {
      {Kind::alloc, 0, 0, 48},           // size in the tag
      {Kind::alloc, 1, 1, 0},            // size 0: a varint
      {Kind::alloc, 2, 2, 120},          // the largest tag size
      {Kind::alloc, 3, 3, 128},          // just past it
      {Kind::alloc, 4, 4, 20},           // not a multiple of 8
      {Kind::free, 5, 0, 0},             // z = 0
      {Kind::failed, 6, 0, 1u << 30},    // failed, varint size
      {Kind::failed, 7, 0, 64},          // failed, size in the tag
      {Kind::free, 8, 4, 0},             // forwards
      {Kind::free, 9, 1, 0},             // backwards
      {Kind::alloc, 20, 9, 16},          // time gap, id gap
      {Kind::alloc, 21, 1000000, 16},    // a large id gap
      {Kind::free, 22, 9, 0},            // z far beyond 31: a varint
      {Kind::alloc, 23, UINT64_MAX - 1, UINT64_MAX},
      {Kind::alloc, 24, UINT64_MAX, 8},
      {Kind::free, 25, 2, 0},
      {Kind::free, 26, UINT64_MAX, 0},   // a free far forward (zigzag wraps)
      {Kind::resize, 27, 3, 8},          // a resize in place: z from 0
      {Kind::move, 28, 3, 1u << 20},     // a move of the same object (z = 0)
      {Kind::resize, 29, 1000000, 0},    // far forward, size 0
      {Kind::move, 40, UINT64_MAX - 1, UINT64_MAX},  // after a time gap; zigzag wraps
      {Kind::free, UINT64_MAX - 1, 3, 0},
      {Kind::free, UINT64_MAX, 1000000, 0},
  };
}

// A seeded program-like trace: objects 0, 1, 2, ... freed in a scrambled order.
std::vector<TraceEvent> workloadTrace(std::uint64_t seed, std::size_t allocations) {
  std::vector<TraceEvent> events;
  std::vector<std::uint64_t> ids(1u << 16, UINT64_MAX);  // by workload slot
  std::uint64_t time = 0, nextId = 0;
  SeededRandom rng(seed);
  for (const WorkloadStep& s : makeWorkload(SizeMix::jvmLike, seed, allocations, 1u << 12)) {
    if (rng.chance(1)) time += rng.between(1, 1000);  // sometimes a gap
    if (s.size) {
      ids[s.slot] = nextId;
      events.push_back({Kind::alloc, time++, nextId++, s.size});
      if (rng.chance(1)) events.push_back({Kind::failed, time++, 0, s.size * 1000});
    } else if (rng.chance(10)) {  // a realloc first, of the object about to be freed
      events.push_back({rng.chance(50) ? Kind::resize : Kind::move, time++, ids[s.slot], s.slot % 300});
      events.push_back({Kind::free, time++, ids[s.slot], 0});
    } else {
      events.push_back({Kind::free, time++, ids[s.slot], 0});
    }
  }
  return events;
}

std::string encode(const std::vector<TraceEvent>& events, TraceFormat format) {
  std::ostringstream out;
  {
    TraceWriter writer(out, format);
    for (const TraceEvent& e : events) writer.record(e);
    writer.finish();
    EXPECT_TRUE(writer.ok());
    EXPECT_EQ(writer.eventsRecorded(), events.size());
  }
  return out.str();
}

struct Decoded {
  std::vector<TraceEvent> events;
  std::string error;
  TraceFormat format;
};

Decoded decode(const std::string& bytes) {
  std::istringstream in(bytes);
  TraceReader reader(in);
  Decoded d;
  for (TraceEvent e; reader.next(e);) d.events.push_back(e);
  d.error = reader.error();
  d.format = reader.format();
  return d;
}

std::string header() { return std::string("KITHTRC\0\x01", 9); }

TEST(TraceCodec, BinaryRoundTripGivesBackEveryEventExactly) {
  std::vector<TraceEvent> events = cornerTrace();
  Decoded d = decode(encode(events, TraceFormat::binary));
  EXPECT_EQ(d.error, "");
  EXPECT_EQ(d.format, TraceFormat::binary);
  EXPECT_EQ(d.events, events);
}

TEST(TraceCodec, TextRoundTripGivesBackEveryEventExactly) {
  std::vector<TraceEvent> events = cornerTrace();
  Decoded d = decode(encode(events, TraceFormat::text));
  EXPECT_EQ(d.error, "");
  EXPECT_EQ(d.format, TraceFormat::text);
  EXPECT_EQ(d.events, events);
}

// text -> binary -> text gives the same bytes, and binary -> text -> binary too:
// `kith trace dump` loses nothing.
TEST(TraceCodec, TextAndBinaryConvertIntoEachOtherWithoutLoss) {
  for (std::uint64_t seed : {1u, 2u, 3u}) {
    std::vector<TraceEvent> events = workloadTrace(seed, 50000);  // > 256 KiB: crosses buffers
    std::string text = encode(events, TraceFormat::text);
    std::string binary = encode(events, TraceFormat::binary);

    Decoded fromText = decode(text);
    ASSERT_EQ(fromText.error, "");
    EXPECT_EQ(encode(fromText.events, TraceFormat::binary), binary);

    Decoded fromBinary = decode(binary);
    ASSERT_EQ(fromBinary.error, "");
    EXPECT_EQ(fromBinary.events, events);
    EXPECT_EQ(encode(fromBinary.events, TraceFormat::text), text);
    // The point of the binary encoding: a few bytes an event, not ~15.
    EXPECT_LT(binary.size(), events.size() * 3) << "seed " << seed;
    EXPECT_GT(text.size(), binary.size() * 3) << "seed " << seed;
  }
}

TEST(TraceCodec, FileRoundTripThroughStdio) {
  std::vector<TraceEvent> events = workloadTrace(7, 100000);
  for (TraceFormat format : {TraceFormat::binary, TraceFormat::text}) {
    std::FILE* file = std::tmpfile();
    ASSERT_NE(file, nullptr);
    {
      TraceWriter writer(file, format);
      for (const TraceEvent& e : events) writer.record(e);
    }  // the destructor finishes the trace
    std::rewind(file);
    TraceReader reader(file);
    std::vector<TraceEvent> back;
    for (TraceEvent e; reader.next(e);) back.push_back(e);
    EXPECT_EQ(reader.error(), "") << traceFormatName(format);
    EXPECT_EQ(back, events) << traceFormatName(format);
    EXPECT_EQ(reader.events(), events.size());
    std::fclose(file);
  }
}

TEST(TraceCodec, CommonEventsTakeOneByte) {
  // alloc of object n+1 at time t+1 with a size 8..120 in steps of 8; free of the
  // object after the previous free's: one tag byte each.
  std::vector<TraceEvent> events = {{Kind::alloc, 0, 0, 16}, {Kind::alloc, 1, 1, 32}, {Kind::free, 2, 0, 0},
                                    {Kind::free, 3, 1, 0}};
  std::string bytes = encode(events, TraceFormat::binary);
  EXPECT_EQ(bytes, header() + std::string("\x20\x40\x09\x19\x03\x04", 6));  // free 1: zigzag(1 - 0) = 2, tag (2 + 1) << 3 | 1
}

TEST(TraceCodec, EmptyTracesReadAsEmpty) {
  for (TraceFormat format : {TraceFormat::binary, TraceFormat::text}) {
    Decoded d = decode(encode({}, format));
    EXPECT_EQ(d.error, "") << traceFormatName(format);
    EXPECT_TRUE(d.events.empty());
  }
  EXPECT_EQ(encode({}, TraceFormat::binary), header() + std::string("\x03\x00", 2));
}

TEST(TraceCodec, ObjectIndexesAreDenseInAllocationOrder) {
  std::istringstream in(
      "# kith-trace 1\nA 0 10 16\nA 1 11 16\nA 2 50 16\nF 3 11\nA 4 51 16\nF 5 50\nF 6 10\nF 7 51\n");
  TraceReader reader(in);
  std::vector<std::uint64_t> indexes;
  for (TraceEvent e; reader.next(e);) indexes.push_back(reader.objectIndex());
  EXPECT_EQ(reader.error(), "");
  EXPECT_EQ(indexes, (std::vector<std::uint64_t>{0, 1, 2, 1, 3, 2, 0, 3}));
  EXPECT_EQ(reader.objectCount(), 4u);
  EXPECT_EQ(reader.liveCount(), 0u);
}

struct Malformed {
  std::string input;
  std::string error;  // the whole message the reader must give
};

class BinaryTraceMalformed : public ::testing::TestWithParam<Malformed> {};

TEST_P(BinaryTraceMalformed, ReaderSaysWhichOffsetAndWhatIsWrong) {
  std::istringstream in(GetParam().input);
  TraceReader reader(in);
  TraceEvent e;
  while (reader.next(e)) {
  }
  EXPECT_EQ(reader.error(), GetParam().error);
  EXPECT_FALSE(reader.next(e));  // stays stopped
}

std::string bytes(std::initializer_list<unsigned> values) {
  std::string s;
  for (unsigned v : values) s += static_cast<char>(v);
  return s;
}

INSTANTIATE_TEST_SUITE_P(
    TraceCodec, BinaryTraceMalformed,
    ::testing::Values(
        Malformed{std::string("KITHTRC\0\x02", 9),
                  "offset 8: unsupported binary trace version 2 (this reader knows version 1)"},
        Malformed{"KITHTR", "offset 0: the header is cut short (6 of 9 bytes)"},
        Malformed{header(), "offset 9: the trace ends without its end marker (cut short?)"},
        Malformed{header() + bytes({0x20}), "offset 10: the trace ends without its end marker (cut short?)"},
        Malformed{header() + bytes({0x20, 0x03, 0x02}),
                  "offset 10: the end marker counts 2 events, but 1 came before it"},
        Malformed{header() + bytes({0x20, 0x03, 0x01, 0x00}), "offset 12: 1 byte after the end marker"},
        Malformed{header() + bytes({0x20, 0x03, 0x01, 'a', 'b'}), "offset 12: 2 bytes after the end marker"},
        Malformed{header() + bytes({0x00}), "offset 9: the trace ends inside an event's size (cut short?)"},
        Malformed{header() + bytes({0x00, 0x80, 0x80}),
                  "offset 9: the trace ends inside an event's size (cut short?)"},
        Malformed{header() + bytes({0x04}), "offset 9: the trace ends inside an event's time gap (cut short?)"},
        Malformed{header() + bytes({0x28}), "offset 9: the trace ends inside an event's id gap (cut short?)"},
        Malformed{header() + bytes({0x01}),
                  "offset 9: the trace ends inside an event's object id (cut short?)"},
        Malformed{header() + bytes({0x03}),
                  "offset 9: the trace ends inside an event's event count (cut short?)"},
        Malformed{header() + bytes({0x00, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x02}),
                  "offset 9: the size varint is longer than 64 bits"},
        Malformed{header() + bytes({0x00, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x81, 0x00}),
                  "offset 9: the size varint is longer than 64 bits"},
        Malformed{header() + bytes({0x0a}), "offset 9: the trace ends inside an event's object id (cut short?)"},
        Malformed{header() + bytes({0x1a, 0x00}),
                  "offset 9: the trace ends inside an event's size (cut short?)"},
        Malformed{header() + bytes({0x2a, 0x00, 0x00}), "offset 9: a resize with reserved bits set (tag 0x2a)"},
        Malformed{header() + bytes({0x20, 0x0a, 0x02, 0x10, 0x03, 0x02}),
                  "offset 10: resize of object 1, which was never allocated"},
        Malformed{header() + bytes({0x20, 0x09, 0x1a, 0x00, 0x10, 0x03, 0x03}),
                  "offset 11: resize of object 0, which is not live (freed before)"},
        Malformed{header() + bytes({0x07, 0x00}), "offset 9: an end marker with other bits set (tag 0x07)"},
        // The consistency rules, at the offset of the event that breaks them.
        Malformed{header() + bytes({0x20, 0x09, 0x09, 0x03, 0x03}),
                  "offset 11: free of object 0, which is not live (freed twice?)"},
        Malformed{header() + bytes({0x20, 0x19, 0x03, 0x02}),
                  "offset 10: free of object 1, which was never allocated"},
        Malformed{header() + bytes({0x20, 0x28, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01}),
                  "offset 10: object id 0 is not above the previous alloc's id 0"},
        Malformed{header() + bytes({0x20, 0x24, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01}),
                  "offset 10: time 0 is not after the previous event's time 0"}));

// Not the binary magic: read as text, whose header check explains, and shows
// binary bytes escaped and a long first line cut.
TEST(TraceCodec, ForeignFilesAreRefusedWithAReadableMessage) {
  EXPECT_EQ(decode("").error, "line 1: empty input; expected the header '# kith-trace 1'");
  EXPECT_EQ(decode(std::string("\x7f" "ELF\x02\x01\x01\0\0\n", 10)).error,
            "line 1: expected the header '# kith-trace 1', found '\\x7fELF\\x02\\x01\\x01\\x00\\x00'");
  EXPECT_EQ(decode(std::string(100, 'y') + "\n").error,
            "line 1: expected the header '# kith-trace 1', found '" + std::string(60, 'y') + "...'");
  EXPECT_EQ(decode("# kith-trace 1\nA 0 0 16\nA 1 1 \x01\n").error,
            "line 3: '\\x01' is not an unsigned decimal number, in 'A 1 1 \\x01'");
}

// Every proper prefix of a binary trace is refused (it was cut short), never
// read as a shorter trace, and the message names an offset inside the prefix.
TEST(TraceCodec, EveryCutOfABinaryTraceIsRefused) {
  std::string whole = encode(cornerTrace(), TraceFormat::binary);
  ASSERT_EQ(decode(whole).error, "");
  for (std::size_t n = 1; n < whole.size(); ++n) {
    Decoded d = decode(whole.substr(0, n));
    ASSERT_TRUE(d.error.starts_with("offset ")) << n << ": " << d.error;
    std::uint64_t offset = std::stoull(d.error.substr(7));
    EXPECT_LE(offset, n) << d.error;
  }
}

// Damaged bytes anywhere: the reader never crashes or reads out of bounds (run
// under ASan), and an error, when there is one, names an offset in the file.
TEST(TraceCodec, DamagedBinaryTracesAreReadSafely) {
  std::string whole = encode(workloadTrace(5, 2000), TraceFormat::binary);
  SeededRandom rng(99);
  int refused = 0;
  for (int round = 0; round < 2000; ++round) {
    std::string damaged = whole;
    for (int k = 0, changes = 1 + static_cast<int>(rng.below(3)); k < changes; ++k)
      damaged[9 + rng.below(damaged.size() - 9)] = static_cast<char>(rng.below(256));
    Decoded d = decode(damaged);
    if (d.error.empty()) continue;
    ++refused;
    ASSERT_TRUE(d.error.starts_with("offset ")) << d.error;
    EXPECT_LT(std::stoull(d.error.substr(7)), damaged.size()) << d.error;
  }
  EXPECT_GT(refused, 1000);  // most damage is caught (the end marker counts events)
}

// An error deep in a file names its absolute offset, across the reader's buffers.
TEST(TraceCodec, OffsetsCountFromTheStartOfTheFile) {
  std::vector<TraceEvent> events;
  for (std::uint64_t i = 0; i < 400000; ++i) events.push_back({Kind::alloc, i, i, 16});  // one byte each
  std::string good = encode(events, TraceFormat::binary);
  std::string bad = good.substr(0, good.size() - 4) + bytes({0x6a}) + good.substr(good.size() - 3);
  EXPECT_EQ(decode(bad).error, "offset " + std::to_string(good.size() - 4) +
                                   ": a resize with reserved bits set (tag 0x6a)");
}

// A regular file and a pipe (which delivers its bytes in pieces) give the same
// events, and the same error at the same offset -- also when reading starts after
// the file's first bytes: offsets count from where reading starts.
Decoded decodeFile(const std::string& bytes, std::size_t skip) {
  std::FILE* file = std::tmpfile();
  EXPECT_NE(file, nullptr);
  std::string junk(skip, '#');
  std::fwrite(junk.data(), 1, junk.size(), file);
  std::fwrite(bytes.data(), 1, bytes.size(), file);
  std::fflush(file);
  std::fseek(file, static_cast<long>(skip), SEEK_SET);
  Decoded d;
  {
    TraceReader reader(file);
    for (TraceEvent e; reader.next(e);) d.events.push_back(e);
    d.error = reader.error();
    d.format = reader.format();
  }
  std::fclose(file);
  return d;
}

Decoded decodePipe(const std::string& bytes) {
  int fds[2];
  EXPECT_EQ(::pipe(fds), 0);
  std::thread writer([&] {  // a pipe holds 64 KiB: write beside the reader
    for (std::size_t at = 0; at < bytes.size();) {
      ssize_t n = ::write(fds[1], bytes.data() + at, bytes.size() - at);
      if (n <= 0) break;
      at += static_cast<std::size_t>(n);
    }
    ::close(fds[1]);
  });
  std::FILE* in = ::fdopen(fds[0], "rb");
  Decoded d;
  {
    TraceReader reader(in);
    for (TraceEvent e; reader.next(e);) d.events.push_back(e);
    d.error = reader.error();
  }
  writer.join();
  std::fclose(in);
  return d;
}

TEST(TraceCodec, FilesAndPipesReadAlike) {
  std::vector<TraceEvent> events = workloadTrace(11, 50000);
  for (TraceFormat format : {TraceFormat::binary, TraceFormat::text}) {
    std::string whole = encode(events, format);
    // Cut two thirds in, just after an event's kind: a text trace cut at a line end
    // would read as a shorter trace (text has no end marker).
    std::string cut = whole.substr(0, whole.find('\n', whole.size() * 2 / 3) + 2);
    Decoded piped = decodePipe(whole), pipedCut = decodePipe(cut);
    EXPECT_EQ(piped.error, "");
    EXPECT_EQ(piped.events, events);
    EXPECT_NE(pipedCut.error, "");
    for (std::size_t skip : {0u, 5u}) {
      Decoded file = decodeFile(whole, skip);
      EXPECT_EQ(file.error, "") << skip;
      EXPECT_EQ(file.events, events) << skip;
      EXPECT_EQ(file.format, format);
      Decoded fileCut = decodeFile(cut, skip);
      EXPECT_EQ(fileCut.error, pipedCut.error) << skip;
      EXPECT_EQ(fileCut.events, pipedCut.events);
    }
  }
  EXPECT_EQ(decodeFile("", 0).error, decodePipe("").error);
}

TEST(TraceCodec, FormatForPath) {
  EXPECT_EQ(traceFormatForPath("run.trace"), TraceFormat::binary);
  EXPECT_EQ(traceFormatForPath("run.txt"), TraceFormat::text);
  EXPECT_EQ(traceFormatForPath("txt"), TraceFormat::binary);
}

}  // namespace
}  // namespace kith::heap
