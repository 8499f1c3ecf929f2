#include "cli/replay_options.h"

#include "cli/byte_size.h"
#include "cli/option_parser.h"
#include "cli/run_options.h"
#include "cli/usage_error.h"
#include "heap/heap.h"

namespace kith::cli {

namespace {

using Row = OptionRow<ReplayOptions>;
using enum OptionArgument;

std::optional<int> readHeap(const GivenOption& given, ReplayOptions& o) {
  o.policy = *given.value;
  if (!heap::isPolicy(o.policy) && !heap::isReplayBaseline(o.policy))
    return usageError("unknown heap policy '" + o.policy + "'; valid: " + heap::policyNames() +
                          ", and the replay baseline nothing",
                      policySuggestion(o.policy, true));
  for (const heap::PolicyInfo& p : heap::baselineList())
    if (p.name == o.policy)
      return usageError("--heap=" + o.policy + " collects garbage itself and takes no frees: it cannot replay a trace");
  return std::nullopt;
}

template <bool ReplayOptions::*member>
constexpr auto flag = readFlag<ReplayOptions, member>;

std::optional<int> readHeapSize(const GivenOption& given, ReplayOptions& o) {
  return readSizeOption(given.name, *given.value, kMinimumHeapSize, o.heapSize);
}

constexpr Row statsRow(OptionSpec spec, std::array<HelpEntry, 2> help = {}) {
  return statisticsRow<ReplayOptions, &ReplayOptions::statistics>(spec, help);
}

// Rows in the order of `kith replay --help`.
constexpr Row kReplayOptionRows[] = {
    {{"--heap", required}, readHeap,
     {{{"--heap=POLICY",
        "the policy to replay on (default {default}; not boehm), or\n"
        "nothing: the baseline whose malloc returns an address\n"
        "with no memory and whose free does nothing, so a\n"
        "policy's cost minus its cost is the policy's own"}}},
     shownText<ReplayOptions, &ReplayOptions::policy>},
    {{"--heap-size", required, OptionValue::size}, readHeapSize,
     {{{"--heap-size=SIZE", "its fixed heap (default {default}, at least 16K)"}}},
     [](const ReplayOptions& o) { return byteSizeName(o.heapSize); }},
    {{"--pretouch", none}, flag<&ReplayOptions::pretouch>,
     {{{"--pretouch", "as for run: populate the heap before the replay starts"}}}},
    // The statistics options share one entry, on --stats.
    statsRow({"--stats", optional},
             {{{"--stats, --stats=json, --stats-file=PATH, --stats-timers=on|off,\n"
                "  --stats-sources=on|off",
                "\n"
                "as for run: the heap block, plus a replay block (events,\n"
                "events/s, failed requests, resizes in place and moved);\n"
                "no gc or vm block"}}}),
    statsRow({"--stats-file", required}),
    statsRow({"--stats-timers", required}),
    statsRow({"--stats-sources", required}),
    {{"--bare", none}, flag<&ReplayOptions::bare>,
     {{{"--bare",
        "the policy alone: the statistics layer counts nothing\n"
        "(the statistics then have no heap block), so a request\n"
        "costs what the policy costs; kith study's cost and\n"
        "replay runs use it"}}}},
    {{"--stop-on-failure", none}, flag<&ReplayOptions::stopOnFailure>,
     {{{"--stop-on-failure",
        "stop at the first request the policy cannot meet, exit 70.\n"
        "Without it such a request is counted (after the tries\n"
        "run's gate makes with --gc=none: once more, then on knuth\n"
        "and estranged with defragmentation), its object's free\n"
        "is skipped, and the replay goes on"}}}},
};

}  // namespace

OptionTable<ReplayOptions> replayOptionTable() { return kReplayOptionRows; }

const std::vector<OptionSpec>& replayOptionSpecs() {
  static const std::vector<OptionSpec> specs = optionSpecs(replayOptionTable());
  return specs;
}

std::string replayOptionsHelp() { return "options of replay:\n" + optionsHelp(replayOptionTable()) + "\n"; }

std::optional<int> parseReplayOptions(const std::vector<std::string_view>& args, ReplayOptions& o) {
  CommandLine line;
  if (auto exit = readCommandLine("replay", replayOptionSpecs(), args, OperandPlacement::anywhere, line)) return exit;
  if (line.help) return usageError("--help comes first: kith replay --help");  // the kith command prints it
  if (auto exit = readOptions(replayOptionTable(), line.options, o)) return exit;
  if (line.operands.empty()) return usageError("'replay' needs a trace: kith replay [OPTIONS] TRACE");
  if (line.operands.size() > 1)
    return usageError("'replay' takes one trace; found a second: '" + std::string(line.operands[1]) + "'");
  o.trace = std::string(line.operands[0]);
  return std::nullopt;
}

}  // namespace kith::cli
