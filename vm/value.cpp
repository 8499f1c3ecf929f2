#include "vm/value.h"

#include <charconv>
#include <cmath>
#include <cstdlib>
#include <cstring>

namespace kith::vm {

std::string formatFloat(double d) {
  if (std::isnan(d)) return "nan";
  if (std::isinf(d)) return d > 0 ? "inf" : "-inf";
  // Shortest round-trip digits in scientific form: "-d.ddde±XX".
  char buf[64];
  auto result = std::to_chars(buf, buf + sizeof buf, d, std::chars_format::scientific);
  std::string sci(buf, result.ptr);
  std::string out;
  std::size_t pos = 0;
  if (sci[0] == '-') {
    out += '-';
    pos = 1;
  }
  std::size_t ePos = sci.find('e');
  std::string digits;
  for (std::size_t i = pos; i < ePos; ++i)
    if (sci[i] != '.') digits += sci[i];
  int exponent = std::atoi(sci.c_str() + ePos + 1);
  while (digits.size() > 1 && digits.back() == '0') digits.pop_back();
  if (exponent < -4 || exponent >= 16) {
    out += digits[0];
    if (digits.size() > 1) {
      out += '.';
      out.append(digits, 1, std::string::npos);
    }
    char exp[16];
    std::snprintf(exp, sizeof exp, "e%c%02d", exponent < 0 ? '-' : '+', std::abs(exponent));
    out += exp;
    return out;
  }
  if (exponent < 0) {
    out += "0.";
    out.append(static_cast<std::size_t>(-exponent - 1), '0');
    out += digits;
    return out;
  }
  auto intDigits = static_cast<std::size_t>(exponent) + 1;
  if (digits.size() <= intDigits) {
    out += digits;
    out.append(intDigits - digits.size(), '0');
    out += ".0";
  } else {
    out.append(digits, 0, intDigits);
    out += '.';
    out.append(digits, intDigits, std::string::npos);
  }
  return out;
}

namespace {
// An int64 equal to the double d, if there is one.
bool floatToExactInt(double d, std::int64_t& out) {
  if (!(d >= -9223372036854775808.0 && d < 9223372036854775808.0)) return false;
  if (std::trunc(d) != d) return false;
  out = static_cast<std::int64_t>(d);
  return true;
}
}  // namespace

bool numbersEqual(Value a, Value b) {
  if (a.isInt() && b.isInt()) return a.asInt() == b.asInt();
  if (a.isFloat() && b.isFloat()) return a.asFloat() == b.asFloat();
  std::int64_t i = a.isInt() ? a.asInt() : b.asInt();
  double f = a.isFloat() ? a.asFloat() : b.asFloat();
  std::int64_t fi;
  return floatToExactInt(f, fi) && fi == i;
}

bool numberLess(Value a, Value b) {
  if (a.isInt() && b.isInt()) return a.asInt() < b.asInt();
  if (a.isFloat() && b.isFloat()) return a.asFloat() < b.asFloat();
  // long double holds every int64 exactly on x86-64; elsewhere this rounds like Java.
  long double x = a.isInt() ? static_cast<long double>(a.asInt()) : a.asFloat();
  long double y = b.isInt() ? static_cast<long double>(b.asInt()) : b.asFloat();
  return x < y;
}

}  // namespace kith::vm
