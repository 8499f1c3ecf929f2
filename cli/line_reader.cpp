#include "cli/line_reader.h"

#include <editline/readline.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>

#include "heap/adapters/shared_library.h"

namespace kith::cli {
namespace {

// libedit's functions, looked up when a session starts on a terminal, so that no
// other run loads libedit (and its libtinfo, libbsd, libmd); the header gives their
// types only.
struct Libedit {
  decltype(&::using_history) using_history = nullptr;
  decltype(&::readline) readline = nullptr;
  decltype(&::add_history) add_history = nullptr;
};

std::optional<Libedit> loadLibedit() {
  try {
    heap::SharedLibrary library("libedit.so.2", "line editing in kith repl", "libedit2");
    return Libedit{library.function<decltype(&::using_history)>("using_history"),
                   library.function<decltype(&::readline)>("readline"),
                   library.function<decltype(&::add_history)>("add_history")};
  } catch (const heap::LibraryUnavailable& e) {
    std::fprintf(stderr, "kith: %s; reading plain lines\n", e.what());
    return std::nullopt;
  }
}

const std::optional<Libedit>& libedit() {
  static const std::optional<Libedit> loaded = loadLibedit();
  return loaded;
}

}  // namespace

LineReader::LineReader() : interactive_(isatty(STDIN_FILENO) == 1) {
  if (interactive_ && libedit()) libedit()->using_history();
}

std::optional<std::string> LineReader::read(const char* prompt) {
  std::fflush(stdout);  // a script's print() output comes before the prompt
  if (!interactive_ || !libedit()) {
    if (interactive_) {  // a terminal without libedit: the prompt, and no editing
      std::fputs(prompt, stdout);
      std::fflush(stdout);
    }
    // C's getline, not <iostream>'s: including <iostream> gives the program a static
    // initialiser that builds the C++ locales at every start, REPL or not.
    char* raw = nullptr;
    std::size_t capacity = 0;
    ssize_t length = ::getline(&raw, &capacity, stdin);
    std::optional<std::string> line;
    if (length >= 0) {
      line.emplace(raw, static_cast<std::size_t>(length));
      if (line->ends_with('\n')) line->pop_back();
      if (line->ends_with('\r')) line->pop_back();
    }
    std::free(raw);
    return line;
  }
  char* raw = libedit()->readline(prompt);
  if (!raw) return std::nullopt;
  std::string line(raw);
  std::free(raw);
  if (line.find_first_not_of(" \t") != std::string::npos) libedit()->add_history(line.c_str());
  return line;
}

}  // namespace kith::cli
