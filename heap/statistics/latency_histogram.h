// LatencyHistogram: a fixed-size log-linear histogram of nanosecond latencies, in
// the spirit of HdrHistogram, so that a run of 100M allocations is summarised in
// constant memory. Count, sum (hence mean), min and max are exact; percentiles
// are read from buckets whose width is at most 1/64 of their value, and reported
// as the bucket's midpoint, so they are within 1/128 (< 0.8 %) of the true value.
//
// Layout: values below 128 get one bucket each (exact). Above, every octave
// [2^h, 2^(h+1)) is cut into 64 equal buckets. Covering all of uint64 takes
// 128 + 57 * 64 = 3776 buckets (30 KiB); the histogram never allocates.
#pragma once

#include <algorithm>
#include <array>
#include <bit>
#include <cstddef>
#include <cstdint>

#include "heap/statistics/statistics.h"

namespace kith::heap {

class LatencyHistogram {
 public:
  static constexpr unsigned kSubBucketBits = 7;
  static constexpr std::uint64_t kLinearLimit = std::uint64_t{1} << kSubBucketBits;  // 128
  static constexpr std::size_t kBucketsPerOctave = kLinearLimit / 2;                  // 64
  static constexpr std::size_t kBucketCount =
      kLinearLimit + (64 - kSubBucketBits) * kBucketsPerOctave;

  void record(std::uint64_t value) {
    ++buckets_[bucketOf(value)];
    ++count_;
    sum_ += value;
    min_ = std::min(min_, value);
    max_ = std::max(max_, value);
  }

  std::uint64_t count() const { return count_; }
  std::uint64_t min() const { return count_ ? min_ : 0; }
  std::uint64_t max() const { return max_; }
  double mean() const { return count_ ? static_cast<double>(sum_) / count_ : 0.0; }

  // The value below which a fraction q (0..1) of the recorded values lie, by
  // nearest rank: the smallest recorded value v with at least ceil(q * count)
  // values <= v, approximated by its bucket. 0 for an empty histogram.
  double valueAtQuantile(double q) const;

  LatencySummary summary() const;

  void merge(const LatencyHistogram& other);

  void reset() { *this = LatencyHistogram(); }

  static constexpr std::size_t bucketOf(std::uint64_t v) {
    if (v < kLinearLimit) return static_cast<std::size_t>(v);
    unsigned high = static_cast<unsigned>(std::bit_width(v)) - 1;  // >= kSubBucketBits
    unsigned shift = high - (kSubBucketBits - 1);
    std::uint64_t mantissa = v >> shift;  // in [64, 128)
    return kLinearLimit + (high - kSubBucketBits) * kBucketsPerOctave +
           static_cast<std::size_t>(mantissa - kBucketsPerOctave);
  }
  // Smallest value that falls in bucket i.
  static constexpr std::uint64_t lowestOf(std::size_t i) {
    if (i < kLinearLimit) return i;
    std::size_t octave = (i - kLinearLimit) / kBucketsPerOctave;
    std::uint64_t mantissa = kBucketsPerOctave + (i - kLinearLimit) % kBucketsPerOctave;
    return mantissa << (octave + 1);
  }
  static constexpr std::uint64_t widthOf(std::size_t i) {
    if (i < kLinearLimit) return 1;
    return std::uint64_t{1} << ((i - kLinearLimit) / kBucketsPerOctave + 1);
  }

 private:
  static double midpointOf(std::size_t i) {
    if (i < kLinearLimit) return static_cast<double>(i);
    return static_cast<double>(lowestOf(i)) + static_cast<double>(widthOf(i) - 1) / 2;
  }

  std::array<std::uint64_t, kBucketCount> buckets_{};
  std::uint64_t count_ = 0;
  std::uint64_t sum_ = 0;  // 2^64 ns is 584 years of latency: no overflow in practice
  std::uint64_t min_ = UINT64_MAX;
  std::uint64_t max_ = 0;
};

}  // namespace kith::heap
