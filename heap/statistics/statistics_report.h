// The `heap` statistics block (CLI.md): the JSON object and the table lines, written
// by this one file for both `kith run` and `kith replay`, so that both print it in
// the same shape and one parser reads both.
#pragma once

#include <string>
#include <string_view>

#include "heap/statistics/statistics.h"

namespace kith::heap {

// A JSON number as the statistics print it: %.6g, 0 for NaN and infinities.
std::string jsonNumber(double x);
// A JSON string: '"' and '\\' escaped, control characters as \u00XX.
std::string jsonString(std::string_view s);

// The block's object, `{"allocations": ...}`, to go under the key "heap".
std::string heapStatisticsJson(const HeapStatistics& h);
// One line of a statistics table (`--stats`): the label in a column, indented under
// its block's heading, then the value; ends in '\n'.
std::string statisticsTableLine(std::string_view label, const std::string& value);
// The block as table lines under the heading "heap", every member of the JSON
// (the steps as mean and max), each line ending in '\n'.
std::string heapStatisticsTable(const HeapStatistics& h);

}  // namespace kith::heap
