#include "cli/repl_input.h"

#include <gtest/gtest.h>

namespace kith::cli {
namespace {

TEST(ValueForm, AssignsTheExpressionToTheValueGlobal) {
  EXPECT_EQ(valueForm("1 + 2"), std::string(kReplValueGlobal) + " = (1 + 2\n);");
}

TEST(ValueForm, DropsOneTrailingSemicolonAndTheBlankAroundIt) {
  EXPECT_EQ(valueForm("  f(x) ;  \n"), std::string(kReplValueGlobal) + " = (f(x)\n);");
}

TEST(ValueForm, KeepsATrailingCommentOffTheClosingParenthesis) {
  EXPECT_EQ(valueForm("x // why"), std::string(kReplValueGlobal) + " = (x // why\n);");
}

TEST(ValueForm, BlankInputHasNoValue) {
  EXPECT_EQ(valueForm(""), "");
  EXPECT_EQ(valueForm(" ; \n"), "");
}

TEST(OnlyEndOfInputErrors, AnUnclosedBlockIsUnfinished) {
  EXPECT_TRUE(onlyEndOfInputErrors({"<repl>:2:1: error: expected '}' after the block, found end of file",
                                    "<repl>:2:1: error: expected an expression, found end of file"}));
}

TEST(OnlyEndOfInputErrors, AnyOtherErrorMakesTheInputWrong) {
  EXPECT_FALSE(onlyEndOfInputErrors({"<repl>:1:3: error: expected an expression, found ')'",
                                     "<repl>:2:1: error: expected '}' after the block, found end of file"}));
}

TEST(OnlyEndOfInputErrors, NoErrorsIsNotUnfinished) { EXPECT_FALSE(onlyEndOfInputErrors({})); }

TEST(IsExitCommand, TheWordAloneWithOrWithoutSemicolon) {
  EXPECT_TRUE(isExitCommand("exit"));
  EXPECT_TRUE(isExitCommand("  exit; "));
  EXPECT_FALSE(isExitCommand("exit()"));
  EXPECT_FALSE(isExitCommand("let exit = 1;"));
}

}  // namespace
}  // namespace kith::cli
