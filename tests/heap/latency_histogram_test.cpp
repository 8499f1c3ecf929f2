#include "heap/statistics/latency_histogram.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <random>
#include <vector>

namespace kith::heap {
namespace {

// The nearest-rank quantile of a sorted sample: the reference the histogram approximates.
double referenceQuantile(const std::vector<std::uint64_t>& sorted, double q) {
  auto rank = static_cast<std::size_t>(std::ceil(q * static_cast<double>(sorted.size())));
  rank = std::clamp<std::size_t>(rank, 1, sorted.size());
  return static_cast<double>(sorted[rank - 1]);
}

TEST(LatencyHistogram, EmptyHistogramSummarisesToZero) {
  LatencyHistogram h;
  LatencySummary s = h.summary();
  EXPECT_EQ(s.count, 0u);
  EXPECT_EQ(s.mean, 0);
  EXPECT_EQ(s.p50, 0);
  EXPECT_EQ(s.p99, 0);
  EXPECT_EQ(s.max, 0);
  EXPECT_EQ(h.min(), 0u);
}

TEST(LatencyHistogram, SmallValuesAreExact) {
  LatencyHistogram h;
  for (std::uint64_t v = 0; v < 128; ++v) h.record(v);
  EXPECT_EQ(h.count(), 128u);
  EXPECT_DOUBLE_EQ(h.mean(), 63.5);
  EXPECT_EQ(h.valueAtQuantile(0.5), 63);  // rank 64 of 0..127
  EXPECT_EQ(h.valueAtQuantile(0.99), 126);  // rank ceil(126.72) = 127
  EXPECT_EQ(h.valueAtQuantile(1.0), 127);
  EXPECT_EQ(h.valueAtQuantile(0.0), 0);
  EXPECT_EQ(h.min(), 0u);
  EXPECT_EQ(h.max(), 127u);
}

TEST(LatencyHistogram, BucketsTileTheRangeWithBoundedRelativeWidth) {
  std::mt19937_64 rng(7);
  std::vector<std::uint64_t> values = {0, 1, 127, 128, 129, 255, 256, 1000, 4095, 4096,
                                       (1ull << 40) + 12345, UINT64_MAX - 1, UINT64_MAX};
  for (int i = 0; i < 10000; ++i) values.push_back(rng() >> (rng() % 64));
  for (std::uint64_t v : values) {
    std::size_t b = LatencyHistogram::bucketOf(v);
    ASSERT_LT(b, LatencyHistogram::kBucketCount) << v;
    std::uint64_t low = LatencyHistogram::lowestOf(b);
    std::uint64_t width = LatencyHistogram::widthOf(b);
    ASSERT_LE(low, v);
    ASSERT_LE(v - low, width - 1) << v;
    if (v >= 128) {
      ASSERT_LE(width * 64, low) << v;  // width <= value / 64
    }
  }
  EXPECT_EQ(LatencyHistogram::bucketOf(UINT64_MAX), LatencyHistogram::kBucketCount - 1);
  // Consecutive buckets are adjacent: each starts where the previous ends.
  for (std::size_t b = 1; b < LatencyHistogram::kBucketCount; ++b)
    ASSERT_EQ(LatencyHistogram::lowestOf(b),
              LatencyHistogram::lowestOf(b - 1) + LatencyHistogram::widthOf(b - 1))
        << b;
}

TEST(LatencyHistogram, PercentilesMatchSortedReferenceWithinOnePercent) {
  std::mt19937_64 rng(42);
  // Lognormal around 60 ns, clamped to [10 ns, 10 ms]: a heavy tail like real latencies.
  std::lognormal_distribution<double> dist(std::log(60.0), 1.5);
  std::vector<std::uint64_t> values;
  LatencyHistogram h;
  long double sum = 0;
  for (int i = 0; i < 200000; ++i) {
    auto v = static_cast<std::uint64_t>(std::clamp(dist(rng), 10.0, 1e7));
    values.push_back(v);
    h.record(v);
    sum += v;
  }
  std::sort(values.begin(), values.end());
  for (double q : {0.001, 0.01, 0.1, 0.25, 0.5, 0.75, 0.9, 0.99, 0.999, 0.9999, 1.0}) {
    double want = referenceQuantile(values, q);
    double got = h.valueAtQuantile(q);
    EXPECT_LE(std::abs(got - want), want / 128 + 0.5) << "q=" << q << " want " << want;
  }
  LatencySummary s = h.summary();
  EXPECT_EQ(s.count, values.size());
  EXPECT_DOUBLE_EQ(s.max, static_cast<double>(values.back()));  // exact
  EXPECT_EQ(h.min(), values.front());
  EXPECT_NEAR(s.mean, static_cast<double>(sum / values.size()), 1e-6 * s.mean);  // exact
  EXPECT_NEAR(s.p50, referenceQuantile(values, 0.5), referenceQuantile(values, 0.5) / 128 + 0.5);
  EXPECT_NEAR(s.p99, referenceQuantile(values, 0.99), referenceQuantile(values, 0.99) / 128 + 0.5);
}

TEST(LatencyHistogram, ExtremeValuesAreRecorded) {
  LatencyHistogram h;
  h.record(UINT64_MAX);
  h.record(1);
  EXPECT_EQ(h.max(), UINT64_MAX);
  EXPECT_EQ(h.valueAtQuantile(0.5), 1);
  EXPECT_DOUBLE_EQ(h.valueAtQuantile(1.0), static_cast<double>(UINT64_MAX));
}

TEST(LatencyHistogram, MergeEqualsRecordingEverythingInOne) {
  LatencyHistogram a, b, all;
  for (std::uint64_t v = 1; v < 5000; v += 7) {
    (v % 2 ? a : b).record(v * 3);
    all.record(v * 3);
  }
  a.merge(b);
  EXPECT_EQ(a.count(), all.count());
  EXPECT_EQ(a.min(), all.min());
  EXPECT_EQ(a.max(), all.max());
  EXPECT_DOUBLE_EQ(a.mean(), all.mean());
  for (double q : {0.1, 0.5, 0.99}) EXPECT_EQ(a.valueAtQuantile(q), all.valueAtQuantile(q));
  a.reset();
  EXPECT_EQ(a.count(), 0u);
  EXPECT_EQ(a.valueAtQuantile(0.5), 0);
}

// Constant memory: the object holds everything, whatever the number of samples.
static_assert(sizeof(LatencyHistogram) < 32 * 1024);

}  // namespace
}  // namespace kith::heap
