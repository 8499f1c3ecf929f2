// CycleRecorder, the bookkeeping both collectors share: what a cycle's end writes
// (the log line, the counts, the pauses), the heap size it reports, and the heap
// verifier it runs when asked. A recorder here stands beside the VM's own
// collector and sees the same heap.
#include <gtest/gtest.h>

#include <cstdio>
#include <regex>
#include <string>

#include "gc/cycle_recorder.h"
#include "gc_test_support.h"

namespace kith::gc::testing {
namespace {

using vm::Value;
using Clock = CycleRecorder::Clock;

constexpr std::size_t kHeapBytes = std::size_t{64} << 20;

// What the recorder wrote to its log.
std::string logText(std::FILE* log) {
  std::fflush(log);
  std::rewind(log);
  std::string text;
  char buffer[512];
  while (std::fgets(buffer, sizeof buffer, log)) text += buffer;
  return text;
}

TEST(CycleRecorder, EndPauseLogsCountsAndRecordsOnePause) {
  TestVm t("estranged", kHeapBytes);
  std::FILE* log = std::tmpfile();
  ASSERT_NE(log, nullptr);
  CollectorOptions options;
  options.log = log;
  CycleRecorder recorder(options);

  for (int cycle = 0; cycle < 2; ++cycle) {
    CycleRecorder::Start start = recorder.begin(*t.heap, vm::GcCause::systemGc);
    EXPECT_EQ(start.cause, vm::GcCause::systemGc);
    EXPECT_EQ(start.bytesBefore, t.heap->bytesInUse());
    EXPECT_EQ(recorder.endPause(spaceOf(t.vm()), start, 7), t.heap->bytesInUse());
  }

  EXPECT_EQ(recorder.cycles(), 2u);
  std::regex shape(R"(\[\d+\.\d{3}s\]\[info\]\[gc\] GC\(1\) Pause Full \(System\.gc\(\)\) 0M->0M\(64M\) \d+\.\d{3}ms \(cpu \d+\.\d{3}ms\))");
  EXPECT_TRUE(std::regex_match(recorder.lastLogLine(), shape)) << recorder.lastLogLine();
  std::string text = logText(log);
  EXPECT_NE(text.find("GC(0) Pause Full"), std::string::npos) << text;
  EXPECT_TRUE(text.ends_with(recorder.lastLogLine() + "\n")) << text;
  std::fclose(log);

  vm::CollectorStatistics s;
  recorder.fill(s);
  EXPECT_EQ(s.cycles, 2u);
  EXPECT_EQ(recorder.pauses().histogram().count(), 2u);
}

TEST(CycleRecorder, EndIncrementalReportsItsSlicesWithoutAPauseOfItsOwn) {
  TestVm t("estranged", kHeapBytes);
  CycleRecorder recorder(CollectorOptions{});
  CycleRecorder::Start start = recorder.begin(*t.heap, vm::GcCause::heapOccupancy);
  CycleRecorder::Slices slices;
  // Stamps on both clocks: 300 µs by wall time of which the thread ran 60 µs, then
  // 100 µs of which it ran 90.
  PauseStamp begin = PauseStamp::now();
  auto later = [](PauseStamp at, std::chrono::microseconds wall, std::uint64_t cpuNs) {
    return PauseStamp{at.wall + wall, at.cpuNs + cpuNs};
  };
  EXPECT_EQ(recorder.recordSlice(slices, begin, later(begin, std::chrono::microseconds(300), 60'000), 64), 300'000u);
  begin = later(begin, std::chrono::milliseconds(1), 100'000);
  recorder.recordSlice(slices, begin, later(begin, std::chrono::microseconds(100), 90'000), 32);
  EXPECT_EQ(slices.count, 2u);
  EXPECT_EQ(slices.totalNs, 400'000u);
  EXPECT_EQ(slices.longestNs, 300'000u);
  EXPECT_EQ(slices.cpuTotalNs, 150'000u);
  EXPECT_EQ(slices.cpuLongestNs, 90'000u);

  recorder.endIncremental(spaceOf(t.vm()), start, slices, true);
  const std::string& line = recorder.lastLogLine();
  EXPECT_NE(line.find("GC(0) Incremental Cycle (Heap Occupancy)"), std::string::npos) << line;
  EXPECT_NE(line.find(" 2 slices 0.400ms (longest 0.300ms) cpu 0.150ms (longest 0.090ms) in "), std::string::npos)
      << line;
  EXPECT_TRUE(line.ends_with(", forced")) << line;
  EXPECT_EQ(recorder.pauses().histogram().count(), 2u) << "the slices, not the cycle, are the pauses";
  EXPECT_EQ(recorder.cycles(), 1u);
}

TEST(CycleRecorder, CountsFreedAndThePeakLiveBytes) {
  CycleRecorder recorder(CollectorOptions{});
  recorder.countFreed(3, 192);
  recorder.countFreed(1, 64);
  recorder.countLiveBytes(1000);
  recorder.countLiveBytes(400);
  vm::CollectorStatistics s;
  recorder.fill(s);
  EXPECT_EQ(s.objectsFreed, 4u);
  EXPECT_EQ(s.bytesFreed, 256u);
  EXPECT_EQ(s.peakLiveBytes, 1000);
  EXPECT_EQ(recorder.peakLiveBytes(), 1000u);
}

TEST(CycleRecorder, HeapBytesIsTheOptionElseTheArena) {
  TestVm t("estranged", kHeapBytes);
  EXPECT_EQ(CycleRecorder(CollectorOptions{}).heapBytes(*t.heap), t.heap->arenaSize());
  CollectorOptions options;
  options.heapBytes = 1 << 20;
  EXPECT_EQ(CycleRecorder(options).heapBytes(*t.heap), std::size_t{1} << 20);
}

TEST(CycleRecorder, VerifiesTheHeapAfterEachCycleWhenAsked) {
  TestVm t("estranged", kHeapBytes);
  vm::VM& vm = t.vm();
  vm::RootScope roots(vm);
  roots.root(vm.newArray(4, Value::nil()));
  CycleRecorder recorder(CollectorOptions{});
  VerifyOptions verify;
  verify.requireNoGarbage = true;
  recorder.verifyAfterEachCycle(verify);
  recorder.endPause(spaceOf(vm), recorder.begin(*t.heap, vm::GcCause::systemGc), 0);  // nothing unreachable: passes

  vm.newArray(4, Value::nil());  // garbage no cycle has swept
  EXPECT_DEATH(recorder.endPause(spaceOf(vm), recorder.begin(*t.heap, vm::GcCause::systemGc), 0),
               "heap verification failed after GC\\(1\\)");
}

}  // namespace
}  // namespace kith::gc::testing
