#include "cli/line_reader.h"

#include <editline/readline.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <iostream>

namespace kith::cli {

LineReader::LineReader() : interactive_(isatty(STDIN_FILENO) == 1) {
  if (interactive_) using_history();
}

std::optional<std::string> LineReader::read(const char* prompt) {
  std::fflush(stdout);  // a script's print() output comes before the prompt
  if (!interactive_) {
    std::string line;
    if (!std::getline(std::cin, line)) return std::nullopt;
    if (line.ends_with('\r')) line.pop_back();
    return line;
  }
  char* raw = readline(prompt);
  if (!raw) return std::nullopt;
  std::string line(raw);
  std::free(raw);
  if (line.find_first_not_of(" \t") != std::string::npos) add_history(line.c_str());
  return line;
}

}  // namespace kith::cli
