// One UTF-8 character at the start of some bytes, decoded as RFC 3629 defines a
// well-formed one: no overlong forms, no surrogates, nothing past U+10FFFF. Kith
// source is bytes; what reads characters (the lexer's error messages, the caret
// under a compile error) agrees on which bytes form one through this.
#pragma once

#include <cstddef>
#include <optional>
#include <string_view>

namespace kith::vm {

struct Utf8Character {
  char32_t code;
  std::size_t length;  // bytes, 1 to 4
};

inline std::optional<Utf8Character> decodeUtf8(std::string_view bytes) {
  if (bytes.empty()) return std::nullopt;
  auto byte = [&](std::size_t i) { return static_cast<unsigned char>(bytes[i]); };
  unsigned char lead = byte(0);
  if (lead < 0x80) return Utf8Character{lead, 1};
  std::size_t length = lead >= 0xc2 && lead < 0xe0 ? 2 : lead >= 0xe0 && lead < 0xf0 ? 3
                     : lead >= 0xf0 && lead < 0xf5 ? 4 : 0;
  if (length == 0 || bytes.size() < length) return std::nullopt;
  char32_t code = length == 2 ? lead & 0x1f : length == 3 ? lead & 0x0f : lead & 0x07;
  for (std::size_t i = 1; i < length; ++i) {
    if ((byte(i) & 0xc0) != 0x80) return std::nullopt;
    code = (code << 6) | (byte(i) & 0x3f);
  }
  if (length == 3 && (code < 0x800 || (code >= 0xd800 && code < 0xe000))) return std::nullopt;
  if (length == 4 && (code < 0x10000 || code > 0x10ffff)) return std::nullopt;
  return Utf8Character{code, length};
}

}  // namespace kith::vm
