// LatencyHistogram's read-out and merge, which run once per report; record()
// stays inline in latency_histogram.h.
#include "heap/statistics/latency_histogram.h"

#include <algorithm>
#include <cmath>

namespace kith::heap {

double LatencyHistogram::valueAtQuantile(double q) const {
  if (count_ == 0) return 0;
  q = std::clamp(q, 0.0, 1.0);
  auto rank = static_cast<std::uint64_t>(std::ceil(q * static_cast<double>(count_)));
  rank = std::clamp<std::uint64_t>(rank, 1, count_);
  if (rank == count_) return static_cast<double>(max_);  // exact, not a bucket midpoint
  std::uint64_t seen = 0;
  for (std::size_t i = 0; i < kBucketCount; ++i) {
    seen += buckets_[i];
    if (seen >= rank) {
      double v = midpointOf(i);
      return std::clamp(v, static_cast<double>(min_), static_cast<double>(max_));
    }
  }
  return static_cast<double>(max_);  // unreachable: the buckets sum to count_
}

LatencySummary LatencyHistogram::summary() const {
  LatencySummary s;
  s.count = count_;
  s.mean = mean();
  s.p50 = valueAtQuantile(0.50);
  s.p99 = valueAtQuantile(0.99);
  s.max = static_cast<double>(max_);
  return s;
}

void LatencyHistogram::merge(const LatencyHistogram& other) {
  for (std::size_t i = 0; i < kBucketCount; ++i) buckets_[i] += other.buckets_[i];
  count_ += other.count_;
  sum_ += other.sum_;
  min_ = std::min(min_, other.min_);
  max_ = std::max(max_, other.max_);
}

}  // namespace kith::heap
