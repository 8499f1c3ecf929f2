// Parses the CLI's SIZE arguments: "65536", "512K", "16M", "1G", "1T" (binary units).
#pragma once

#include <cstddef>
#include <optional>
#include <string_view>

namespace kith::cli {

// nullopt for anything malformed, zero, or too large for size_t.
std::optional<std::size_t> parseByteSize(std::string_view text);

}  // namespace kith::cli
