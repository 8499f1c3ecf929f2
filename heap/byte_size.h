// A size as Kith's options and environment variables spell it: "65536", "512K", "16M",
// "1G", "1T" (binary units, either case). One reader for the command line (cli/byte_size.h,
// which adds the messages) and for libkith_malloc.so's KITH_HEAP_SIZE (preload/), which
// may not reach up into cli/. Allocates nothing: the preloaded library reads it while it
// is becoming the program's malloc.
#pragma once

#include <cstddef>
#include <limits>
#include <optional>
#include <string_view>

namespace kith::heap {

enum class SizeReading { size, malformed, tooLarge };

// The size `text` names (zero included) in `value`, or why it names none.
inline SizeReading readByteSize(std::string_view text, std::size_t& value) {
  if (text.empty()) return SizeReading::malformed;
  unsigned shift = 0;
  switch (text.back()) {
    case 'K': case 'k': shift = 10; break;
    case 'M': case 'm': shift = 20; break;
    case 'G': case 'g': shift = 30; break;
    case 'T': case 't': shift = 40; break;
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

// nullopt for anything malformed, zero, or too large for size_t.
inline std::optional<std::size_t> parseByteSize(std::string_view text) {
  std::size_t value = 0;
  if (readByteSize(text, value) != SizeReading::size || value == 0) return std::nullopt;
  return value;
}

}  // namespace kith::heap
