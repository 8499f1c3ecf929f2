#include "cli/bench_options.h"

#include <cstdio>

#include "cli/byte_size.h"
#include "cli/option_parser.h"
#include "cli/option_value.h"
#include "cli/usage_error.h"

namespace kith::cli {

namespace {

using enum OptionArgument;

std::string shownFill(const ContrivedBenchOptions& o) {
  char text[32];
  std::snprintf(text, sizeof text, "%g", o.fill);
  return text;
}

std::optional<int> readFill(const GivenOption& given, ContrivedBenchOptions& o) {
  std::optional<double> f = parseReal(*given.value);
  if (!f || !(*f > 0 && *f < 1))
    return usageError("--fill wants the objects' share of the heap, a fraction in (0, 1) like 0.6; got '" +
                      *given.value + "'");
  o.fill = *f;
  return std::nullopt;
}

std::optional<int> readHeapSize(const GivenOption& given, ContrivedBenchOptions& o) {
  return readSizeOption(given.name, *given.value, std::size_t{1} << 20, o.heapBytes);
}

std::optional<int> readPolicy(const GivenOption& given, DefragBenchOptions& o) {
  o.policy = *given.value;
  if (o.policy != "knuth" && o.policy != "estranged")
    return usageError("--policy wants knuth or estranged (the buddy heaps); got '" + o.policy + "'");
  return std::nullopt;
}

// --json: the results as JSON, for either benchmark.
constexpr OptionRow<ContrivedBenchOptions> kContrivedRows[] = {
    {{"--json", none}, readFlag<ContrivedBenchOptions, &ContrivedBenchOptions::json>},
    {{"--heap-size", required, OptionValue::size}, readHeapSize, {},
     [](const ContrivedBenchOptions& o) { return byteSizeName(o.heapBytes); }},
    {{"--repetitions", required, OptionValue::integer},
     readInteger<ContrivedBenchOptions, &ContrivedBenchOptions::repetitions, 1, 1000>, {},
     shownNumber<ContrivedBenchOptions, &ContrivedBenchOptions::repetitions>},
    {{"--fill", required, OptionValue::real}, readFill, {}, shownFill},
};

constexpr OptionRow<DefragBenchOptions> kDefragRows[] = {
    {{"--json", none}, readFlag<DefragBenchOptions, &DefragBenchOptions::json>},
    {{"--policy", required}, readPolicy, {}, shownText<DefragBenchOptions, &DefragBenchOptions::policy>},
    {{"--seeds", required, OptionValue::integer}, readInteger<DefragBenchOptions, &DefragBenchOptions::seeds, 1, 1000>,
     {}, shownNumber<DefragBenchOptions, &DefragBenchOptions::seeds>},
};

// A benchmark's options; it takes no operands.
template <class Options>
std::optional<int> parseBenchOptions(std::string_view command, OptionTable<Options> table,
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

OptionTable<ContrivedBenchOptions> contrivedBenchOptionTable() { return kContrivedRows; }

const std::vector<OptionSpec>& contrivedBenchOptionSpecs() {
  static const std::vector<OptionSpec> specs = optionSpecs(contrivedBenchOptionTable());
  return specs;
}

OptionTable<DefragBenchOptions> defragBenchOptionTable() { return kDefragRows; }

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
