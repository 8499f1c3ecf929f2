#include "cli/option_value.h"

#include <cerrno>
#include <cstdlib>

namespace kith::cli {

std::optional<long long> parseInteger(std::string_view text) {
  std::string v(text);
  char* end = nullptr;
  long long n = std::strtoll(v.c_str(), &end, 10);
  if (v.empty() || *end) return std::nullopt;
  return n;  // out of range: LLONG_MIN or LLONG_MAX, which every caller's range rejects
}

std::optional<double> parseReal(std::string_view text) {
  std::string v(text);
  char* end = nullptr;
  double x = std::strtod(v.c_str(), &end);
  if (v.empty() || *end) return std::nullopt;
  return x;
}

std::optional<std::uint64_t> parseCount(std::string_view text) {
  std::string v(text);
  char* end = nullptr;
  errno = 0;
  unsigned long long n = std::strtoull(v.c_str(), &end, 10);
  if (v.empty() || *end || errno || n == 0 || v[0] == '-') return std::nullopt;
  return n;
}

}  // namespace kith::cli
