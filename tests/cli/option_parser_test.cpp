#include "cli/option_parser.h"

#include <gtest/gtest.h>

#include <string_view>
#include <vector>

namespace kith::cli {
namespace {

const std::vector<OptionSpec> kSpecs = {{"--heap", OptionArgument::required},
                                        {"--stats", OptionArgument::optional},
                                        {"--gc-log", OptionArgument::none}};

struct Parsed {
  CommandLine line;
  std::optional<CommandLineError> error;
};

Parsed parse(std::vector<std::string_view> args, OperandPlacement placement = OperandPlacement::endsOptions) {
  Parsed p;
  p.error = parseCommandLine("run", kSpecs, args, placement, p.line);
  return p;
}

TEST(OptionParser, AValueAfterEqualsOrAsTheNextWordIsTheSame) {
  for (auto args : {std::vector<std::string_view>{"--heap=knuth", "a.kith"},
                    std::vector<std::string_view>{"--heap", "knuth", "a.kith"}}) {
    Parsed p = parse(args);
    ASSERT_FALSE(p.error);
    ASSERT_EQ(p.line.options.size(), 1u);
    EXPECT_EQ(p.line.options[0].spelling(), "--heap=knuth");
    EXPECT_EQ(p.line.operands, std::vector<std::string_view>{"a.kith"});
  }
}

TEST(OptionParser, AnOptionalValueComesOnlyAfterEquals) {
  Parsed p = parse({"--stats", "json"});
  ASSERT_FALSE(p.error);
  EXPECT_EQ(p.line.options[0].spelling(), "--stats");
  EXPECT_EQ(p.line.operands, std::vector<std::string_view>{"json"});  // the script, as getopt_long reads it
  EXPECT_EQ(parse({"--stats=json"}).line.options[0].spelling(), "--stats=json");
}

TEST(OptionParser, DoubleDashEndsTheOptionsAndDashIsAnOperand) {
  Parsed p = parse({"--", "--heap=knuth"}, OperandPlacement::anywhere);
  ASSERT_FALSE(p.error);
  EXPECT_TRUE(p.line.options.empty());
  EXPECT_EQ(p.line.operands, std::vector<std::string_view>{"--heap=knuth"});
  p = parse({"-", "--gc-log"}, OperandPlacement::anywhere);
  ASSERT_FALSE(p.error);
  EXPECT_EQ(p.line.operands, std::vector<std::string_view>{"-"});
  EXPECT_EQ(p.line.options.size(), 1u);  // anywhere: an option may follow an operand
}

TEST(OptionParser, TheFirstOperandEndsTheOptionsWhenAskedTo) {
  Parsed p = parse({"a.kith", "--gc-log"});
  ASSERT_FALSE(p.error);
  EXPECT_TRUE(p.line.options.empty());
  EXPECT_EQ(p.line.operands, (std::vector<std::string_view>{"a.kith", "--gc-log"}));
}

TEST(OptionParser, AMisspelledOptionSuggestsTheNearest) {
  Parsed p = parse({"--hep=knuth", "a.kith"});
  ASSERT_TRUE(p.error);
  EXPECT_EQ(p.error->message, "unknown option for 'run': --hep=knuth");
  EXPECT_EQ(p.error->hint, "did you mean '--heap=knuth'?");
  p = parse({"--zzzzzz"});
  ASSERT_TRUE(p.error);
  EXPECT_EQ(p.error->hint, "(see kith run --help)");
  EXPECT_TRUE(parse({"-x"}).error);
}

TEST(OptionParser, TheSameOptionWithAnotherValueIsAConflictNamingBoth) {
  Parsed p = parse({"--stats", "--stats=json"});
  ASSERT_TRUE(p.error);
  EXPECT_EQ(p.error->message, "conflicting options: --stats and --stats=json (give --stats once)");
  p = parse({"--heap=knuth", "--heap", "list"});
  ASSERT_TRUE(p.error);
  EXPECT_NE(p.error->message.find("--heap=knuth and --heap=list"), std::string::npos);
  p = parse({"--heap=knuth", "--heap", "knuth", "a.kith"});  // the same twice: no conflict
  ASSERT_FALSE(p.error);
  EXPECT_EQ(p.line.options.size(), 1u);
}

TEST(OptionParser, ValuesAreComparedAsWhatTheyMean) {
  const std::vector<OptionSpec> specs = {{"--heap-size", OptionArgument::required, OptionValue::size},
                                         {"--seeds", OptionArgument::required, OptionValue::integer},
                                         {"--fill", OptionArgument::required, OptionValue::real},
                                         {"--heap", OptionArgument::required}};
  auto conflicts = [&](std::vector<std::string_view> args) {
    CommandLine line;
    return parseCommandLine("bench", specs, args, OperandPlacement::anywhere, line).has_value();
  };
  EXPECT_FALSE(conflicts({"--heap-size=16K", "--heap-size", "16384"}));
  EXPECT_FALSE(conflicts({"--seeds=5", "--seeds=05"}));
  EXPECT_FALSE(conflicts({"--fill=0.5", "--fill=.50"}));
  EXPECT_TRUE(conflicts({"--heap-size=16K", "--heap-size=32K"}));
  EXPECT_TRUE(conflicts({"--heap-size=16K", "--heap-size=16Q"}));  // a value that is no size: as text
  EXPECT_TRUE(conflicts({"--heap=knuth", "--heap=Knuth"}));        // a name: as text
}

TEST(OptionParser, HelpIsSuggestedForAWordWithoutAValue) {
  Parsed p = parse({"--hepl"});
  ASSERT_TRUE(p.error);
  EXPECT_EQ(p.error->hint, "did you mean '--help'?");
  EXPECT_EQ(parse({"--hepl=knuth"}).error->hint, "did you mean '--heap=knuth'?");  // --help takes no value
}

TEST(OptionParser, MissingEmptyAndUnwantedValuesAreErrors) {
  EXPECT_EQ(parse({"--heap"}).error->message, "--heap needs a value: --heap=VALUE or --heap VALUE");
  EXPECT_EQ(parse({"--heap="}).error->message, "--heap needs a value; got an empty one");
  EXPECT_EQ(parse({"--gc-log=yes"}).error->message, "--gc-log takes no value; got '--gc-log=yes'");
}

TEST(OptionParser, HelpIsAskedForBeforeTheOptionsEnd) {
  EXPECT_TRUE(asksForHelp(kSpecs, {"--heap", "knuth", "--help"}, OperandPlacement::endsOptions));
  EXPECT_TRUE(asksForHelp(kSpecs, {"-h"}, OperandPlacement::endsOptions));
  EXPECT_FALSE(asksForHelp(kSpecs, {"a.kith", "--help"}, OperandPlacement::endsOptions));  // the script's
  EXPECT_TRUE(asksForHelp(kSpecs, {"a.trace", "--help"}, OperandPlacement::anywhere));
  EXPECT_FALSE(asksForHelp(kSpecs, {"--", "--help"}, OperandPlacement::anywhere));
  EXPECT_FALSE(asksForHelp(kSpecs, {"--bogus", "--help"}, OperandPlacement::endsOptions));  // the mistake first
}

}  // namespace
}  // namespace kith::cli
