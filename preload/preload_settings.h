// PreloadSettings: what the environment (preload_environment.h) asks of
// libkith_malloc.so in this process, read once when the heap starts. Reading them
// may allocate (the strings); the caller holds the heap's lock, so those requests
// go to the C library (process_heap.cpp).
#pragma once

#include <cstddef>
#include <optional>
#include <string>

namespace kith::preload {

enum class StatsFormat { off, table, json };

struct PreloadSettings {
  std::string policy;
  std::size_t heapBytes = 0;
  StatsFormat stats = StatsFormat::off;  // on standard error
  std::string statsFile;                 // "" for none
  std::string tracePath;                 // "" for none
  bool check = false;
  long rootPid = 0;                      // the process that writes the plain PATHs

  bool keepsStatistics() const { return stats != StatsFormat::off || !statsFile.empty(); }
};

// The settings from the environment, or the message naming the variable that is
// wrong ("KITH_HEAP=boehm: ...").
std::optional<std::string> readSettings(PreloadSettings& out);

}  // namespace kith::preload
