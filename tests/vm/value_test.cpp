#include "vm/value.h"

#include <gtest/gtest.h>

#include <bit>
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

namespace kith::vm {
namespace {

// The 8-byte encoding (value.h): every double but a NaN comes back bit for bit; a
// NaN comes back a NaN; the types never overlap.
TEST(ValueEncoding, DoublesRoundTripAndStayFloats) {
  const double cases[] = {0.0, -0.0, 1.5, -2.25, 5e-324, -5e-324, 1.7976931348623157e+308,
                          -1.7976931348623157e+308, std::numeric_limits<double>::infinity(),
                          -std::numeric_limits<double>::infinity()};
  for (double d : cases) {
    Value v = Value::floating(d);
    EXPECT_TRUE(v.isFloat()) << d;
    EXPECT_FALSE(v.isInt() || v.holdsHandle() || v.isClass() || v.isNative() || v.isBool() || v.isNil()) << d;
    EXPECT_EQ(std::bit_cast<std::uint64_t>(v.asFloat()), std::bit_cast<std::uint64_t>(d)) << d;
  }
  // NaNs with any payload, either sign: a float, and a NaN.
  for (std::uint64_t bits : {0x7FF8000000000000ULL, 0xFFF8000000000000ULL, 0xFFFFFFFFFFFFFFFFULL,
                             0x7FF0000000000001ULL, 0xFFFE000000000000ULL}) {
    Value v = Value::floating(std::bit_cast<double>(bits));
    EXPECT_TRUE(v.isFloat()) << std::hex << bits;
    EXPECT_TRUE(std::isnan(v.asFloat())) << std::hex << bits;
  }
}

TEST(ValueEncoding, SmallIntsTagsAndSize) {
  static_assert(sizeof(Value) == 8);
  for (std::int64_t i : {std::int64_t{0}, std::int64_t{-1}, std::int64_t{1}, Value::kSmallIntMax, Value::kSmallIntMin}) {
    Value v = Value::integer(i);
    EXPECT_TRUE(v.isSmallInt() && v.isInt() && !v.isFloat()) << i;
    EXPECT_EQ(v.asInt(), i);
    EXPECT_EQ(v.type(), ValueType::integer);
  }
  EXPECT_FALSE(Value::fitsSmallInt(Value::kSmallIntMax + 1));
  EXPECT_FALSE(Value::fitsSmallInt(Value::kSmallIntMin - 1));
  Value zero{};
  EXPECT_TRUE(zero.isNil()) << "zeroed memory reads as nil";
  EXPECT_TRUE(Value::nil().isFalsy() && Value::boolean(false).isFalsy());
  EXPECT_FALSE(Value::boolean(true).isFalsy() || Value::integer(0).isFalsy() || Value::floating(0.0).isFalsy());
  EXPECT_EQ(Value::undefined().type(), ValueType::undefined);
  EXPECT_EQ(Value::boolean(true).type(), ValueType::boolean);
  alignas(8) static Handle handle{};
  EXPECT_EQ(Value::object(&handle).type(), ValueType::object);
  EXPECT_EQ(Value::object(&handle).asHandle(), &handle);
  EXPECT_TRUE(Value::object(&handle).holdsHandle());
}

}  // namespace
}  // namespace kith::vm
