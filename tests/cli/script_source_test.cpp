#include "cli/script_source.h"

#include <gtest/gtest.h>

#include <cstdio>

namespace kith::cli {
namespace {

TEST(ScriptSource, StandardInputGoesByItsName) {
  EXPECT_EQ(scriptName("-"), "<stdin>");
  EXPECT_EQ(scriptName("a/b.kith"), "a/b.kith");
}

TEST(ScriptSource, AStreamIsReadWhole) {
  std::FILE* f = std::tmpfile();
  ASSERT_NE(f, nullptr);
  std::string text(200000, 'x');  // more than one read's buffer
  text += "\nprint(1);\n";
  std::fwrite(text.data(), 1, text.size(), f);
  std::rewind(f);
  std::string error;
  std::optional<std::string> read = readSourceStream(f, error);
  std::fclose(f);
  ASSERT_TRUE(read) << error;
  EXPECT_EQ(*read, text);
}

TEST(ScriptSource, AnUnreadableStreamGivesTheReason) {
  std::FILE* f = std::fopen("/dev/null", "w");  // open for writing only: reading fails
  ASSERT_NE(f, nullptr);
  std::string error;
  EXPECT_EQ(readSourceStream(f, error), std::nullopt);
  EXPECT_FALSE(error.empty());
  std::fclose(f);
}

TEST(ScriptSource, APathIsReadAsAFile) {
  std::string error;
  EXPECT_EQ(readScriptSource("/nonexistent/a.kith", error), std::nullopt);
  EXPECT_EQ(error, "No such file or directory");
}

}  // namespace
}  // namespace kith::cli
