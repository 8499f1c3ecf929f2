// The source line under an error, with a caret under its column, as clang, Rust and
// Python show it: what LANGUAGE.md allows after a compile error's `error:` line.
//     let a = 1 @ 2;
//               ^
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace kith::vm {

struct SourcePosition {
  int line;    // from 1
  int column;  // from 1, in bytes (a tab is one column)
};

// A source's lines, for the excerpts of many errors: each line's start is found once,
// by one pass that goes only as far as the furthest line asked for, so excerpts of
// every line of a file cost the file's length, not its length per excerpt (100,000
// errors once took 25 s scanning from the start for each).
class SourceLines {
 public:
  explicit SourceLines(std::string_view source) : source_(source) {}

  // Two indented lines (the source line, the caret), or none when `at` is past the
  // text or on an empty line. A long line is cut to a window around the column, with
  // "..." where it was cut; tabs become spaces so the caret stays under its column.
  std::vector<std::string> excerpt(SourcePosition at);
  // The bytes looked at to find line starts so far: at most the source's length.
  std::size_t bytesScanned() const { return scanned_; }

 private:
  // The text of line `number` (from 1) without its newline, or nothing past the end.
  std::optional<std::string_view> line(int number);

  std::string_view source_;
  std::vector<std::size_t> starts_{0};  // the offsets of the lines found so far
  std::size_t scanned_ = 0;              // source_[0, scanned_) is indexed
};

// One excerpt (SourceLines::excerpt) of `source`.
std::vector<std::string> sourceExcerpt(std::string_view source, SourcePosition at);

}  // namespace kith::vm
