#include "cli/repl_input.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

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

// The lines one at a time; how many times the scanner let the input reach the compiler.
int compilesFor(const std::vector<std::string>& lines, InputScanner& scanner) {
  int compiles = 0;
  for (const std::string& line : lines) {
    scanner.addLine(line);
    compiles += scanner.mayBeComplete();
  }
  return compiles;
}

// A paste of a long function reaches the compiler once, at its closing brace: reading
// it is linear in its length (issue 40: a 2,000-line function was compiled up to three
// times at each of its lines).
TEST(InputScanner, ALongFunctionIsCompiledOnceAtItsEnd) {
  std::vector<std::string> lines = {"fn sum() {", "  let total = 0;"};
  for (int i = 0; i < 20000; ++i) lines.push_back("  if (total > " + std::to_string(i) + ") { total = (total + [1, 2][0]); }");
  lines.push_back("  return total;");
  InputScanner scanner;
  EXPECT_EQ(compilesFor(lines, scanner), 0);
  scanner.addLine("}");
  EXPECT_TRUE(scanner.mayBeComplete());
  EXPECT_TRUE(scanner.balanced());
}

TEST(InputScanner, ALineEndingInAnOperatorOrKeywordWantsMore) {
  for (const char* line : {"let s = 1 +", "f(a,", "x.", "let y =", "a and", "if (x) print(1); else", "return not"}) {
    InputScanner scanner;
    scanner.addLine(line);
    EXPECT_FALSE(scanner.mayBeComplete()) << line;
  }
  for (const char* line : {"1 + 2", "let x = 40", "f(x);", "}", "return", "s // trailing +", "\"ends in +\""}) {
    InputScanner scanner;
    scanner.addLine(line);
    EXPECT_TRUE(scanner.mayBeComplete()) << line;
  }
}

TEST(InputScanner, BracketsInStringsAndCommentsDoNotCount) {
  InputScanner scanner;
  scanner.addLine("let s = \"({[\\\"\"; // ({[");
  EXPECT_TRUE(scanner.mayBeComplete());
  scanner.addLine("let t = /* ( */ 1;");
  EXPECT_TRUE(scanner.mayBeComplete());
}

TEST(InputScanner, ABlockCommentSpansLines) {
  InputScanner scanner;
  scanner.addLine("1 /* a comment { (");
  EXPECT_FALSE(scanner.mayBeComplete());
  scanner.addLine("   still a comment ] ) */ + 2");
  EXPECT_TRUE(scanner.mayBeComplete());
  EXPECT_TRUE(scanner.balanced());
}

TEST(InputScanner, AnUnterminatedStringEndsAtItsLine) {
  InputScanner scanner;
  scanner.addLine("print(\"no end);");  // the lexer's error, at once, though '(' is open
  EXPECT_TRUE(scanner.mayBeComplete());
}

TEST(InputScanner, AStrayClosingBracketIsForTheCompiler) {
  InputScanner scanner;
  scanner.addLine("1) + (2");
  EXPECT_FALSE(scanner.mayBeComplete());
  scanner.addLine(")");
  EXPECT_TRUE(scanner.mayBeComplete());
  EXPECT_FALSE(scanner.balanced());  // so the value form is not tried: its ')' would close early
  scanner.reset();
  EXPECT_TRUE(scanner.balanced());
}

}  // namespace
}  // namespace kith::cli
