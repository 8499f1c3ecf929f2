#include "vm/value.h"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>

#include "vm_test_support.h"

namespace kith::vm {
namespace {

// Python's repr(float), the reference for str() of floats.
TEST(FloatRepr, MatchesPython) {
  struct Case {
    double value;
    const char* text;
  };
  const Case cases[] = {
      {0.1, "0.1"},
      {1.0, "1.0"},
      {2500.0, "2500.0"},
      {0.5, "0.5"},
      {1e-05, "1e-05"},
      {0.0001, "0.0001"},
      {1e16, "1e+16"},
      {1e15, "1000000000000000.0"},
      {123456789012.0, "123456789012.0"},
      {5e-324, "5e-324"},
      {1.7976931348623157e+308, "1.7976931348623157e+308"},
      {-0.0, "-0.0"},
      {0.0, "0.0"},
      {-2.5, "-2.5"},
      {1.5e300, "1.5e+300"},
      {1.0 / 3.0, "0.3333333333333333"},
      {123.456, "123.456"},
      {2.5e-5, "2.5e-05"},
      {9007199254740993.0, "9007199254740992.0"},
      {std::numeric_limits<double>::quiet_NaN(), "nan"},
      {std::numeric_limits<double>::infinity(), "inf"},
      {-std::numeric_limits<double>::infinity(), "-inf"},
  };
  for (const Case& c : cases) EXPECT_EQ(formatFloat(c.value), c.text) << "for " << c.text;
}

TEST(NumberComparison, IntAndFloatCompareExactly) {
  EXPECT_TRUE(numbersEqual(Value::integer(1), Value::floating(1.0)));
  EXPECT_FALSE(numbersEqual(Value::integer(1), Value::floating(1.5)));
  // 2^53 + 1 is not equal to the double 2^53 even though it converts to it.
  EXPECT_FALSE(numbersEqual(Value::integer((std::int64_t{1} << 53) + 1), Value::floating(9007199254740992.0)));
  EXPECT_TRUE(numberLess(Value::floating(9007199254740992.0), Value::integer((std::int64_t{1} << 53) + 1)));
  EXPECT_FALSE(numbersEqual(Value::integer(0), Value::floating(std::nan(""))));
}

TEST(ValueDisplay, PrintsLikeLanguageMd) {
  testing::TestVM t;
  auto r = t.run(R"(print(1, -2, 3.0, "s", nil, true, [1, [2, "x"], 2.5]); print(-9223372036854775807 - 1);)");
  EXPECT_EQ(r.error, "");
  EXPECT_EQ(r.out, "1 -2 3.0 s nil true [1, [2, x], 2.5]\n-9223372036854775808\n");
}

TEST(ValueDisplay, MapKeysOneAndOneDotZeroAreTheSame) {
  testing::TestVM t;
  auto r = t.run(R"(let m = new Map(); m.put(1, "a"); m.put(1.0, "b"); print(m.size(), m.get(1), 1 == 1.0);)");
  EXPECT_EQ(r.out, "1 b true\n");
}

}  // namespace
}  // namespace kith::vm
