// Every command's option table (cli/option_table.h) against itself: each row's name
// is taken by the command's parser, shown in its --help and suggested for a slip of
// the keyboard; each --help entry is a row; each default the help shows is the one
// the options start with, and given back on the command line it changes nothing.
#include "cli/option_table.h"

#include <gtest/gtest.h>

#include <cctype>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "cli/bench_options.h"
#include "cli/exit_codes.h"
#include "cli/exec_options.h"
#include "cli/replay_options.h"
#include "cli/run_options.h"

namespace kith::cli {
namespace {

// Each command: its table, its parser (with the operands it needs) and its help.
struct Run {
  using Options = RunOptions;
  static OptionTable<Options> table() { return runOptionTable(); }
  static std::optional<int> parse(std::vector<std::string_view> args, Options& o) {
    if (!args.empty() && args[0] == "--trace-format") args.push_back("--trace=t");  // the format of that file
    args.push_back("a.kith");
    return parseRunOptions(args, o);
  }
  static std::optional<std::string> help() { return runOptionsHelp(); }
};

struct Replay {
  using Options = ReplayOptions;
  static OptionTable<Options> table() { return replayOptionTable(); }
  static std::optional<int> parse(std::vector<std::string_view> args, Options& o) {
    args.push_back("t.trace");
    return parseReplayOptions(args, o);
  }
  static std::optional<std::string> help() { return replayOptionsHelp(); }
};

struct Exec {
  using Options = ExecOptions;
  static OptionTable<Options> table() { return execOptionTable(); }
  static std::optional<int> parse(std::vector<std::string_view> args, Options& o) {
    args.push_back("true");
    return parseExecOptions(args, o);
  }
  static std::optional<std::string> help() { return execOptionsHelp(); }
};

// disasm's one option (main.cpp reads it so), and the benchmarks' options, are named
// in their usage line of `kith --help`.
struct Disasm {
  using Options = RunOptions;
  static OptionTable<Options> table() { return disasmOptionTable(); }
  static std::optional<int> parse(std::vector<std::string_view> args, Options& o) {
    CommandLine line;
    if (auto exit = readCommandLine("disasm", disasmOptionSpecs(), args, OperandPlacement::anywhere, line)) return exit;
    return readOptions(disasmOptionTable(), line.options, o);
  }
  static std::optional<std::string> help() { return std::nullopt; }
};

struct BenchContrived {
  using Options = ContrivedBenchOptions;
  static OptionTable<Options> table() { return contrivedBenchOptionTable(); }
  static std::optional<int> parse(std::vector<std::string_view> args, Options& o) {
    return parseContrivedBenchOptions(args, o);
  }
  static std::optional<std::string> help() { return std::nullopt; }
};

struct BenchDefrag {
  using Options = DefragBenchOptions;
  static OptionTable<Options> table() { return defragBenchOptionTable(); }
  static std::optional<int> parse(std::vector<std::string_view> args, Options& o) {
    return parseDefragBenchOptions(args, o);
  }
  static std::optional<std::string> help() { return std::nullopt; }
};

// The parser's exit and what it said on stderr.
template <class Command>
std::pair<std::optional<int>, std::string> parsed(std::vector<std::string_view> args,
                                                  typename Command::Options& options) {
  testing::internal::CaptureStderr();
  std::optional<int> exit = Command::parse(std::move(args), options);
  return {exit, testing::internal::GetCapturedStderr()};
}

// `text` with every run of blanks and line breaks one space, as a reader reads it.
std::string oneLine(std::string_view text) {
  std::string out;
  for (char c : text) {
    bool blank = std::isspace(static_cast<unsigned char>(c));
    if (!(blank && !out.empty() && out.back() == ' ')) out += blank ? ' ' : c;
  }
  return out;
}

// Whether `help` names the option `name` as a whole word (not --stats in --stats-file).
bool namesOption(std::string_view help, std::string_view name) {
  for (std::size_t at = help.find(name); at != std::string_view::npos; at = help.find(name, at + 1)) {
    std::size_t end = at + name.size();
    char after = end < help.size() ? help[end] : '\n';
    bool starts = at == 0 || help[at - 1] == ' ' || help[at - 1] == '[' || help[at - 1] == '\n';
    if (starts && !std::isalnum(static_cast<unsigned char>(after)) && after != '-') return true;
  }
  return false;
}

// The option each entry of `help` starts with: "  --heap=POLICY   heap ..." -> "--heap".
std::vector<std::string> entryOptions(std::string_view help) {
  std::vector<std::string> names;
  for (std::size_t start = 0; start < help.size();) {
    std::size_t end = help.find('\n', start);
    if (end == std::string_view::npos) end = help.size();
    std::string_view line = help.substr(start, end - start);
    if (line.starts_with("  --")) names.emplace_back(line.substr(2, line.find_first_of("=, ", 2) - 2));
    start = end + 1;
  }
  return names;
}

// A slip of the keyboard: the name's last two letters swapped, or its last letter
// dropped when they are the same.
std::string misspelt(std::string_view name) {
  std::string word(name);
  if (word[word.size() - 1] == word[word.size() - 2]) word.pop_back();
  else std::swap(word[word.size() - 1], word[word.size() - 2]);
  return word;
}

template <class Command>
class OptionTableTest : public testing::Test {};

using Commands = testing::Types<Run, Replay, Exec, Disasm, BenchContrived, BenchDefrag>;
TYPED_TEST_SUITE(OptionTableTest, Commands);

TYPED_TEST(OptionTableTest, EveryRowIsTakenByTheParser) {
  for (const auto& row : TypeParam::table()) {
    std::string word(row.spec.name);
    if (row.spec.argument == OptionArgument::required) word += "=x";  // the row may refuse x, not the name
    typename TypeParam::Options o;
    auto [exit, said] = parsed<TypeParam>({word}, o);
    EXPECT_EQ(said.find("unknown option"), std::string::npos) << word << ": " << said;
  }
}

TYPED_TEST(OptionTableTest, AMisspeltNameSuggestsTheRow) {
  for (const auto& row : TypeParam::table()) {
    std::string value = row.spec.argument == OptionArgument::required ? "=x" : "";
    std::string word = misspelt(row.spec.name) + value;
    typename TypeParam::Options o;
    auto [exit, said] = parsed<TypeParam>({word}, o);
    EXPECT_EQ(exit, kExitUsage) << word;
    EXPECT_NE(said.find("did you mean '" + std::string(row.spec.name) + value + "'?"), std::string::npos)
        << word << ": " << said;
  }
}

TYPED_TEST(OptionTableTest, EveryRowIsInTheHelpAndEveryEntryIsARow) {
  std::optional<std::string> help = TypeParam::help();
  if (!help) GTEST_SKIP() << "no help of its own";
  for (const auto& row : TypeParam::table()) EXPECT_TRUE(namesOption(*help, row.spec.name)) << row.spec.name;
  for (const std::string& name : entryOptions(*help))
    EXPECT_NE(optionRow(TypeParam::table(), name), nullptr) << name << " has an entry in --help but no row";
  EXPECT_EQ(help->find("{default}"), std::string::npos);
}

TYPED_TEST(OptionTableTest, TheHelpShowsEachDefaultAndTheParserAgrees) {
  using Options = typename TypeParam::Options;
  Options defaults;
  ASSERT_EQ(parsed<TypeParam>({}, defaults).first, std::nullopt);
  for (const auto& row : TypeParam::table()) {
    for (const HelpEntry& entry : row.help) {
      if (!entry.usage.empty() && entry.text.find("{default}") != std::string::npos) {
        EXPECT_TRUE(static_cast<bool>(row.shownDefault)) << row.spec.name << ": its help shows a default it has not";
      }
    }
    if (!row.shownDefault) continue;
    const std::string shown = row.shownDefault(Options{});
    if (TypeParam::help() && row.described()) {  // else another row's entry describes it
      std::string entries;
      for (const HelpEntry& entry : row.help)
        if (!entry.usage.empty()) entries += oneLine(helpEntryLines(entry, shown));
      EXPECT_TRUE(entries.find("(default " + shown) != std::string::npos ||
                  entries.find(shown + " (default") != std::string::npos)
          << row.spec.name << ": its help does not show the default " << shown << ": " << entries;
    }
    Options given;
    auto [exit, said] = parsed<TypeParam>({std::string(row.spec.name) + "=" + shown}, given);
    EXPECT_EQ(exit, std::nullopt) << row.spec.name << "=" << shown << ": " << said;
    EXPECT_TRUE(given == defaults) << row.spec.name << "=" << shown << " is not the default";
  }
}

// A size given twice in two spellings is one value in every command that takes one
// (the parser compares the row's OptionValue): not a conflict.
TYPED_TEST(OptionTableTest, AHeapSizeGivenTwiceIsComparedAsASize) {
  if (!optionRow(TypeParam::table(), "--heap-size")) GTEST_SKIP() << "no --heap-size";
  typename TypeParam::Options o;
  auto [exit, said] = parsed<TypeParam>({"--heap-size=16M", "--heap-size=16384K"}, o);
  EXPECT_EQ(exit, std::nullopt) << said;
  EXPECT_EQ(said.find("conflicting options"), std::string::npos) << said;
}

TEST(OptionTable, HelpEntriesKeepTheirColumns) {
  EXPECT_EQ(helpEntryLines({"--gc-log", "one line"}, ""), "  --gc-log            one line\n");
  EXPECT_EQ(helpEntryLines({"--max-depth=N", "limit (default {default})\nsecond"}, "7"),
            "  --max-depth=N       limit (default 7)\n                      second\n");
  EXPECT_EQ(helpEntryLines({"--gc-pauses-file=PATH", "write"}, ""), "  --gc-pauses-file=PATH  write\n");
  EXPECT_EQ(helpEntryLines({"--a, --b,\n  --c", "\nboth"}, ""), "  --a, --b,\n  --c\n                      both\n");
}

// The call-depth default is vm/vm_options.h's, in run's options and its --help alike.
TEST(OptionTable, TheCallDepthDefaultIsTheVmsOwn) {
  EXPECT_EQ(RunOptions{}.maxDepth, vm::VMOptions{}.maxDepth);
  EXPECT_NE(runOptionsHelp().find("(default " + std::to_string(vm::kDefaultMaxDepth) + ")"), std::string::npos);
}

}  // namespace
}  // namespace kith::cli
