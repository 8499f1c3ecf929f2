// SampleSummary: median, mean and the t-based 95% confidence interval of the mean of a
// few timing samples (Georges et al., OOPSLA 2007: Student's t below 30 samples), for
// benchmarks that repeat one measurement on a fresh heap (kith bench contrived).
#pragma once

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <vector>

namespace kith::cli {

// The two-sided 95% quantile of Student's t with `df` degrees of freedom: exact to
// three decimals from the table to 30, then the Cornish-Fisher expansion around the
// normal's 1.96 (within 0.001 of the true value from 30 on).
inline double studentT975(std::size_t df) {
  static constexpr double kTable[] = {12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365, 2.306, 2.262, 2.228,
                                      2.201,  2.179, 2.160, 2.145, 2.131, 2.120, 2.110, 2.101, 2.093, 2.086,
                                      2.080,  2.074, 2.069, 2.064, 2.060, 2.056, 2.052, 2.048, 2.045, 2.042};
  if (df == 0) return 0;
  if (df <= 30) return kTable[df - 1];
  const double z = 1.959964, n = static_cast<double>(df);
  return z + (z * z * z + z) / (4 * n) + (5 * std::pow(z, 5) + 16 * z * z * z + 3 * z) / (96 * n * n);
}

struct SampleSummary {
  double median = 0, mean = 0;
  double ciLow = 0, ciHigh = 0;  // the mean's 95% interval; equal to the mean for one sample
};

inline SampleSummary summarize(std::vector<double> samples) {
  SampleSummary s;
  const std::size_t n = samples.size();
  if (n == 0) return s;
  std::sort(samples.begin(), samples.end());
  s.median = n % 2 ? samples[n / 2] : (samples[n / 2 - 1] + samples[n / 2]) / 2;
  double sum = 0;
  for (double x : samples) sum += x;
  s.mean = sum / static_cast<double>(n);
  double squares = 0;
  for (double x : samples) squares += (x - s.mean) * (x - s.mean);
  const double halfWidth =
      n > 1 ? studentT975(n - 1) * std::sqrt(squares / static_cast<double>(n - 1) / static_cast<double>(n)) : 0;
  s.ciLow = s.mean - halfWidth;
  s.ciHigh = s.mean + halfWidth;
  return s;
}

}  // namespace kith::cli
