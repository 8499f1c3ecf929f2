// `kith replay`'s options (docs/CLI.md), one row each (option_table.h): the policy
// and its heap, the statistics as run reports them, and what replay alone takes
// (--bare, --stop-on-failure).
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "cli/option_table.h"
#include "cli/statistics_request.h"

namespace kith::cli {

struct ReplayOptions {
  std::string policy = "estranged";  // a policy, a reference or the replay baseline `nothing`; not boehm
  std::size_t heapSize = std::size_t{64} << 20;
  bool pretouch = false;  // --pretouch: the heap and the block table populated before the replay
  StatisticsRequest statistics;
  bool bare = false;  // --bare: no StatsHeap counting either (a cost measurement)
  bool stopOnFailure = false;
  std::string trace;

  bool operator==(const ReplayOptions&) const = default;
};

// The options `kith replay` takes (before or after the trace), in the order of its --help.
OptionTable<ReplayOptions> replayOptionTable();
// What the command-line parser needs of them.
const std::vector<OptionSpec>& replayOptionSpecs();
// "options of replay:" and an entry for each, as `kith replay --help` shows them.
std::string replayOptionsHelp();

// Reads replay's options and its one trace: nullopt when `options` is complete, else
// the usage error's exit code.
std::optional<int> parseReplayOptions(const std::vector<std::string_view>& args, ReplayOptions& options);

}  // namespace kith::cli
