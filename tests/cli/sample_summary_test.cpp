#include "cli/sample_summary.h"

#include <gtest/gtest.h>

#include <vector>

namespace kith::cli {
namespace {

TEST(SampleSummary, MedianMeanAndTheTInterval) {
  // mean 3, sample sd sqrt(2.5), n 5: half-width 2.776 * sqrt(2.5 / 5)
  SampleSummary s = summarize({5, 1, 4, 2, 3});
  EXPECT_DOUBLE_EQ(s.median, 3);
  EXPECT_DOUBLE_EQ(s.mean, 3);
  EXPECT_NEAR(s.ciLow, 3 - 2.776 * 0.70710678, 1e-6);
  EXPECT_NEAR(s.ciHigh, 3 + 2.776 * 0.70710678, 1e-6);
  EXPECT_DOUBLE_EQ(summarize({1, 2, 3, 10}).median, 2.5);
}

TEST(SampleSummary, OneSampleHasAZeroWidthInterval) {
  SampleSummary s = summarize({7});
  EXPECT_DOUBLE_EQ(s.ciLow, 7);
  EXPECT_DOUBLE_EQ(s.ciHigh, 7);
}

TEST(SampleSummary, StudentTQuantiles) {
  EXPECT_DOUBLE_EQ(studentT975(1), 12.706);
  EXPECT_DOUBLE_EQ(studentT975(20), 2.086);
  EXPECT_NEAR(studentT975(40), 2.021, 0.001);
  EXPECT_NEAR(studentT975(120), 1.980, 0.001);
  EXPECT_NEAR(studentT975(100000), 1.960, 0.001);
}

}  // namespace
}  // namespace kith::cli
