#include "cli/byte_size.h"

#include <cctype>
#include <limits>

#include "cli/usage_error.h"

namespace kith::cli {

namespace {

enum class SizeReading { size, malformed, tooLarge };

// The size `text` names (zero included) in `value`, or why it names none.
SizeReading readByteSize(std::string_view text, std::size_t& value) {
  if (text.empty()) return SizeReading::malformed;
  unsigned shift = 0;
  switch (std::toupper(static_cast<unsigned char>(text.back()))) {
    case 'K': shift = 10; break;
    case 'M': shift = 20; break;
    case 'G': shift = 30; break;
    case 'T': shift = 40; break;
    default: break;
  }
  if (shift) text.remove_suffix(1);
  if (text.empty()) return SizeReading::malformed;
  for (char c : text)
    if (c < '0' || c > '9') return SizeReading::malformed;
  value = 0;
  for (char c : text) {
    if (value > (std::numeric_limits<std::size_t>::max() - 9) / 10) return SizeReading::tooLarge;
    value = value * 10 + static_cast<std::size_t>(c - '0');
  }
  if (value > (std::numeric_limits<std::size_t>::max() >> shift)) return SizeReading::tooLarge;
  value <<= shift;
  return SizeReading::size;
}

}  // namespace

std::optional<std::size_t> parseByteSize(std::string_view text) {
  std::size_t value = 0;
  if (readByteSize(text, value) != SizeReading::size || value == 0) return std::nullopt;
  return value;
}

std::string byteSizeName(std::size_t bytes) {
  static constexpr struct {
    unsigned shift;
    char unit;
  } kUnits[] = {{40, 'T'}, {30, 'G'}, {20, 'M'}, {10, 'K'}};
  for (const auto& u : kUnits)
    if (bytes != 0 && bytes % (std::size_t{1} << u.shift) == 0) return std::to_string(bytes >> u.shift) + u.unit;
  return std::to_string(bytes);
}

std::optional<int> readSizeOption(std::string_view option, std::string_view text, std::size_t minimum,
                                  std::size_t& out) {
  const std::string got = "; got '" + std::string(text) + "'";
  std::size_t value = 0;
  switch (readByteSize(text, value)) {
    case SizeReading::malformed:
      return usageError(std::string(option) + " wants a size like 512K, 64M, 2G or 1T" + got);
    case SizeReading::tooLarge:
      return usageError(std::string(option) + " is too large: '" + std::string(text) +
                        "' is more than 2^64 - 1 bytes");
    case SizeReading::size: break;
  }
  if (value < minimum) return usageError(std::string(option) + " must be at least " + byteSizeName(minimum) + got);
  out = value;
  return std::nullopt;
}

}  // namespace kith::cli
