// Lexer: turns source text into tokens on demand (clox's scanner). Tokens point
// into the source; the compiler asks for one token at a time, so there is no token
// buffer beyond the one-token lookahead it keeps itself.
#pragma once

#include <cstdint>
#include <string_view>

namespace kith::vm {

enum class TokenType : std::uint8_t {
  // punctuation
  leftParen, rightParen, leftBrace, rightBrace, leftBracket, rightBracket,
  comma, dot, semicolon, minus, plus, slash, star, percent,
  bang, bangEqual, equal, equalEqual, less, lessEqual, greater, greaterEqual,
  shiftLeft, shiftRight, shiftRightLogical, ampersand, ampAmp, pipe, pipePipe, caret, tilde,
  // literals
  identifier, string, integer, floating,
  // keywords
  kwLet, kwFn, kwClass, kwField, kwNew, kwThis, kwSuper, kwReturn, kwIf, kwElse, kwWhile,
  kwFor, kwIn, kwBreak, kwContinue, kwNil, kwTrue, kwFalse, kwThrow, kwTry, kwCatch,
  kwAnd, kwOr, kwNot, kwImport,
  error, eof,
};

const char* tokenTypeName(TokenType type);

struct Token {
  TokenType type = TokenType::eof;
  std::string_view text;  // the lexeme; for `error` tokens, the message
  int line = 1;
  int column = 1;
};

class Lexer {
 public:
  // A UTF-8 byte-order mark at the start is skipped.
  explicit Lexer(std::string_view source);
  Token next();

 private:
  bool atEnd() const { return pos_ >= source_.size(); }
  char peek(std::size_t ahead = 0) const {
    return pos_ + ahead < source_.size() ? source_[pos_ + ahead] : '\0';
  }
  char advance();
  Token make(TokenType type) const;
  Token errorToken(std::string_view message) const;
  // Skips whitespace and comments; an unterminated block comment is an error token.
  bool skipTrivia(Token& error);
  Token number();
  Token string();
  Token identifier();

  std::string_view source_;
  std::size_t pos_ = 0;
  std::size_t start_ = 0;
  int line_ = 1;
  int column_ = 1;
  int startLine_ = 1;
  int startColumn_ = 1;
};

}  // namespace kith::vm
