#include "vm/lexer.h"

#include <cstdio>
#include <mutex>
#include <string>
#include <unordered_set>

#include "vm/utf8.h"

namespace kith::vm {

namespace {

// The character at `bytes`, for an error message: "character 'c'" for printable
// ASCII, "character U+XXXX" for a well-formed UTF-8 sequence (whose length goes to
// `length`, so the rest of it is not reported again), else "byte 0xXX".
std::string describeCharacter(std::string_view bytes, std::size_t* length) {
  auto lead = static_cast<unsigned char>(bytes[0]);
  char text[32];
  *length = 1;
  if (lead >= 0x21 && lead < 0x7f) {
    std::snprintf(text, sizeof text, "character '%c'", lead);
    return text;
  }
  std::optional<Utf8Character> character = decodeUtf8(bytes);
  if (!character || character->length == 1) {
    std::snprintf(text, sizeof text, "byte 0x%02X", lead);
    return text;
  }
  *length = character->length;
  std::snprintf(text, sizeof text, "character U+%04X", static_cast<unsigned>(character->code));
  return text;
}

// Token text is a string_view: messages made at run time are kept here, each once.
std::string_view internMessage(std::string message) {
  static std::mutex mutex;
  static std::unordered_set<std::string> messages;
  std::lock_guard<std::mutex> lock(mutex);
  return *messages.insert(std::move(message)).first;
}

}  // namespace

const char* tokenTypeName(TokenType type) {
  static constexpr const char* names[] = {
      "(", ")", "{", "}", "[", "]", ",", ".", ";", "-", "+", "/", "*", "%",
      "!", "!=", "=", "==", "<", "<=", ">", ">=", "<<", ">>", ">>>", "&", "&&", "|", "||", "^", "~",
      "identifier", "string", "integer", "float",
      "let", "fn", "class", "field", "new", "this", "super", "return", "if", "else", "while",
      "for", "in", "break", "continue", "nil", "true", "false", "throw", "try", "catch",
      "and", "or", "not", "import", "error", "end of file"};
  return names[static_cast<int>(type)];
}

char Lexer::advance() {
  char c = source_[pos_++];
  if (c == '\n') {
    ++line_;
    column_ = 1;
  } else {
    ++column_;
  }
  return c;
}

Token Lexer::make(TokenType type) const {
  return Token{type, source_.substr(start_, pos_ - start_), startLine_, startColumn_};
}

Lexer::Lexer(std::string_view source) : source_(source) {
  // A UTF-8 byte-order mark, which some editors write at the start of a file, is no
  // source text.
  if (source_.substr(0, 3) == "\xEF\xBB\xBF") pos_ = 3;
}

Token Lexer::errorToken(std::string_view message) const {
  return Token{TokenType::error, message, startLine_, startColumn_};
}

bool Lexer::skipTrivia(Token& error) {
  for (;;) {
    char c = peek();
    if (c == ' ' || c == '\t' || c == '\r' || c == '\n') {
      advance();
    } else if (c == '/' && peek(1) == '/') {
      while (!atEnd() && peek() != '\n') advance();
    } else if (c == '/' && peek(1) == '*') {
      start_ = pos_;
      startLine_ = line_;
      startColumn_ = column_;
      advance();
      advance();
      while (!(peek() == '*' && peek(1) == '/')) {
        if (atEnd()) {
          error = errorToken("unterminated block comment");
          return false;
        }
        advance();
      }
      advance();
      advance();
    } else {
      return true;
    }
  }
}

namespace {
bool isDigit(char c) { return c >= '0' && c <= '9'; }
bool isHexDigit(char c) { return isDigit(c) || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F'); }
bool isAlpha(char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_'; }
}  // namespace

Token Lexer::number() {
  // The first digit has been consumed. Underscores are kept in the lexeme; the
  // compiler drops them when it converts.
  if (source_[start_] == '0' && (peek() == 'x' || peek() == 'X')) {
    advance();
    if (!isHexDigit(peek())) return errorToken("hexadecimal literal needs digits after '0x'");
    while (isHexDigit(peek()) || peek() == '_') advance();
    if (isAlpha(peek())) return errorToken("invalid character in number literal");
    return make(TokenType::integer);
  }
  bool isFloat = false;
  while (isDigit(peek()) || peek() == '_') advance();
  if (peek() == '.' && isDigit(peek(1))) {
    isFloat = true;
    advance();
    while (isDigit(peek()) || peek() == '_') advance();
  }
  if (peek() == 'e' || peek() == 'E') {
    std::size_t sign = (peek(1) == '+' || peek(1) == '-') ? 1 : 0;
    if (isDigit(peek(1 + sign))) {
      isFloat = true;
      advance();
      if (sign) advance();
      while (isDigit(peek()) || peek() == '_') advance();
    } else {
      return errorToken("exponent needs digits");
    }
  }
  if (isAlpha(peek())) return errorToken("invalid character in number literal");
  return make(isFloat ? TokenType::floating : TokenType::integer);
}

Token Lexer::string() {
  // Escapes are checked by the compiler when it decodes the literal; here we only
  // find the closing quote (skipping escaped quotes) on the same line.
  while (peek() != '"') {
    if (atEnd() || peek() == '\n') return errorToken("unterminated string");
    if (peek() == '\\' && (peek(1) == '"' || peek(1) == '\\')) advance();
    advance();
  }
  advance();
  return make(TokenType::string);
}

Token Lexer::identifier() {
  while (isAlpha(peek()) || isDigit(peek())) advance();
  std::string_view text = source_.substr(start_, pos_ - start_);
  struct Keyword {
    std::string_view word;
    TokenType type;
  };
  static constexpr Keyword keywords[] = {
      {"let", TokenType::kwLet},       {"fn", TokenType::kwFn},         {"class", TokenType::kwClass},
      {"field", TokenType::kwField},   {"new", TokenType::kwNew},       {"this", TokenType::kwThis},
      {"super", TokenType::kwSuper},   {"return", TokenType::kwReturn}, {"if", TokenType::kwIf},
      {"else", TokenType::kwElse},     {"while", TokenType::kwWhile},   {"for", TokenType::kwFor},
      {"in", TokenType::kwIn},         {"break", TokenType::kwBreak},   {"continue", TokenType::kwContinue},
      {"nil", TokenType::kwNil},       {"true", TokenType::kwTrue},     {"false", TokenType::kwFalse},
      {"throw", TokenType::kwThrow},   {"try", TokenType::kwTry},       {"catch", TokenType::kwCatch},
      {"and", TokenType::kwAnd},       {"or", TokenType::kwOr},         {"not", TokenType::kwNot},
      {"import", TokenType::kwImport},
  };
  for (const Keyword& k : keywords)
    if (k.word == text) return make(k.type);
  return make(TokenType::identifier);
}

Token Lexer::next() {
  Token error;
  if (!skipTrivia(error)) return error;
  start_ = pos_;
  startLine_ = line_;
  startColumn_ = column_;
  if (atEnd()) return make(TokenType::eof);
  char c = advance();
  if (isAlpha(c)) return identifier();
  if (isDigit(c)) return number();
  auto match = [&](char expected) {
    if (peek() != expected) return false;
    advance();
    return true;
  };
  switch (c) {
    case '(': return make(TokenType::leftParen);
    case ')': return make(TokenType::rightParen);
    case '{': return make(TokenType::leftBrace);
    case '}': return make(TokenType::rightBrace);
    case '[': return make(TokenType::leftBracket);
    case ']': return make(TokenType::rightBracket);
    case ',': return make(TokenType::comma);
    case '.': return make(TokenType::dot);
    case ';': return make(TokenType::semicolon);
    case '-': return make(TokenType::minus);
    case '+': return make(TokenType::plus);
    case '/': return make(TokenType::slash);
    case '*': return make(TokenType::star);
    case '%': return make(TokenType::percent);
    case '^': return make(TokenType::caret);
    case '~': return make(TokenType::tilde);
    case '!': return make(match('=') ? TokenType::bangEqual : TokenType::bang);
    case '=': return make(match('=') ? TokenType::equalEqual : TokenType::equal);
    case '&': return make(match('&') ? TokenType::ampAmp : TokenType::ampersand);
    case '|': return make(match('|') ? TokenType::pipePipe : TokenType::pipe);
    case '<':
      if (match('<')) return make(TokenType::shiftLeft);
      return make(match('=') ? TokenType::lessEqual : TokenType::less);
    case '>':
      if (match('>')) return make(match('>') ? TokenType::shiftRightLogical : TokenType::shiftRight);
      return make(match('=') ? TokenType::greaterEqual : TokenType::greater);
    case '"': return string();
    default: break;
  }
  std::size_t length;
  std::string character = describeCharacter(source_.substr(start_), &length);
  for (std::size_t i = 1; i < length; ++i) advance();
  return errorToken(internMessage("unexpected " + character));
}

}  // namespace kith::vm
