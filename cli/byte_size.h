// Parses the CLI's SIZE arguments: "65536", "512K", "16M", "1G", "1T" (binary units),
// and reads an option that takes one (--heap-size of run, replay and bench contrived).
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>

namespace kith::cli {

// nullopt for anything malformed, zero, or too large for size_t.
std::optional<std::size_t> parseByteSize(std::string_view text);

// `bytes` in the largest binary unit it is a whole number of: "16K", "1M", "65537".
std::string byteSizeName(std::size_t bytes);

// Sets `out` to the size `text` names when it is at least `minimum` bytes; otherwise
// the usage error that says which of the three it is — not a size ("OPTION wants a
// size like 512K, ..."), more than 64 bits can count, or under the minimum (zero
// too: "OPTION must be at least 16K") — and its exit code.
std::optional<int> readSizeOption(std::string_view option, std::string_view text, std::size_t minimum,
                                  std::size_t& out);

}  // namespace kith::cli
