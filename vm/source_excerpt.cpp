#include "vm/source_excerpt.h"

#include <algorithm>

#include "vm/utf8.h"

namespace kith::vm {

namespace {

constexpr std::size_t kHalfWindow = 60;  // columns shown each side of a long line's caret
constexpr const char* kIndent = "    ";

bool isContinuation(char c) { return (static_cast<unsigned char>(c) & 0xc0) == 0x80; }

bool validUtf8(std::string_view text) {
  for (std::size_t i = 0; i < text.size();) {
    std::optional<Utf8Character> character = decodeUtf8(text.substr(i));
    if (!character) return false;
    i += character->length;
  }
  return true;
}

}  // namespace

std::optional<std::string_view> SourceLines::line(int number) {
  const auto index = static_cast<std::size_t>(number - 1);
  while (starts_.size() <= index + 1 && scanned_ < source_.size()) {
    std::size_t newline = source_.find('\n', scanned_);
    scanned_ = newline == std::string_view::npos ? source_.size() : newline + 1;
    if (newline != std::string_view::npos) starts_.push_back(scanned_);
  }
  if (index >= starts_.size()) return std::nullopt;
  std::size_t start = starts_[index];
  std::size_t end = index + 1 < starts_.size() ? starts_[index + 1] - 1 : source_.size();
  return source_.substr(start, end - start);
}

std::vector<std::string> sourceExcerpt(std::string_view source, SourcePosition at) {
  return SourceLines(source).excerpt(at);
}

std::vector<std::string> SourceLines::excerpt(SourcePosition at) {
  if (at.line < 1 || at.column < 1) return {};
  std::optional<std::string_view> found = line(at.line);
  if (!found) return {};
  std::string_view text = *found;
  if (!text.empty() && text.back() == '\r') text.remove_suffix(1);
  if (text.find_first_not_of(" \t") == std::string_view::npos) return {};
  std::size_t caret = std::min(static_cast<std::size_t>(at.column - 1), text.size());
  std::size_t from = caret > kHalfWindow ? caret - kHalfWindow : 0;
  std::size_t to = std::min(text.size(), caret + kHalfWindow);
  std::string shown = std::string(from > 0 ? "..." : "") + std::string(text.substr(from, to - from)) +
                      (to < text.size() ? "..." : "");
  std::size_t caretByte = caret - from + (from > 0 ? 3 : 0);
  // The caret goes under the character: in UTF-8 text a character's continuation
  // bytes take no column; bytes that are no UTF-8 show as '?', one column each.
  std::size_t caretColumn = caretByte;
  if (validUtf8(shown))
    caretColumn = static_cast<std::size_t>(
        std::count_if(shown.begin(), shown.begin() + static_cast<std::ptrdiff_t>(caretByte),
                      [](char c) { return !isContinuation(c); }));
  else
    for (char& c : shown)
      if (static_cast<unsigned char>(c) >= 0x80) c = '?';
  for (char& c : shown)
    if (c == '\t' || static_cast<unsigned char>(c) < 0x20 || c == 0x7f) c = ' ';
  return {kIndent + shown, kIndent + std::string(caretColumn, ' ') + "^"};
}

}  // namespace kith::vm
