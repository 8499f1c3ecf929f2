// PauseRecorder: every pause on two clocks (wall and the thread's CPU time), their
// summaries and MMU on each, what the host took from the thread during them, and
// the pause list (`kith run --gc-pauses-file`, format version 2). The pauses here are
// made of stamps the test chooses, so nothing depends on how long anything took.
#include "gc/pause_recorder.h"

#include <gtest/gtest.h>

#include <array>
#include <chrono>
#include <cstdio>
#include <sstream>
#include <string>
#include <vector>

namespace kith::gc {
namespace {

using std::chrono::microseconds;

// A recorder whose clocks start at the stamp it returns, so the tests place pauses
// at offsets from it on both axes.
struct Recording {
  PauseRecorder recorder;
  PauseStamp origin;
  Recording() : origin(PauseStamp::now()) { recorder.setStartTime(origin); }
  // A stamp `wallUs` µs after the start by wall time and `cpuUs` by CPU time.
  PauseStamp at(std::uint64_t wallUs, std::uint64_t cpuUs) const {
    return {origin.wall + microseconds(wallUs), origin.cpuNs + cpuUs * 1000};
  }
};

std::string listText(const PauseRecorder& recorder, const PauseStamp& end) {
  std::FILE* out = std::tmpfile();
  EXPECT_NE(out, nullptr);
  EXPECT_TRUE(recorder.writePauseList(out, "continuous", end));
  std::rewind(out);
  std::string text;
  char buffer[256];
  while (std::fgets(buffer, sizeof buffer, out)) text += buffer;
  std::fclose(out);
  return text;
}

TEST(PauseRecorder, SummarisesEachClockApart) {
  Recording r;
  // Three slices: 50 µs of wall time (40 CPU), 400 wall (60 CPU: the host took 340),
  // 90 wall (90 CPU).
  r.recorder.record(r.at(0, 0), r.at(50, 40), 10);
  r.recorder.record(r.at(1000, 500), r.at(1400, 560), 20);
  r.recorder.record(r.at(3000, 1000), r.at(3090, 1090), 30);
  vm::CollectorStatistics s;
  r.recorder.fill(s, r.at(10'000, 5'000));
  EXPECT_NEAR(s.wall.maxMs, 0.400, 1e-9);
  EXPECT_NEAR(s.wall.totalMs, 0.540, 1e-9);
  EXPECT_NEAR(s.cpu.maxMs, 0.090, 1e-9);
  EXPECT_NEAR(s.cpu.totalMs, 0.190, 1e-9);
  EXPECT_NEAR(s.pauseHostGapMaxMs, 0.340, 1e-9);
  EXPECT_EQ(s.pausesLongByHost, 1) << "400 µs by wall time, 60 by CPU time";
  // MMU at 1 ms: by wall time the window ending at the second pause's end holds its
  // 400 µs; by CPU time the worst millisecond holds the last two pauses' 60 + 90.
  EXPECT_NEAR(s.wall.mmu[0], 0.6, 1e-9);
  EXPECT_NEAR(s.cpu.mmu[0], 1 - 0.150, 1e-9);
  EXPECT_NEAR(s.cpu.mmu[1], 1 - 0.190 / 5, 1e-9) << "a run of 5 ms CPU time: one window of its own length";
}

// Each clock's figures are one vm::PauseFigures, the whole summary of that clock's
// timeline: a PauseTimeline fed the same intervals on its own gives the same figures.
TEST(PauseRecorder, FillsOneSetOfFiguresPerClock) {
  Recording r;
  PauseTimeline wall, cpu;
  for (auto [wallBegin, wallEnd, cpuBegin, cpuEnd] :
       {std::array<std::uint64_t, 4>{0, 50, 0, 40}, {1000, 1400, 500, 560}, {3000, 3090, 1000, 1090}}) {
    r.recorder.record(r.at(wallBegin, cpuBegin), r.at(wallEnd, cpuEnd));
    wall.record(wallBegin * 1000, wallEnd * 1000);
    cpu.record(cpuBegin * 1000, cpuEnd * 1000);
  }
  vm::CollectorStatistics s;
  r.recorder.fill(s, r.at(10'000, 5'000));
  EXPECT_EQ(s.wall, wall.summary(10'000'000));
  EXPECT_EQ(s.cpu, cpu.summary(5'000'000));
  EXPECT_TRUE(s.wall.measuresMmu());
  EXPECT_TRUE(s.cpu.measuresMmu());
}

TEST(PauseRecorder, AHostGapUnderTheLimitIsNotALongPause) {
  Recording r;
  r.recorder.record(r.at(0, 0), r.at(100, 10), 1);     // exactly the limit by wall time: not over it
  r.recorder.record(r.at(200, 20), r.at(450, 200), 1);  // over it by both clocks: the collector's
  vm::CollectorStatistics s;
  r.recorder.fill(s, r.at(1000, 300));
  EXPECT_EQ(s.pausesLongByHost, 0);
  EXPECT_NEAR(s.pauseHostGapMaxMs, 0.090, 1e-9);
}

TEST(PauseRecorder, WritesFormatTwoWithBothClocksAndTheWork) {
  Recording r;
  r.recorder.keepAll();
  r.recorder.record(r.at(10, 5), r.at(60, 45), 17);
  r.recorder.record(r.at(500, 100), r.at(520, 118), 3);
  const std::string text = listText(r.recorder, r.at(2000, 700));
  std::istringstream lines(text);
  std::string line;
  std::vector<std::string> header;
  std::vector<std::vector<unsigned long long>> rows;
  while (std::getline(lines, line)) {
    if (line.starts_with("#")) {
      header.push_back(line);
      continue;
    }
    std::istringstream fields(line);
    std::vector<unsigned long long> row;
    for (unsigned long long v; fields >> v;) row.push_back(v);
    rows.push_back(row);
  }
  ASSERT_EQ(header.size(), 5u) << text;
  EXPECT_EQ(header[0], "# kith-gc-pauses 2");
  EXPECT_EQ(header[1], "# collector continuous");
  EXPECT_EQ(header[2], "# run_ns 2000000");
  EXPECT_EQ(header[3], "# run_cpu_ns 700000");
  EXPECT_EQ(header[4], "# start_ns duration_ns cpu_start_ns cpu_ns work");
  ASSERT_EQ(rows.size(), 2u) << text;
  EXPECT_EQ(rows[0], (std::vector<unsigned long long>{10'000, 50'000, 5'000, 40'000, 17}));
  EXPECT_EQ(rows[1], (std::vector<unsigned long long>{500'000, 20'000, 100'000, 18'000, 3}));
}

// Stamps out of order (clock granularity, or a CPU clock read a little apart from the
// wall clock) never make a pause overlap the previous one or end before it begins,
// on either axis: the list stays in time order.
TEST(PauseRecorder, KeepsEachAxisInOrder) {
  Recording r;
  r.recorder.keepAll();
  r.recorder.record(r.at(0, 0), r.at(100, 80), 1);
  r.recorder.record(r.at(90, 70), r.at(95, 75), 1);  // begins and ends inside the first, on both clocks
  const auto& pauses = r.recorder.pauses();
  ASSERT_EQ(pauses.size(), 2u);
  EXPECT_EQ(pauses[1].begin, pauses[0].end);
  EXPECT_EQ(pauses[1].end, pauses[1].begin);
  EXPECT_EQ(pauses[1].cpuBegin, pauses[0].cpuEnd);
  EXPECT_EQ(pauses[1].cpuEnd, pauses[1].cpuBegin);
}

// A run that reports no pauses does not read the CPU clock (a system call a stamp):
// its statistics then leave the CPU fields unset, as for a collector that keeps none.
TEST(PauseRecorder, WithoutTheCpuClockTheCpuFieldsStayUnset) {
  Recording r;
  r.recorder.setMeasuresCpuTime(false);
  EXPECT_EQ(PauseStamp::now(false).cpuNs, 0u);
  r.recorder.record(PauseStamp{r.origin.wall, 0}, PauseStamp{r.origin.wall + microseconds(300), 0}, 5);
  vm::CollectorStatistics s;
  r.recorder.fill(s, PauseStamp{r.origin.wall + microseconds(5000), 0});
  EXPECT_NEAR(s.wall.maxMs, 0.3, 1e-9);
  EXPECT_GE(s.wall.mmu[0], 0);
  EXPECT_EQ(s.pausesLongByHost, -1);
  EXPECT_EQ(s.cpu, vm::PauseFigures{}) << "the CPU figures as a collector that measures none leaves them";
}

TEST(PauseRecorder, AListWithoutPausesIsTheHeaderAlone) {
  std::FILE* out = std::tmpfile();
  ASSERT_NE(out, nullptr);
  PauseRecorder::writePauseListHeader(out, "none", 123, 45);
  std::rewind(out);
  char buffer[512] = {};
  std::size_t n = std::fread(buffer, 1, sizeof buffer - 1, out);
  std::fclose(out);
  EXPECT_EQ(std::string(buffer, n),
            "# kith-gc-pauses 2\n# collector none\n# run_ns 123\n# run_cpu_ns 45\n"
            "# start_ns duration_ns cpu_start_ns cpu_ns work\n");
}

}  // namespace
}  // namespace kith::gc
