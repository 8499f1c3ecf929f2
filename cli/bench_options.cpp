#include "cli/bench_options.h"

#include <cstdio>

#include "cli/byte_size.h"
#include "cli/option_parser.h"
#include "cli/option_value.h"
#include "cli/usage_error.h"

namespace kith::cli {

namespace {

using enum OptionArgument;

// --json: the results as JSON, for either benchmark.
template <class Options>
OptionRow<Options> jsonRow() {
  return {{"--json", none},
          [](const GivenOption&, Options& o) -> std::optional<int> {
            o.json = true;
            return std::nullopt;
          },
          {}};
}

std::string shownReal(double x) {
  char text[32];
  std::snprintf(text, sizeof text, "%g", x);
  return text;
}

OptionTable<ContrivedBenchOptions> makeContrivedTable() {
  using Options = ContrivedBenchOptions;
  OptionTable<Options> table;
  table.push_back(jsonRow<Options>());
  table.push_back({{"--heap-size", required, OptionValue::size},
                   [](const GivenOption& given, Options& o) {
                     return readSizeOption(given.name, *given.value, std::size_t{1} << 20, o.heapBytes);
                   },
                   {},
                   [](const Options& o) { return byteSizeName(o.heapBytes); }});
  table.push_back({{"--repetitions", required, OptionValue::integer},
                   [](const GivenOption& given, Options& o) {
                     return readIntegerOption(given.name, *given.value, 1, 1000, o.repetitions);
                   },
                   {},
                   [](const Options& o) { return std::to_string(o.repetitions); }});
  table.push_back({{"--fill", required, OptionValue::real},
                   [](const GivenOption& given, Options& o) -> std::optional<int> {
                     std::optional<double> f = parseReal(*given.value);
                     if (!f || !(*f > 0 && *f < 1))
                       return usageError(
                           "--fill wants the objects' share of the heap, a fraction in (0, 1) like 0.6; got '" +
                           *given.value + "'");
                     o.fill = *f;
                     return std::nullopt;
                   },
                   {},
                   [](const Options& o) { return shownReal(o.fill); }});
  return table;
}

OptionTable<DefragBenchOptions> makeDefragTable() {
  using Options = DefragBenchOptions;
  OptionTable<Options> table;
  table.push_back(jsonRow<Options>());
  table.push_back({{"--policy", required},
                   [](const GivenOption& given, Options& o) -> std::optional<int> {
                     o.policy = *given.value;
                     if (o.policy != "knuth" && o.policy != "estranged")
                       return usageError("--policy wants knuth or estranged (the buddy heaps); got '" + o.policy +
                                         "'");
                     return std::nullopt;
                   },
                   {},
                   [](const Options& o) { return o.policy; }});
  table.push_back({{"--seeds", required, OptionValue::integer},
                   [](const GivenOption& given, Options& o) {
                     return readIntegerOption(given.name, *given.value, 1, 1000, o.seeds);
                   },
                   {},
                   [](const Options& o) { return std::to_string(o.seeds); }});
  return table;
}

// A benchmark's options; it takes no operands.
template <class Options>
std::optional<int> parseBenchOptions(std::string_view command, const OptionTable<Options>& table,
                                     const std::vector<OptionSpec>& specs, const std::vector<std::string_view>& args,
                                     Options& options) {
  CommandLine line;
  if (auto exit = readCommandLine(command, specs, args, OperandPlacement::anywhere, line)) return exit;
  if (!line.operands.empty())
    return usageError("'" + std::string(command) + "' takes options only; got '" + std::string(line.operands[0]) +
                      "'");
  return readOptions(table, line.options, options);
}

}  // namespace

const OptionTable<ContrivedBenchOptions>& contrivedBenchOptionTable() {
  static const OptionTable<ContrivedBenchOptions> table = makeContrivedTable();
  return table;
}

const std::vector<OptionSpec>& contrivedBenchOptionSpecs() {
  static const std::vector<OptionSpec> specs = optionSpecs(contrivedBenchOptionTable());
  return specs;
}

const OptionTable<DefragBenchOptions>& defragBenchOptionTable() {
  static const OptionTable<DefragBenchOptions> table = makeDefragTable();
  return table;
}

const std::vector<OptionSpec>& defragBenchOptionSpecs() {
  static const std::vector<OptionSpec> specs = optionSpecs(defragBenchOptionTable());
  return specs;
}

std::optional<int> parseContrivedBenchOptions(const std::vector<std::string_view>& args,
                                              ContrivedBenchOptions& options) {
  return parseBenchOptions("bench contrived", contrivedBenchOptionTable(), contrivedBenchOptionSpecs(), args, options);
}

std::optional<int> parseDefragBenchOptions(const std::vector<std::string_view>& args, DefragBenchOptions& options) {
  return parseBenchOptions("bench defrag", defragBenchOptionTable(), defragBenchOptionSpecs(), args, options);
}

}  // namespace kith::cli
