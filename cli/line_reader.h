// The lines `kith repl` reads: on a terminal through libedit (line editing, and a
// history of the session's lines on the arrow keys), otherwise plain lines from
// standard input with no prompt, so a session can be scripted and tested.
#pragma once

#include <optional>
#include <string>

namespace kith::cli {

class LineReader {
 public:
  LineReader();

  // Whether standard input is a terminal (the prompts and line editing are shown).
  bool interactive() const { return interactive_; }

  // The next line without its newline; nullopt at end of input (Ctrl-D on a terminal).
  std::optional<std::string> read(const char* prompt);

 private:
  bool interactive_;
};

}  // namespace kith::cli
