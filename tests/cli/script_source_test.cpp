#include "cli/script_source.h"

#include <gtest/gtest.h>

namespace kith::cli {
namespace {

TEST(ScriptSource, StandardInputGoesByItsName) {
  EXPECT_EQ(scriptName("-"), "<stdin>");
  EXPECT_EQ(scriptName("a/b.kith"), "a/b.kith");
}

TEST(ScriptSource, APathIsReadAsAFile) {
  std::string error;
  EXPECT_EQ(readScriptSource("/nonexistent/a.kith", error), std::nullopt);
  EXPECT_EQ(error, "No such file or directory");
}

}  // namespace
}  // namespace kith::cli
