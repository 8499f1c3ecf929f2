// The source line under an error, with a caret under its column, as clang, Rust and
// Python show it: what LANGUAGE.md allows after a compile error's `error:` line.
//     let a = 1 @ 2;
//               ^
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace kith::vm {

struct SourcePosition {
  int line;    // from 1
  int column;  // from 1, in bytes (a tab is one column)
};

// Two indented lines (the source line, the caret), or none when `at` is past the
// text or on an empty line. A long line is cut to a window around the column, with
// "..." where it was cut; tabs become spaces so the caret stays under its column.
std::vector<std::string> sourceExcerpt(std::string_view source, SourcePosition at);

}  // namespace kith::vm
