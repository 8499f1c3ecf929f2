// Where a process writes the file an option names (KITH_STATS_FILE, KITH_TRACE)
// when `kith exec` starts more than one process with the library: COMMAND itself
// (the root, KITH_ROOT_PID) writes PATH, every other process PATH.PID. So
// `kith exec --stats-file=s.json -- make` leaves make's statistics in s.json and
// each compiler's in s.json.PID. A process that replaces itself with exec keeps its
// pid: the last program in it writes the file.
#pragma once

#include <unistd.h>

#include <string>

namespace kith::preload {

inline std::string outputPath(const std::string& path, long rootPid) {
  long pid = ::getpid();
  return pid == rootPid ? path : path + "." + std::to_string(pid);
}

}  // namespace kith::preload
