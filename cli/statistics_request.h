// The statistics options `kith run` and `kith replay` share (CLI.md): --stats (a
// table on stderr), --stats=json (the JSON on stderr), --stats-file=PATH (the JSON
// to PATH, - for standard output), --stats-timers=on|off and --stats-sources=on|off; and
// writing what they asked for.
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "cli/option_table.h"
#include "heap/heap.h"
#include "heap/statistics/statistics_mode.h"

namespace kith::cli {

class OutputFile;

enum class StatsFormat { none, table, json };

struct StatisticsRequest {
  StatsFormat format = StatsFormat::none;
  std::string file;
  // --stats-timers: time every malloc and free (alloc_ns/free_ns); off keeps every
  // count but reads no clock per operation.
  bool timers = true;
  // --stats-sources: split the immediate requests into recycled and leftover
  // (heap/statistics/leftover_source.h); off keeps the counting as cheap as without it.
  bool sources = true;

  bool wanted() const { return format != StatsFormat::none || !file.empty(); }
  bool operator==(const StatisticsRequest&) const = default;
  // What the heap keeps: the counts (and the timers, unless off) when they are reported
  // or `countsRead` (something else in the run shows them); else only bytes in use,
  // which the collectors read, so a run pays for no statistics it did not ask for.
  heap::StatisticsMode heapMode(bool countsRead) const {
    if (wanted()) return timers ? heap::StatisticsMode::countsAndTimes : heap::StatisticsMode::counts;
    return countsRead ? heap::StatisticsMode::counts : heap::StatisticsMode::bytesInUse;
  }
};

// Applies what the heap cannot take at construction (--stats-sources=off), before its
// first malloc.
void configureHeap(const StatisticsRequest& request, heap::Heap& heap);

// Whether a script may show the heap's counts itself (System.heapStats()): conservatively
// also any script that imports, as the imported files are read only as it runs.
bool scriptMayReadHeapStatistics(std::string_view source);

// Records one of the statistics options in `request`: nullopt when taken, else the
// usage error's exit code (after the message) when its value is wrong.
std::optional<int> readStatisticsOption(const GivenOption& option, StatisticsRequest& request);

template <class Options, StatisticsRequest Options::*member>
std::optional<int> readStatistics(const GivenOption& given, Options& options) {
  return readStatisticsOption(given, options.*member);
}

// The spelling of --stats-timers' and --stats-sources' defaults.
template <class Options, StatisticsRequest Options::*member, bool StatisticsRequest::*setting>
std::string shownOnOff(const Options& options) {
  return (options.*member).*setting ? "on" : "off";
}

// The row of the statistics option `spec` (--stats, --stats-file, --stats-timers,
// --stats-sources) in the table of a command whose options keep their request in
// `member`, with the command's own `help`.
template <class Options, StatisticsRequest Options::*member>
constexpr OptionRow<Options> statisticsRow(OptionSpec spec, std::array<HelpEntry, 2> help = {}) {
  OptionRow<Options> row{spec, readStatistics<Options, member>, help};
  if (spec.name == "--stats-timers") row.shownDefault = shownOnOff<Options, member, &StatisticsRequest::timers>;
  if (spec.name == "--stats-sources") row.shownDefault = shownOnOff<Options, member, &StatisticsRequest::sources>;
  return row;
}

// Readies the --stats-file before the run (CLI.md: a wrong path costs no run); false
// after the message when it cannot be written. Nothing to do without a --stats-file.
bool openStatisticsFile(const StatisticsRequest& request, OutputFile& file);

// The table or the JSON on stderr, and the JSON to `file` (opened by
// openStatisticsFile), then closes it; false after the message when that failed.
bool writeStatistics(const StatisticsRequest& request, OutputFile& file, const std::string& json,
                     const std::string& table);

}  // namespace kith::cli
