#include "cli/run_options.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <string_view>
#include <vector>

#include "cli/exit_codes.h"

namespace kith::cli {
namespace {

std::optional<int> parse(std::vector<std::string_view> args, RunOptions& options) {
  testing::internal::CaptureStderr();
  std::optional<int> exit = parseRunOptions(args, options);
  testing::internal::GetCapturedStderr();
  return exit;
}

TEST(RunOptions, DefaultsWithOnlyAScript) {
  RunOptions o;
  EXPECT_EQ(parse({"a.kith"}, o), std::nullopt);
  EXPECT_EQ(o.script, "a.kith");
  EXPECT_EQ(o.heapPolicy, "estranged");
  EXPECT_EQ(o.collector, CollectorChoice::occasional);
  EXPECT_EQ(o.gcPacing, gc::GcPacing::time);
  EXPECT_EQ(o.statistics.format, StatsFormat::none);
  EXPECT_FALSE(o.statistics.wanted());
  EXPECT_FALSE(o.collectorOptionsGiven());
}

TEST(RunOptions, OptionsAreParsedIntoTypes) {
  RunOptions o;
  EXPECT_EQ(parse({"--heap=knuth", "--heap-size=1M", "--gc=continuous", "--gc-pacing=work", "--gc-step=64",
                   "--gc-threshold=0.3", "--stats=json", "--stats-timers=off", "--fail-alloc-every=9",
                   "--gc-overhead-limit=off", "--trace=t.txt", "s.kith", "--not-an-option", "2"},
                  o),
            std::nullopt);
  EXPECT_EQ(o.heapPolicy, "knuth");
  EXPECT_EQ(o.heapSize, std::size_t{1} << 20);
  EXPECT_EQ(o.collector, CollectorChoice::continuous);
  EXPECT_EQ(o.gcPacing, gc::GcPacing::work);
  EXPECT_EQ(o.gcStep, 64u);
  EXPECT_EQ(o.gcThreshold, 0.3);
  EXPECT_EQ(o.statistics.format, StatsFormat::json);
  EXPECT_EQ(o.statistics.heapMode(false), heap::StatisticsMode::counts);
  EXPECT_EQ(o.failAllocationEvery, 9u);
  EXPECT_EQ(o.gcOverheadLimit, 0.0);
  EXPECT_EQ(o.traceFormat, heap::TraceFormat::text);  // by the extension
  EXPECT_EQ(o.script, "s.kith");
  EXPECT_EQ(o.args, (std::vector<std::string>{"--not-an-option", "2"}));  // the script's own
  EXPECT_TRUE(o.collectorOptionsGiven());
}

TEST(RunOptions, MistakesAreUsageErrors) {
  for (std::string_view bad : {"--gc=foo", "--heap=nothing", "--heap=foo", "--gc-pacing=fast", "--max-depth=0",
                               "--stats=table", "--stats-file=", "--gc-overhead-limit=101", "--bogus"}) {
    RunOptions o;
    EXPECT_EQ(parse({bad, "a.kith"}, o), kExitUsage) << bad;
  }
  RunOptions o;
  EXPECT_EQ(parse({"--gc-log"}, o), kExitUsage);  // no script
}

TEST(RunOptions, CompilerHeapIsAnExperimentKnob) {
  RunOptions defaults;
  EXPECT_EQ(parse({"a.kith"}, defaults), std::nullopt);
  EXPECT_EQ(defaults.compilerHeap, vm::CompilerHeap::zone);
  EXPECT_FALSE(defaults.compileOnly || defaults.compilerStats);
  RunOptions o;
  EXPECT_EQ(parse({"--compiler-heap=lea", "--compile-only", "--compiler-stats", "a.kith"}, o), std::nullopt);
  EXPECT_EQ(o.compilerHeap, vm::CompilerHeap::lea);
  EXPECT_TRUE(o.compileOnly && o.compilerStats);
  for (std::string_view bad : {"--compiler-heap=region", "--compiler-heap=Zone", "--compiler-heap="}) {
    RunOptions b;
    EXPECT_EQ(parse({bad, "a.kith"}, b), kExitUsage) << bad;
  }
  for (auto h : {vm::CompilerHeap::zone, vm::CompilerHeap::reap, vm::CompilerHeap::lea, vm::CompilerHeap::malloc})
    EXPECT_EQ(vm::compilerHeapNamed(vm::compilerHeapName(h)), h);
}

TEST(RunOptions, ValuesMayBeTheNextWordAndDoubleDashEndsTheOptions) {
  RunOptions o;
  EXPECT_EQ(parse({"--heap", "knuth", "--heap-size", "1M", "--stats-file", "s.json", "--", "-odd.kith", "--gc-log"}, o),
            std::nullopt);
  EXPECT_EQ(o.heapPolicy, "knuth");
  EXPECT_EQ(o.heapSize, std::size_t{1} << 20);
  EXPECT_EQ(o.statistics.file, "s.json");
  EXPECT_EQ(o.script, "-odd.kith");
  EXPECT_EQ(o.args, std::vector<std::string>{"--gc-log"});
  EXPECT_FALSE(o.gcLog);
}

// Each option in the list the parser reads is taken by its row of the table, with a value
// of the kind it wants.
TEST(RunOptions, EveryListedOptionIsTaken) {
  const std::vector<std::pair<std::string_view, std::string_view>> values = {
      {"--heap", "list"},         {"--heap-size", "1M"},          {"--gc", "none"},
      {"--gc-threshold", "0.5"},  {"--gc-step", "8"},             {"--gc-pacing", "work"},
      {"--gc-pauses-file", "p"},  {"--host-probe-ms", "5"},       {"--frag-file", "f"},
      {"--gc-overhead-limit", "50"},
      {"--fail-alloc", "3"},      {"--fail-alloc-every", "4"},    {"--max-depth", "9"},
      {"--stats-file", "s"},      {"--stats-timers", "off"},     {"--stats-sources", "off"},      {"--trace", "t"},
      {"--trace-format", "text"}, {"--compiler-heap", "reap"},
  };
  for (const OptionSpec& spec : runOptionSpecs()) {
    std::vector<std::string_view> args = {spec.name};
    if (spec.argument == OptionArgument::required) {
      auto v = std::find_if(values.begin(), values.end(), [&](const auto& nv) { return nv.first == spec.name; });
      ASSERT_NE(v, values.end()) << spec.name << " needs a sample value here";
      args.push_back(v->second);
    }
    if (spec.name == "--trace-format") args.push_back("--trace=t");  // the format of that file
    args.push_back("a.kith");
    RunOptions o;
    EXPECT_EQ(parse(args, o), std::nullopt) << spec.name;
  }
}

TEST(RunOptions, TraceFormatWithoutATraceIsAUsageError) {
  RunOptions o;
  EXPECT_EQ(parse({"--trace-format=text", "a.kith"}, o), kExitUsage);
  RunOptions given;
  EXPECT_EQ(parse({"--trace-format=text", "--trace=t.bin", "a.kith"}, given), std::nullopt);
  EXPECT_EQ(given.traceFormat, heap::TraceFormat::text);  // over the extension
}

TEST(RunOptions, TheSameSizeInTwoSpellingsIsOneValue) {
  RunOptions o;
  EXPECT_EQ(parse({"--heap-size=16K", "--heap-size=16384", "--gc-threshold=0.5", "--gc-threshold=.50", "a.kith"}, o),
            std::nullopt);
  EXPECT_EQ(o.heapSize, std::size_t{16} << 10);
  RunOptions conflicting;
  EXPECT_EQ(parse({"--heap-size=16K", "--heap-size=32K", "a.kith"}, conflicting), kExitUsage);
}

// The REPL's stand-in for a script is never an option's value: an option without
// its value is that mistake, not a value "<repl>".
TEST(RunOptions, TheStandInForAScriptIsNeverAValue) {
  testing::internal::CaptureStderr();
  RunOptions o;
  EXPECT_EQ(parseRunOptions({"--heap-size", kNoScriptStandIn}, o, "repl"), kExitUsage);
  std::string message = testing::internal::GetCapturedStderr();
  EXPECT_EQ(message.substr(0, message.find('\n')), "kith: --heap-size needs a value: --heap-size=VALUE or --heap-size VALUE");
  RunOptions given;
  EXPECT_EQ(parse({"--heap-size", "1M", kNoScriptStandIn}, given), std::nullopt);
  EXPECT_EQ(given.script, kNoScriptStandIn);
  EXPECT_EQ(given.heapSize, std::size_t{1} << 20);
}

TEST(RunOptions, MisspelledNamesSuggestTheNearest) {
  EXPECT_EQ(policySuggestion("estrange"), "did you mean 'estranged'?");
  EXPECT_EQ(policySuggestion("nothin"), "");  // replay's baseline: not for run
  EXPECT_EQ(policySuggestion("nothin", true), "did you mean 'nothing'?");
  EXPECT_EQ(collectorSuggestion("ocasional"), "did you mean 'occasional'?");
}

TEST(RunOptions, CollectorNamesRoundTrip) {
  for (CollectorChoice c : {CollectorChoice::occasional, CollectorChoice::continuous, CollectorChoice::none})
    EXPECT_EQ(collectorNamed(collectorName(c)), c);
  EXPECT_EQ(collectorNamed("boehm"), std::nullopt);
}

TEST(StatisticsRequest, OptionsSharedByRunAndReplay) {
  StatisticsRequest r;
  EXPECT_EQ(readStatisticsOption({"--stats-file", "s.json"}, r), std::nullopt);
  EXPECT_EQ(r.file, "s.json");
  EXPECT_TRUE(r.wanted());
  EXPECT_EQ(r.heapMode(false), heap::StatisticsMode::countsAndTimes);
  EXPECT_EQ(readStatisticsOption({"--stats", std::nullopt}, r), std::nullopt);
  EXPECT_EQ(r.format, StatsFormat::table);
  EXPECT_EQ(readStatisticsOption({"--stats", "json"}, r), std::nullopt);
  EXPECT_EQ(r.format, StatsFormat::json);
  testing::internal::CaptureStderr();
  EXPECT_EQ(readStatisticsOption({"--stats-timers", "maybe"}, r), kExitUsage);
  EXPECT_EQ(readStatisticsOption({"--stats", "table"}, r), kExitUsage);
  EXPECT_NE(testing::internal::GetCapturedStderr().find("--stats takes no value (a table) or =json; got '--stats=table'"),
            std::string::npos);
  EXPECT_TRUE(r.timers);
  EXPECT_TRUE(r.sources);
  EXPECT_EQ(readStatisticsOption({"--stats-sources", "off"}, r), std::nullopt);
  EXPECT_FALSE(r.sources);
  testing::internal::CaptureStderr();
  EXPECT_EQ(readStatisticsOption({"--stats-sources", "yes"}, r), kExitUsage);
  EXPECT_NE(testing::internal::GetCapturedStderr().find("--stats-sources wants on or off"), std::string::npos);
}

TEST(StatisticsRequest, KeepsOnlyBytesInUseWhenNothingShowsTheCounts) {
  StatisticsRequest r;
  EXPECT_EQ(r.heapMode(false), heap::StatisticsMode::bytesInUse);
  EXPECT_EQ(r.heapMode(true), heap::StatisticsMode::counts);
  EXPECT_FALSE(scriptMayReadHeapStatistics("let x = [1, 2];\nprint(x);\n"));
  EXPECT_TRUE(scriptMayReadHeapStatistics("print(System.heapStats().get(\"frees\"));\n"));
  EXPECT_TRUE(scriptMayReadHeapStatistics("import \"lib/som.kith\";\n"));
}

}  // namespace
}  // namespace kith::cli
