// The source line and caret under a compile error.
#include "vm/source_excerpt.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace kith::vm {
namespace {

using Lines = std::vector<std::string>;

TEST(SourceExcerpt, TheLineWithACaretUnderTheColumn) {
  EXPECT_EQ(sourceExcerpt("let a = 1;\nlet b = 1 @ 2;\n", {2, 11}), (Lines{"    let b = 1 @ 2;", "              ^"}));
  EXPECT_EQ(sourceExcerpt("x", {1, 1}), (Lines{"    x", "    ^"}));
  // The column just past the end (a missing ';' at end of line).
  EXPECT_EQ(sourceExcerpt("let a = 1", {1, 10}), (Lines{"    let a = 1", "             ^"}));
}

TEST(SourceExcerpt, NothingPastTheTextOrOnABlankLine) {
  EXPECT_TRUE(sourceExcerpt("let a;\n", {2, 1}).empty());
  EXPECT_TRUE(sourceExcerpt("let a;\n", {5, 1}).empty());
  EXPECT_TRUE(sourceExcerpt("\n   \t\n", {2, 2}).empty());
  EXPECT_TRUE(sourceExcerpt("let a;", {0, 1}).empty());
}

TEST(SourceExcerpt, TabsAndControlCharactersKeepTheCaretAligned) {
  EXPECT_EQ(sourceExcerpt("\tlet x = ;\r\n", {1, 10}), (Lines{"     let x = ;", "             ^"}));
}

TEST(SourceExcerpt, TheCaretCountsCharactersNotBytesInUtf8) {
  EXPECT_EQ(sourceExcerpt("s = \"\xC3\xA9\xC3\xA9\" + ;", {1, 13}),
            (Lines{"    s = \"\xC3\xA9\xC3\xA9\" + ;", "              ^"}));
  // Bytes that are no UTF-8 show as '?', one column each.
  EXPECT_EQ(sourceExcerpt("a = \xFF;", {1, 5}), (Lines{"    a = ?;", "        ^"}));
}

TEST(SourceExcerpt, ALongLineIsCutAroundTheColumn) {
  std::string line = std::string(500, 'a') + "@" + std::string(500, 'b');
  Lines excerpt = sourceExcerpt(line, {1, 501});
  ASSERT_EQ(excerpt.size(), 2u);
  EXPECT_EQ(excerpt[0], "    ..." + std::string(60, 'a') + "@" + std::string(59, 'b') + "...");
  EXPECT_EQ(excerpt[1], "    " + std::string(63, ' ') + "^");
}

// The excerpts of every line of a 100,000-line file look at each byte once, in
// whatever order they are asked for (one scan from the start per excerpt was
// quadratic: 25 s for 100,000 errors).
TEST(SourceLines, ExcerptsOfEveryLineScanTheSourceOnce) {
  std::string source;
  for (int i = 0; i < 100000; ++i) source += "let = " + std::to_string(i) + ";\n";
  SourceLines lines(source);
  EXPECT_EQ(lines.bytesScanned(), 0u);
  EXPECT_EQ(lines.excerpt({3, 5}), (Lines{"    let = 2;", "        ^"}));
  EXPECT_LT(lines.bytesScanned(), 100u);  // only as far as line 3's end
  for (int line = 100000; line >= 1; line -= 7) EXPECT_EQ(lines.excerpt({line, 1}).size(), 2u);
  for (int line = 1; line <= 100000; ++line) lines.excerpt({line, 5});
  EXPECT_EQ(lines.excerpt({100000, 5})[0], "    let = 99999;");
  EXPECT_TRUE(lines.excerpt({100001, 1}).empty());
  EXPECT_EQ(lines.bytesScanned(), source.size());
}

TEST(SourceLines, TheLastLineNeedsNoNewline) {
  SourceLines lines("a;\nb = ;");
  EXPECT_EQ(lines.excerpt({2, 5}), (Lines{"    b = ;", "        ^"}));
  EXPECT_EQ(lines.excerpt({1, 1}), (Lines{"    a;", "    ^"}));
  EXPECT_TRUE(lines.excerpt({3, 1}).empty());
}

}  // namespace
}  // namespace kith::vm
