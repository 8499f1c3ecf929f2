#include "vm/lexer.h"

#include <gtest/gtest.h>

#include <vector>

namespace kith::vm {
namespace {

std::vector<Token> lexAll(std::string_view source) {
  Lexer lexer(source);
  std::vector<Token> tokens;
  for (;;) {
    Token t = lexer.next();
    tokens.push_back(t);
    if (t.type == TokenType::eof) return tokens;
  }
}

std::vector<TokenType> types(std::string_view source) {
  std::vector<TokenType> out;
  for (const Token& t : lexAll(source)) out.push_back(t.type);
  return out;
}

TEST(Lexer, PunctuationAndOperators) {
  using T = TokenType;
  EXPECT_EQ(types("( ) { } [ ] , . ; - + / * %"),
            (std::vector<T>{T::leftParen, T::rightParen, T::leftBrace, T::rightBrace, T::leftBracket, T::rightBracket,
                            T::comma, T::dot, T::semicolon, T::minus, T::plus, T::slash, T::star, T::percent, T::eof}));
  EXPECT_EQ(types("! != = == < <= > >= << >> >>> & && | || ^ ~"),
            (std::vector<T>{T::bang, T::bangEqual, T::equal, T::equalEqual, T::less, T::lessEqual, T::greater,
                            T::greaterEqual, T::shiftLeft, T::shiftRight, T::shiftRightLogical, T::ampersand,
                            T::ampAmp, T::pipe, T::pipePipe, T::caret, T::tilde, T::eof}));
}

TEST(Lexer, KeywordsAndIdentifiers) {
  using T = TokenType;
  EXPECT_EQ(types("let fn class field new this super return if else while for in break continue"),
            (std::vector<T>{T::kwLet, T::kwFn, T::kwClass, T::kwField, T::kwNew, T::kwThis, T::kwSuper, T::kwReturn,
                            T::kwIf, T::kwElse, T::kwWhile, T::kwFor, T::kwIn, T::kwBreak, T::kwContinue, T::eof}));
  EXPECT_EQ(types("nil true false throw try catch and or not"),
            (std::vector<T>{T::kwNil, T::kwTrue, T::kwFalse, T::kwThrow, T::kwTry, T::kwCatch, T::kwAnd, T::kwOr,
                            T::kwNot, T::eof}));
  auto tokens = lexAll("lets _x1 Fn");
  ASSERT_EQ(tokens.size(), 4u);
  for (int i = 0; i < 3; ++i) EXPECT_EQ(tokens[i].type, T::identifier);
  EXPECT_EQ(tokens[1].text, "_x1");
}

TEST(Lexer, Numbers) {
  auto tokens = lexAll("123 0x1F 1_000_000 3.14 1e-9 2.5E3 7.");
  EXPECT_EQ(tokens[0].type, TokenType::integer);
  EXPECT_EQ(tokens[1].type, TokenType::integer);
  EXPECT_EQ(tokens[1].text, "0x1F");
  EXPECT_EQ(tokens[2].type, TokenType::integer);
  EXPECT_EQ(tokens[2].text, "1_000_000");
  EXPECT_EQ(tokens[3].type, TokenType::floating);
  EXPECT_EQ(tokens[4].type, TokenType::floating);
  EXPECT_EQ(tokens[5].type, TokenType::floating);
  EXPECT_EQ(tokens[6].type, TokenType::integer);  // "7." is 7 then a dot (7.foo is a property read)
  EXPECT_EQ(tokens[7].type, TokenType::dot);
}

TEST(Lexer, StringsAndComments) {
  auto tokens = lexAll("// line comment\n\"a\\\"b\" /* block\n comment */ x");
  ASSERT_EQ(tokens.size(), 3u);
  EXPECT_EQ(tokens[0].type, TokenType::string);
  EXPECT_EQ(tokens[0].text, "\"a\\\"b\"");
  EXPECT_EQ(tokens[0].line, 2);
  EXPECT_EQ(tokens[1].type, TokenType::identifier);
  EXPECT_EQ(tokens[1].line, 3);
  EXPECT_EQ(tokens[1].column, 13);
}

TEST(Lexer, LineAndColumn) {
  auto tokens = lexAll("let x\n  = 1;");
  EXPECT_EQ(tokens[0].line, 1);
  EXPECT_EQ(tokens[0].column, 1);
  EXPECT_EQ(tokens[1].column, 5);
  EXPECT_EQ(tokens[2].line, 2);
  EXPECT_EQ(tokens[2].column, 3);
}

TEST(Lexer, Errors) {
  auto unterminated = lexAll("\"abc\nx");
  EXPECT_EQ(unterminated[0].type, TokenType::error);
  EXPECT_EQ(unterminated[0].text, "unterminated string");
  auto comment = lexAll("/* never closed");
  EXPECT_EQ(comment[0].type, TokenType::error);
  EXPECT_EQ(comment[0].text, "unterminated block comment");
  auto bad = lexAll("@");
  EXPECT_EQ(bad[0].type, TokenType::error);
  EXPECT_EQ(bad[0].text, "unexpected character '@'");
  // A UTF-8 character is named by its code point and reported once, whole.
  auto accented = lexAll("\xC3\xA9 x");
  EXPECT_EQ(accented[0].text, "unexpected character U+00E9");
  EXPECT_EQ(accented[1].type, TokenType::identifier);
  EXPECT_EQ(lexAll("\xE2\x82\xAC")[0].text, "unexpected character U+20AC");
  EXPECT_EQ(lexAll("\xF0\x9F\x98\x80")[0].text, "unexpected character U+1F600");
  // What is not well-formed UTF-8 (a lone continuation, an overlong form, a cut
  // sequence, a surrogate) and control characters are named as bytes.
  EXPECT_EQ(lexAll("\x80")[0].text, "unexpected byte 0x80");
  EXPECT_EQ(lexAll("\xC0\xAF")[0].text, "unexpected byte 0xC0");
  EXPECT_EQ(lexAll("\xE2\x82")[0].text, "unexpected byte 0xE2");
  EXPECT_EQ(lexAll("\xED\xA0\x80")[0].text, "unexpected byte 0xED");
  EXPECT_EQ(lexAll("\x01")[0].text, "unexpected byte 0x01");
  EXPECT_EQ(lexAll("0x")[0].type, TokenType::error);
  EXPECT_EQ(lexAll("1e")[0].type, TokenType::error);
  EXPECT_EQ(lexAll("12abc")[0].type, TokenType::error);
}

TEST(Lexer, SkipsAByteOrderMarkAtTheStartOnly) {
  auto marked = lexAll("\xEF\xBB\xBFlet");
  EXPECT_EQ(marked[0].type, TokenType::kwLet);
  EXPECT_EQ(marked[0].line, 1);
  EXPECT_EQ(marked[0].column, 1);
  EXPECT_EQ(lexAll("let \xEF\xBB\xBF")[1].text, "unexpected character U+FEFF");
}

}  // namespace
}  // namespace kith::vm
