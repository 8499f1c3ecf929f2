// HeapStatistics: what StatsHeap measures, in the shape of CLI.md's "heap" block.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <map>

#include "heap/outcome.h"

namespace kith::heap {

struct LatencySummary {
  std::uint64_t count = 0;
  double mean = 0, p50 = 0, p99 = 0, max = 0;  // nanoseconds
};

// The steps a policy counted per request (step_histogram.h). `counted` is false for
// policies that count none (malloc, jemalloc, mimalloc); the JSON then has no "steps".
struct StepSummary {
  bool counted = false;
  std::uint64_t count = 0, max = 0;
  double mean = 0;
  std::map<std::uint64_t, std::uint64_t> histogram;  // bucket lower bound -> requests
};

struct HeapStatistics {
  std::uint64_t allocations = 0;        // successful mallocs
  std::uint64_t frees = 0;
  std::uint64_t bytes_requested = 0;    // sum of sizes asked for (successful mallocs)
  std::uint64_t bytes_allocated = 0;    // sum of block sizes handed out (getSize)
  std::uint64_t bytes_in_use = 0;       // block bytes live now
  std::uint64_t peak_bytes_in_use = 0;
  std::uint64_t failed_allocations = 0;
  std::array<std::uint64_t, kOutcomeCount> satisfied{};  // indexed by Outcome
  // Of satisfied[immediate], the requests met by a block no free had returned: a
  // split's other half, or never-used memory (the buddy systems' split floor). The
  // rest were recycled. Known only for policies that track it (stats_heap.h,
  // TracksLeftovers); the JSON has null otherwise.
  bool immediate_source_known = false;
  std::uint64_t immediate_leftover = 0;
  bool immediate_source_skipped = false;  // not tracked because it was asked not to be
  std::map<std::size_t, std::uint64_t> size_histogram;   // block size -> count
  bool op_timers = true;                // false: alloc_ns/free_ns were not measured (StatisticsMode::counts)
  LatencySummary alloc_ns, free_ns;
  StepSummary malloc_steps, free_steps;  // every malloc (failed ones too) and every free
  std::uint64_t internal_bytes = 0;     // bytes_allocated - bytes_requested
  double external_at_failure = 0;       // 1 - largest free block / free bytes, at the first failure
};

}  // namespace kith::heap
