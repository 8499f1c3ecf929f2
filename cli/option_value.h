// The numbers in `--NAME=VALUE` options, read as the C library reads them (strtoll,
// strtod, strtoull: leading blanks and a sign accepted) and accepted only when
// nothing follows the number, so every option takes the same spellings.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "cli/usage_error.h"

namespace kith::cli {

std::optional<long long> parseInteger(std::string_view text);
std::optional<double> parseReal(std::string_view text);
// A count of at least 1, up to 2^64 - 1; nullopt for a leading '-' too.
std::optional<std::uint64_t> parseCount(std::string_view text);

// Sets `out` to the integer `text` names if it lies in [min, max]; otherwise the
// usage error "OPTION wants a number from MIN to MAX; got 'TEXT'" and its exit code.
template <class T>
std::optional<int> readIntegerOption(std::string_view option, std::string_view text, long long min, long long max,
                                     T& out) {
  std::optional<long long> n = parseInteger(text);
  if (!n || *n < min || *n > max)
    return usageError(std::string(option) + " wants a number from " + std::to_string(min) + " to " +
                      std::to_string(max) + "; got '" + std::string(text) + "'");
  out = static_cast<T>(*n);
  return std::nullopt;
}

}  // namespace kith::cli
