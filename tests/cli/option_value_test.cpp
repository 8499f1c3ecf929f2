#include "cli/option_value.h"

#include <gtest/gtest.h>

#include <climits>
#include <cstddef>

#include "cli/exit_codes.h"

namespace kith::cli {
namespace {

TEST(OptionValue, IntegersAreTheWholeText) {
  EXPECT_EQ(parseInteger("42"), 42);
  EXPECT_EQ(parseInteger("+7"), 7);
  EXPECT_EQ(parseInteger("-3"), -3);
  EXPECT_EQ(parseInteger(" 5"), 5);  // strtoll skips leading blanks
  EXPECT_EQ(parseInteger("99999999999999999999"), LLONG_MAX);
  for (const char* bad : {"", "5 ", "5x", "x", "1.5", "0x10z"}) EXPECT_EQ(parseInteger(bad), std::nullopt) << bad;
}

TEST(OptionValue, RealsAreTheWholeText) {
  EXPECT_EQ(parseReal("0.75"), 0.75);
  EXPECT_EQ(parseReal("1e-2"), 0.01);
  EXPECT_EQ(parseReal("98"), 98.0);
  for (const char* bad : {"", "0.5x", "off", "1e"}) EXPECT_EQ(parseReal(bad), std::nullopt) << bad;
}

TEST(OptionValue, CountsAreAtLeastOne) {
  EXPECT_EQ(parseCount("1"), 1u);
  EXPECT_EQ(parseCount("18446744073709551615"), UINT64_MAX);
  for (const char* bad : {"", "0", "-1", "x", "3y", "18446744073709551616"})
    EXPECT_EQ(parseCount(bad), std::nullopt) << bad;
}

TEST(OptionValue, IntegerOptionInRangeIsStored) {
  std::size_t depth = 10;
  EXPECT_EQ(readIntegerOption("--max-depth", "1000000", 1, 1000000, depth), std::nullopt);
  EXPECT_EQ(depth, 1000000u);
}

TEST(OptionValue, IntegerOptionOutOfRangeIsAUsageError) {
  for (const char* bad : {"0", "1001", "abc", ""}) {
    int repetitions = 21;
    testing::internal::CaptureStderr();
    EXPECT_EQ(readIntegerOption("--repetitions", bad, 1, 1000, repetitions), kExitUsage);
    EXPECT_EQ(testing::internal::GetCapturedStderr(),
              std::string("kith: --repetitions wants a number from 1 to 1000; got '") + bad + "'\n(see kith --help)\n");
    EXPECT_EQ(repetitions, 21);
  }
}

}  // namespace
}  // namespace kith::cli
