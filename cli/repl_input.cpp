#include "cli/repl_input.h"

namespace kith::cli {

namespace {

constexpr std::string_view kBlank = " \t\r\n";

std::string_view trimmed(std::string_view s) {
  std::size_t begin = s.find_first_not_of(kBlank);
  if (begin == std::string_view::npos) return {};
  return s.substr(begin, s.find_last_not_of(kBlank) - begin + 1);
}

}  // namespace

std::string valueForm(std::string_view input) {
  std::string_view expression = trimmed(input);
  if (expression.ends_with(';')) expression = trimmed(expression.substr(0, expression.size() - 1));
  if (expression.empty()) return "";
  std::string form(kReplValueGlobal);
  form += " = (";
  form += expression;
  form += "\n);";
  return form;
}

bool onlyEndOfInputErrors(const std::vector<std::string>& errors) {
  if (errors.empty()) return false;
  for (const std::string& e : errors)
    if (e.find("found end of file") == std::string::npos) return false;
  return true;
}

bool isExitCommand(std::string_view line) {
  std::string_view word = trimmed(line);
  return word == "exit" || word == "exit;";
}

namespace {

bool isWordCharacter(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_';
}

// Keywords after which a statement cannot end (`return` and `break` can).
bool keywordWantsMore(std::string_view word) {
  static constexpr std::string_view kWords[] = {"and", "or", "not", "else", "in", "new", "let", "fn", "class",
                                                "field", "import", "throw", "if", "while", "for", "try", "catch"};
  for (std::string_view k : kWords)
    if (word == k) return true;
  return false;
}

}  // namespace

void InputScanner::endWord(std::string_view word) { wantsMore_ = keywordWantsMore(word); }

void InputScanner::addLine(std::string_view line) {
  std::size_t i = 0;
  auto at = [&](std::size_t k) { return k < line.size() ? line[k] : '\0'; };
  while (i < line.size()) {
    if (inBlockComment_) {
      std::size_t end = line.find("*/", i);
      if (end == std::string_view::npos) return;
      inBlockComment_ = false;
      i = end + 2;
      continue;
    }
    char c = line[i];
    if (c == ' ' || c == '\t' || c == '\r') {
      ++i;
    } else if (c == '/' && at(i + 1) == '/') {
      return;  // the rest of the line
    } else if (c == '/' && at(i + 1) == '*') {
      inBlockComment_ = true;
      i += 2;
    } else if (c == '"') {  // to the closing quote, or the end of the line (the lexer's error)
      for (++i; i < line.size() && line[i] != '"'; ++i)
        if (line[i] == '\\' && (at(i + 1) == '"' || at(i + 1) == '\\')) ++i;
      if (i >= line.size()) unterminatedString_ = true;
      ++i;
      wantsMore_ = false;
    } else if (isWordCharacter(c)) {
      std::size_t begin = i;
      while (i < line.size() && isWordCharacter(line[i])) ++i;
      endWord(line.substr(begin, i - begin));
    } else {
      if (c == '(' || c == '[' || c == '{') ++depth_;
      if (c == ')' || c == ']' || c == '}') {
        if (depth_ == 0) closedUnopened_ = true;
        else --depth_;
      }
      wantsMore_ = !(c == ')' || c == ']' || c == '}' || c == ';');  // an operator, ',' or '.'
      ++i;
    }
  }
}

}  // namespace kith::cli
