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

}  // namespace kith::cli
