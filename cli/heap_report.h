// The `heap` statistics block (CLI.md) as `kith replay` prints it: the JSON object
// and the table lines, in the same shape and order as `kith run` (vm/runner.cpp),
// so one parser reads both.
#pragma once

#include <string>

#include "heap/statistics.h"

namespace kith::cli {

// A JSON number as the statistics print it: %.6g, 0 for NaN and infinities.
std::string jsonNumber(double x);
// A JSON string: '"' and '\\' escaped, control characters as \u00XX.
std::string jsonString(const std::string& s);

// ` "heap": {...},\n`: the block, with its leading space, key and trailing comma.
std::string heapStatisticsJson(const heap::HeapStatistics& h);
// The table lines from "allocations" to "internal frag", each ending in '\n'.
std::string heapStatisticsTable(const heap::HeapStatistics& h);

}  // namespace kith::cli
