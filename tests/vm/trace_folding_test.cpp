// Stack traces fold as LANGUAGE.md says: repeats once plus a count, then the first
// and last 50 lines around the number of frames left out.
#include "vm/trace_folding.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace kith::vm {
namespace {

std::vector<std::string> frames(std::initializer_list<std::pair<const char*, int>> runs) {
  std::vector<std::string> out;
  for (auto [line, count] : runs)
    for (int i = 0; i < count; ++i) out.push_back(line);
  return out;
}

TEST(TraceFolding, AShortTraceIsUnchanged) {
  std::vector<std::string> trace = frames({{"  at f (a:1)", 1}, {"  at g (a:2)", 1}, {"  at f (a:1)", 1}});
  EXPECT_EQ(foldTrace(trace), trace);
  EXPECT_TRUE(foldTrace({}).empty());
}

TEST(TraceFolding, ConsecutiveRepeatsPrintOnceWithTheirCount) {
  std::vector<std::string> want = {"  at f (a:1)", "  ... repeated 9998 more times", "  at <script> (a:3)"};
  EXPECT_EQ(foldTrace(frames({{"  at f (a:1)", 9999}, {"  at <script> (a:3)", 1}})), want);
  // Two frames are a repeat too; the same line apart is not.
  std::vector<std::string> pair = {"  at f (a:1)", "  ... repeated 1 more times", "  at g (a:2)", "  at f (a:1)"};
  EXPECT_EQ(foldTrace(frames({{"  at f (a:1)", 2}, {"  at g (a:2)", 1}, {"  at f (a:1)", 1}})), pair);
}

TEST(TraceFolding, ALongTraceKeepsItsFirstAndLastFiftyLines) {
  std::vector<std::string> trace;
  for (int i = 0; i < 10000; ++i) trace.push_back("  at f" + std::to_string(i % 2) + " (a:" + std::to_string(i) + ")");
  std::vector<std::string> folded = foldTrace(trace);
  ASSERT_EQ(folded.size(), 101u);
  EXPECT_EQ(folded[0], trace[0]);
  EXPECT_EQ(folded[49], trace[49]);
  EXPECT_EQ(folded[50], "  ... 9900 frames omitted");
  EXPECT_EQ(folded[51], trace[9950]);
  EXPECT_EQ(folded[100], trace[9999]);
}

TEST(TraceFolding, OmittedFramesCountWhatTheirRepeatLinesStoodFor) {
  // 60 distinct frames, each repeated 3 times: 120 folded lines; the 20 left out stand
  // for 10 frames and 10 repeat lines of 2 frames each.
  std::vector<std::string> trace;
  for (int i = 0; i < 60; ++i)
    for (int k = 0; k < 3; ++k) trace.push_back("  at f (a:" + std::to_string(i) + ")");
  std::vector<std::string> folded = foldTrace(trace);
  ASSERT_EQ(folded.size(), 101u);
  EXPECT_EQ(folded[50], "  ... 30 frames omitted");
}

TEST(TraceFolding, ExactlyAHundredLinesAreNotCut) {
  std::vector<std::string> trace;
  for (int i = 0; i < 100; ++i) trace.push_back("  at f (a:" + std::to_string(i) + ")");
  EXPECT_EQ(foldTrace(trace), trace);
  trace.push_back("  at g (a:0)");
  EXPECT_EQ(foldTrace(trace)[50], "  ... 1 frames omitted");
}

}  // namespace
}  // namespace kith::vm
