#include "cli/byte_size.h"

#include "cli/usage_error.h"
#include "heap/byte_size.h"

namespace kith::cli {

using heap::readByteSize;
using heap::SizeReading;

std::optional<std::size_t> parseByteSize(std::string_view text) { return heap::parseByteSize(text); }

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
