// A file the library writes (statistics, a trace) reaches its path whole or not at
// all: it is written to a partial file beside the path (`.NAME.kith-PID`) and renamed
// onto the path when complete, so a process that dies, a write that fails, or a
// program that never ends leaves the user's earlier file as it was (the CLI's rule,
// cli/output_file.h). What is not a regular file (/dev/null, a FIFO, a terminal) is
// written directly: there is nothing there to replace.
#pragma once

#include <sys/stat.h>
#include <unistd.h>

#include <cstdio>
#include <string>

namespace kith::preload {

// Where `path`'s content is written until it is complete; `path` itself when it is
// something other than a regular file that exists.
inline std::string partialPath(const std::string& path) {
  struct stat st {};
  if (::stat(path.c_str(), &st) == 0 && !S_ISREG(st.st_mode)) return path;
  std::string::size_type slash = path.rfind('/');
  std::string dir = slash == std::string::npos ? "" : path.substr(0, slash + 1);
  std::string name = slash == std::string::npos ? path : path.substr(slash + 1);
  return dir + "." + name + ".kith-" + std::to_string(::getpid());
}

// Puts the complete `partial` in place at `path`; false (errno set) when it cannot.
inline bool publish(const std::string& partial, const std::string& path) {
  return partial == path || std::rename(partial.c_str(), path.c_str()) == 0;
}

// Drops a partial file that will not be completed.
inline void abandon(const std::string& partial, const std::string& path) {
  if (partial != path) ::unlink(partial.c_str());
}

}  // namespace kith::preload
