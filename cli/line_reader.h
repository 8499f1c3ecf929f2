// The lines `kith repl` reads: on a terminal through libedit (line editing, and a
// history of the session's lines on the arrow keys), otherwise plain lines from
// standard input with no prompt, so a session can be scripted and tested. A line is
// held to kMaxLineBytes, as `kith run -` holds a script, and a failed read is told
// apart from the end of the input.
#pragma once

#include <cstddef>
#include <string>

#include "vm/source_file.h"

namespace kith::cli {

// A longer line ends the session: "kith: cannot read '<stdin>': ..." and exit 66.
inline constexpr std::size_t kMaxLineBytes = vm::kMaxSourceBytes;

class LineReader {
 public:
  // What read() found: a line (`text`, without its newline), the end of the input
  // (Ctrl-D on a terminal), Ctrl-C while the line was being typed (ReplInterrupt:
  // what was typed is dropped), or a failure (`text` says why: the system's words,
  // or a line over kMaxLineBytes).
  struct Line {
    enum class Kind { text, end, interrupted, failed };
    Kind kind;
    std::string text;
  };

  LineReader();

  // Whether standard input is a terminal (the prompts and line editing are shown).
  bool interactive() const { return interactive_; }

  Line read(const char* prompt);

 private:
  Line readPlain();
  Line readPlainLine();
  Line readEdited(const char* prompt);

  bool interactive_;
  // readPlain's bytes read but not yet returned: buffer_[start_, end); reads go
  // 64 KiB at a time, so a pasted or piped session costs one system call per
  // 64 KiB, not one per line.
  std::string buffer_;
  std::size_t start_ = 0;
  std::size_t scanned_ = 0;  // buffer_[start_, scanned_) holds no newline
  bool atEnd_ = false;
};

}  // namespace kith::cli
