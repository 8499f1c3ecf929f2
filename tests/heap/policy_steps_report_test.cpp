// The statistics JSON of policies made by name: the "steps" block where the policy
// counts steps, none where it does not, and "op_timers" with null latencies when the
// per-operation timers are off (--stats-timers=off).
#include <gtest/gtest.h>

#include <memory>
#include <string>

#include "heap/heap.h"
#include "heap/statistics/statistics_report.h"

namespace kith::heap {
namespace {

bool has(const std::string& json, const std::string& part) { return json.find(part) != std::string::npos; }

TEST(PolicyStepsReport, KnuthReportsTheStepsOfEachMallocAndFree) {
  auto heap = makeHeap("knuth", 1024);
  ASSERT_NE(heap, nullptr);
  void* a = heap->malloc(16);  // 7 list heads, 6 bisections
  void* b = heap->malloc(16);  // 1
  ASSERT_TRUE(a && b);
  heap->free(b);  // 1
  heap->free(a);  // 1 + 6 recombinations
  std::string json = heapStatisticsJson(heap->statistics());
  EXPECT_TRUE(has(json, "\"steps\": {\"malloc\": {\"count\": 2, \"mean\": 7, \"max\": 13, "
                        "\"histogram\": {\"1\": 1, \"13\": 1}}")) << json;
  EXPECT_TRUE(has(json, "\"free\": {\"count\": 2, \"mean\": 4, \"max\": 7, \"histogram\": {\"1\": 1, \"7\": 1}}"))
      << json;
}

TEST(PolicyStepsReport, ListReportsMallocStepsOnly) {
  auto heap = makeHeap("list", 1 << 16);
  ASSERT_NE(heap, nullptr);
  heap->free(heap->malloc(32));
  std::string json = heapStatisticsJson(heap->statistics());
  EXPECT_TRUE(has(json, "\"steps\": {\"malloc\": {\"count\": 1, \"mean\": 1, \"max\": 1, \"histogram\": {\"1\": 1}}}"))
      << json;
}

TEST(PolicyStepsReport, KingsleyCoalescingReportsMallocAndFreeSteps) {
  auto heap = makeHeap("kingsley-coalescing", 1 << 16);
  ASSERT_NE(heap, nullptr);
  void* a = heap->malloc(32);  // 3: the search, the arena block unlinked, its rest filed
  void* b = heap->malloc(32);  // 3
  heap->free(a);               // 1: no free neighbour
  heap->free(b);               // 3: a below, the arena's rest above
  std::string json = heapStatisticsJson(heap->statistics());
  EXPECT_TRUE(has(json, "\"steps\": {\"malloc\": {\"count\": 2, \"mean\": 3, \"max\": 3, \"histogram\": {\"3\": 2}}")) << json;
  EXPECT_TRUE(has(json, "\"free\": {\"count\": 2, \"mean\": 2, \"max\": 3, \"histogram\": {\"1\": 1, \"3\": 1}}"))
      << json;
}

// The hand-written Kingsley counts nothing, as the original did not.
TEST(PolicyStepsReport, KingsleyBsdHasNoSteps) {
  auto heap = makeHeap("kingsley-bsd", 1 << 16);
  ASSERT_NE(heap, nullptr);
  heap->free(heap->malloc(32));
  std::string json = heapStatisticsJson(heap->statistics());
  EXPECT_FALSE(has(json, "\"steps\"")) << json;
}

TEST(PolicyStepsReport, TheSystemAllocatorHasNoSteps) {
  auto heap = makeHeap("malloc", 1 << 16);
  heap->free(heap->malloc(32));
  std::string json = heapStatisticsJson(heap->statistics());
  EXPECT_FALSE(has(json, "\"steps\"")) << json;
}

TEST(PolicyStepsReport, UntimedLatenciesAreNullNotZero) {
  auto quiet = makeHeap("estranged", 1 << 16, StatisticsMode::counts);
  quiet->free(quiet->malloc(32));
  std::string json = heapStatisticsJson(quiet->statistics());
  EXPECT_TRUE(has(json, "\"op_timers\": false")) << json;
  EXPECT_TRUE(has(json, "\"alloc_ns\": {\"count\": 0, \"mean\": null, \"p50\": null, \"p99\": null, \"max\": null}"))
      << json;
  EXPECT_TRUE(has(json, "\"allocations\": 1, \"frees\": 1")) << json;  // the counts stay

  auto timed = makeHeap("estranged", 1 << 16);
  timed->free(timed->malloc(32));
  json = heapStatisticsJson(timed->statistics());
  EXPECT_TRUE(has(json, "\"op_timers\": true")) << json;
  EXPECT_TRUE(has(json, "\"alloc_ns\": {\"count\": 1, \"mean\": ")) << json;
  EXPECT_TRUE(has(json, "\"free_ns\": {\"count\": 1, \"mean\": ")) << json;
}

}  // namespace
}  // namespace kith::heap
