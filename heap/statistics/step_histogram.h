// StepHistogram: the steps a policy counted per request (lastSteps() /
// lastFreeSteps(): blocks examined, levels split or glued, bins searched), kept in
// constant memory so a run of 100M requests costs one array increment each.
//
// Buckets: one per step count 0..63 (exact: every bound the policies prove for
// realistic heaps falls here), then one per power of two, [64, 128), [128, 256),
// ... [2^63, 2^64): 122 buckets in all. A bucket is named by its lower bound, which
// is the key the JSON statistics use ("64" holds 64..127 steps). Count, mean and
// max are exact.
#pragma once

#include <algorithm>
#include <array>
#include <bit>
#include <cstddef>
#include <cstdint>

#include "heap/statistics/statistics.h"

namespace kith::heap {

class StepHistogram {
 public:
  static constexpr std::size_t kExactBuckets = 64;
  static constexpr std::size_t kBucketCount = kExactBuckets + 58;

  // Inlined into every counting path (StatsHeap has two): a call here was 18
  // instructions a request.
  [[gnu::always_inline]] void record(std::uint64_t steps) {
    ++buckets_[bucketOf(steps)];
    ++count_;
    sum_ += steps;
    max_ = std::max(max_, steps);
  }

  std::uint64_t count() const { return count_; }

  // Steps 0..63 have their own bucket; above, bucket 64 + j holds [2^(j+6), 2^(j+7)).
  static constexpr std::size_t bucketOf(std::uint64_t steps) {
    if (steps < kExactBuckets) return static_cast<std::size_t>(steps);
    return kExactBuckets + static_cast<std::size_t>(std::bit_width(steps)) - 7;
  }
  static constexpr std::uint64_t lowerBoundOf(std::size_t bucket) {
    return bucket < kExactBuckets ? bucket : std::uint64_t{1} << (bucket - kExactBuckets + 6);
  }

  // The non-empty buckets by lower bound, with count, mean and max.
  StepSummary summary() const {
    StepSummary s;
    s.counted = true;
    s.count = count_;
    s.mean = count_ ? static_cast<double>(sum_) / static_cast<double>(count_) : 0.0;
    s.max = max_;
    for (std::size_t i = 0; i < kBucketCount; ++i)
      if (buckets_[i]) s.histogram[lowerBoundOf(i)] = buckets_[i];
    return s;
  }

 private:
  std::array<std::uint64_t, kBucketCount> buckets_{};
  std::uint64_t count_ = 0, sum_ = 0, max_ = 0;
};

}  // namespace kith::heap
