#include "cli/line_reader.h"

#include <editline/readline.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <new>
#include <optional>

#include "cli/repl_interrupt.h"
#include "heap/adapters/shared_library.h"

namespace kith::cli {
namespace {

constexpr std::size_t kReadChunk = 65536;

// libedit's functions, looked up when a session starts on a terminal, so that no
// other run loads libedit (and its libtinfo, libbsd, libmd); the header gives their
// types only.
struct Libedit {
  decltype(&::using_history) using_history = nullptr;
  decltype(&::readline) readline = nullptr;
  decltype(&::add_history) add_history = nullptr;
  int (**getc_function)(FILE*) = nullptr;  // rl_getc_function
  int* catch_signals = nullptr;            // rl_catch_signals
};

std::optional<Libedit> loadLibedit() {
  try {
    heap::SharedLibrary library("libedit.so.2", "line editing in kith repl", "libedit2");
    return Libedit{library.function<decltype(&::using_history)>("using_history"),
                   library.function<decltype(&::readline)>("readline"),
                   library.function<decltype(&::add_history)>("add_history"),
                   library.function<int (**)(FILE*)>("rl_getc_function"),
                   library.function<int*>("rl_catch_signals")};
  } catch (const heap::LibraryUnavailable& e) {
    std::fprintf(stderr, "kith: %s; reading plain lines\n", e.what());
    return std::nullopt;
  }
}

const std::optional<Libedit>& libedit() {
  static const std::optional<Libedit> loaded = loadLibedit();
  return loaded;
}

int keyReadError = 0;  // errno of a failed read under libedit, else 0

// libedit reads every key through this (rl_getc_function): -1, which libedit takes
// for the end of the input, when Ctrl-C came or the read failed, so readline()
// returns and readEdited() tells the three apart.
int readKey(FILE*) {
  for (;;) {
    if (ReplInterrupt::pressed()) return -1;  // also when it came just before the read
    unsigned char key;
    ssize_t n = ::read(STDIN_FILENO, &key, 1);
    if (n == 1) return key;
    if (n == 0) return -1;
    if (errno != EINTR) {
      keyReadError = errno;
      return -1;
    }
  }
}

LineReader::Line tooLong() {
  return {LineReader::Line::Kind::failed, "a line over " + std::to_string(kMaxLineBytes >> 20) + " MiB"};
}

}  // namespace

LineReader::LineReader() : interactive_(isatty(STDIN_FILENO) == 1) {
  if (interactive_ && libedit()) {
    // Before libedit sets itself up: keys come through readKey, and libedit installs
    // no signal handlers of its own (it would send SIGINT on to the whole process group).
    *libedit()->getc_function = readKey;
    *libedit()->catch_signals = 0;
    libedit()->using_history();
  }
}

LineReader::Line LineReader::read(const char* prompt) {
  std::fflush(stdout);  // a script's print() output comes before the prompt
  ReplInterrupt::Reading reading;  // Ctrl-C ends a read that waits for a key
  if (interactive_ && libedit()) return readEdited(prompt);
  if (interactive_) {  // a terminal without libedit: the prompt, and no editing
    std::fputs(prompt, stdout);
    std::fflush(stdout);
  }
  return readPlain();
}

LineReader::Line LineReader::readEdited(const char* prompt) {
  keyReadError = 0;
  char* raw = libedit()->readline(prompt);
  if (!raw) {
    if (ReplInterrupt::pressed()) return {Line::Kind::interrupted, ""};
    if (keyReadError) return {Line::Kind::failed, std::strerror(keyReadError)};
    return {Line::Kind::end, ""};
  }
  std::string line(raw);
  std::free(raw);
  if (line.size() > kMaxLineBytes) return tooLong();
  if (line.find_first_not_of(" \t") != std::string::npos) libedit()->add_history(line.c_str());
  return {Line::Kind::text, std::move(line)};
}

// Not C's getline: it has no cap (a line from /dev/zero grows until memory runs out),
// and it reports running out of memory as the end of the input.
LineReader::Line LineReader::readPlain() {
  try {
    return readPlainLine();
  } catch (const std::bad_alloc&) {  // a line under the cap, on a machine (or ulimit) with less
    return {Line::Kind::failed, std::strerror(ENOMEM)};
  }
}

LineReader::Line LineReader::readPlainLine() {
  for (;;) {
    std::size_t newline = buffer_.find('\n', scanned_);
    if (newline != std::string::npos || (atEnd_ && start_ < buffer_.size())) {
      std::size_t end = newline != std::string::npos ? newline : buffer_.size();
      std::string line = buffer_.substr(start_, end - start_);
      start_ = scanned_ = newline != std::string::npos ? newline + 1 : end;
      if (line.ends_with('\r')) line.pop_back();
      if (line.size() > kMaxLineBytes) return tooLong();
      return {Line::Kind::text, std::move(line)};
    }
    if (atEnd_) return {Line::Kind::end, ""};
    if (buffer_.size() - start_ > kMaxLineBytes) return tooLong();
    buffer_.erase(0, start_);  // what was returned goes before the buffer grows
    start_ = 0;
    scanned_ = buffer_.size();
    std::size_t size = buffer_.size();
    buffer_.resize(size + kReadChunk);
    ssize_t n = ::read(STDIN_FILENO, buffer_.data() + size, kReadChunk);
    buffer_.resize(n > 0 ? size + static_cast<std::size_t>(n) : size);
    if (n == 0) atEnd_ = true;
    if (n < 0) {
      if (errno != EINTR) return {Line::Kind::failed, std::strerror(errno)};
      if (ReplInterrupt::pressed()) {  // what was typed and not yet returned goes
        buffer_.clear();
        start_ = scanned_ = 0;
        return {Line::Kind::interrupted, ""};
      }
    }
  }
}

}  // namespace kith::cli
