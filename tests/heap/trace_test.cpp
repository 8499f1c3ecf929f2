#include "heap/trace/trace.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <cstdio>
#include <sstream>
#include <string>
#include <vector>

namespace kith::heap {
namespace {

using Kind = TraceEventKind;

std::vector<TraceEvent> sampleTrace() {
  return {
      {Kind::alloc, 0, 0, 48},
      {Kind::alloc, 1, 1, 0},
      {Kind::free, 2, 0, 0},
      {Kind::failed, 3, 0, 1u << 30},
      {Kind::alloc, 4, 2, UINT64_MAX},
      {Kind::alloc, 5, UINT64_MAX, 16},
      {Kind::free, 6, UINT64_MAX, 0},
      {Kind::free, UINT64_MAX, 1, 0},
  };
}

TEST(Trace, WritesTheDocumentedTextFormat) {
  std::ostringstream out;
  {
    TraceWriter writer(out);
    writer.record({Kind::alloc, 0, 0, 48});
    writer.record({Kind::alloc, 1, 1, 16});
    writer.record({Kind::free, 2, 0, 0});
    writer.record({Kind::failed, 3, 0, 4096});
    EXPECT_TRUE(writer.ok());
  }
  EXPECT_EQ(out.str(), "# kith-trace 1\nA 0 0 48\nA 1 1 16\nF 2 0\nX 3 4096\n");
}

TEST(Trace, StreamRoundTripGivesBackExactlyTheEventsWritten) {
  std::stringstream buffer;
  std::vector<TraceEvent> events = sampleTrace();
  {
    TraceWriter writer(buffer);
    for (const TraceEvent& e : events) writer.record(e);
  }
  std::string error = "unset";
  EXPECT_EQ(readTrace(buffer, &error), events);
  EXPECT_EQ(error, "");
}

TEST(Trace, FileRoundTripGivesBackExactlyTheEventsWritten) {
  std::FILE* file = std::tmpfile();
  ASSERT_NE(file, nullptr);
  std::vector<TraceEvent> events;
  for (std::uint64_t i = 0; i < 10000; ++i)  // long enough to cross stdio buffers
    events.push_back({i % 2 ? Kind::free : Kind::alloc, i, i / 2, i % 2 ? 0 : i * 977});
  for (const TraceEvent& e : sampleTrace())  // the extremes, after the above
    events.push_back({e.kind, e.time == UINT64_MAX ? e.time : 10000 + e.time,
                      e.kind == Kind::failed || e.id == UINT64_MAX ? e.id : 10000 + e.id, e.size});
  {
    TraceWriter writer(file);
    for (const TraceEvent& e : events) writer.record(e);
    writer.flush();
    EXPECT_TRUE(writer.ok());
  }
  std::rewind(file);
  TraceReader reader(file);
  std::vector<TraceEvent> back;
  for (TraceEvent e; reader.next(e);) back.push_back(e);
  EXPECT_EQ(reader.error(), "");
  EXPECT_EQ(back, events);
  std::fclose(file);
}

TEST(Trace, ReaderSkipsCommentsAndBlankLinesAndAcceptsCrlfAndNoFinalNewline) {
  std::istringstream in("# kith-trace 1\r\n# recorded by hand\n\nA 0 0 16\r\nF 1 0");
  std::string error;
  std::vector<TraceEvent> events = readTrace(in, &error);
  EXPECT_EQ(error, "");
  std::vector<TraceEvent> want = {{Kind::alloc, 0, 0, 16}, {Kind::free, 1, 0, 0}};
  EXPECT_EQ(events, want);
}

TEST(Trace, HeaderOnlyIsAnEmptyTrace) {
  std::istringstream in("# kith-trace 1\n");
  std::string error = "unset";
  EXPECT_TRUE(readTrace(in, &error).empty());
  EXPECT_EQ(error, "");
}

struct Malformed {
  const char* input;
  const char* error;  // the whole message the reader must give
};

class TraceMalformed : public ::testing::TestWithParam<Malformed> {};

TEST_P(TraceMalformed, ReaderSaysWhichLineAndWhatIsWrong) {
  std::istringstream in(GetParam().input);
  TraceReader reader(in);
  TraceEvent e;
  while (reader.next(e)) {
  }
  EXPECT_EQ(reader.error(), GetParam().error);
  EXPECT_FALSE(reader.next(e));  // stays stopped
}

INSTANTIATE_TEST_SUITE_P(
    Trace, TraceMalformed,
    ::testing::Values(
        Malformed{"", "line 1: empty input; expected the header '# kith-trace 1'"},
        Malformed{"A 0 0 16\n",
                  "line 1: expected the header '# kith-trace 1', found 'A 0 0 16'"},
        Malformed{"# kith-trace 2\nA 0 0 16\n",
                  "line 1: unsupported trace version '2' (this reader knows version 1)"},
        Malformed{"# kith-trace 1\nA 0 0\n",
                  "line 2: expected 'A <time> <id> <size>' (3 numbers after the kind), found 2 "
                  "fields in 'A 0 0'"},
        Malformed{"# kith-trace 1\nF 0 1 2\n",
                  "line 2: expected 'F <time> <id>' (2 numbers after the kind), found 3 fields "
                  "in 'F 0 1 2'"},
        Malformed{"# kith-trace 1\nA 0 0 16 \n",
                  "line 2: expected 'A <time> <id> <size>' (3 numbers after the kind), found 4 "
                  "fields in 'A 0 0 16 '"},
        Malformed{"# kith-trace 1\n# note\n\nQ 3 1\n",
                  "line 4: unknown event kind 'Q' (expected A, F, R, M or X)"},
        Malformed{"# kith-trace 1\nalloc 0 0 16\n",
                  "line 2: unknown event kind 'alloc' (expected A, F, R, M or X)"},
        Malformed{"# kith-trace 1\nA 0 0 16\nR 1 0\n",
                  "line 3: expected 'R <time> <id> <size>' (3 numbers after the kind), found 2 "
                  "fields in 'R 1 0'"},
        Malformed{"# kith-trace 1\nA 0 0 16\nM 1 0 8 8\n",
                  "line 3: expected 'M <time> <id> <size>' (3 numbers after the kind), found 4 "
                  "fields in 'M 1 0 8 8'"},
        Malformed{"# kith-trace 1\nA 0 0 16\nR 1 1 32\n",
                  "line 3: resize of object 1, which was never allocated"},
        Malformed{"# kith-trace 1\nA 0 0 16\nF 1 0\nM 2 0 32\n",
                  "line 4: resize of object 0, which is not live (freed before)"},
        Malformed{"# kith-trace 1\nA 0 zero 16\n",
                  "line 2: 'zero' is not an unsigned decimal number, in 'A 0 zero 16'"},
        Malformed{"# kith-trace 1\nA 0 -1 16\n",
                  "line 2: '-1' is not an unsigned decimal number, in 'A 0 -1 16'"},
        Malformed{"# kith-trace 1\nA 0 0 16k\n",
                  "line 2: '16k' is not an unsigned decimal number, in 'A 0 0 16k'"},
        Malformed{"# kith-trace 1\nA  0 0 16\n",
                  "line 2: expected 'A <time> <id> <size>' (3 numbers after the kind), found 4 "
                  "fields in 'A  0 0 16'"},
        Malformed{"# kith-trace 1\nA 0 0 18446744073709551616\n",
                  "line 2: number 18446744073709551616 does not fit in 64 bits"},
        Malformed{"# kith-trace 1\nA 1 0 16\nA 1 1 16\n",
                  "line 3: time 1 is not after the previous event's time 1"},
        Malformed{"# kith-trace 1\nA 0 5 16\nA 1 5 16\n",
                  "line 3: object id 5 is not above the previous alloc's id 5"},
        Malformed{"# kith-trace 1\nA 0 0 16\nF 1 3\n",
                  "line 3: free of object 3, which was never allocated"},
        Malformed{"# kith-trace 1\nA 0 0 16\nF 1 0\nF 2 0\n",
                  "line 4: free of object 0, which is not live (freed twice?)"}));

TEST(Trace, ReaderReturnsTheEventsBeforeAnError) {
  std::istringstream in("# kith-trace 1\nA 0 0 16\nA 1 1 32\nbad line\nA 3 2 8\n");
  std::string error;
  std::vector<TraceEvent> events = readTrace(in, &error);
  EXPECT_EQ(events.size(), 2u);
  EXPECT_EQ(error, "line 4: unknown event kind 'bad' (expected A, F, R, M or X)");
}

TEST(Trace, WriterReportsAFailedStream) {
  std::ostringstream out;
  TraceWriter writer(out);
  out.setstate(std::ios::badbit);
  writer.record({Kind::alloc, 0, 0, 16});
  EXPECT_FALSE(writer.ok());
}

}  // namespace
}  // namespace kith::heap
