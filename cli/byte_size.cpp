#include "cli/byte_size.h"

#include <cctype>
#include <limits>

namespace kith::cli {

std::optional<std::size_t> parseByteSize(std::string_view text) {
  if (text.empty()) return std::nullopt;
  unsigned shift = 0;
  switch (std::toupper(static_cast<unsigned char>(text.back()))) {
    case 'K': shift = 10; break;
    case 'M': shift = 20; break;
    case 'G': shift = 30; break;
    case 'T': shift = 40; break;
    default: break;
  }
  if (shift) text.remove_suffix(1);
  if (text.empty()) return std::nullopt;
  std::size_t value = 0;
  for (char c : text) {
    if (c < '0' || c > '9') return std::nullopt;
    if (value > (std::numeric_limits<std::size_t>::max() - 9) / 10) return std::nullopt;
    value = value * 10 + static_cast<std::size_t>(c - '0');
  }
  if (value == 0 || value > (std::numeric_limits<std::size_t>::max() >> shift)) return std::nullopt;
  return value << shift;
}

}  // namespace kith::cli
