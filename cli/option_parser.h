// The command line as GNU tools read it (CLI.md, Conventions): `--opt=value` and
// `--opt value` are the same, `--` ends the options, `-` is an operand (standard
// input or output), a misspelled option is an error that suggests the nearest one,
// and an option given twice with different values is an error naming both. Each
// command lists its options; what the values mean is the command's business.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace kith::cli {

enum class OptionArgument {
  none,      // --gc-log
  required,  // --heap=POLICY or --heap POLICY
  optional,  // --stats or --stats=json: a value only after '=', as getopt_long reads it,
             // so `--stats json` is --stats followed by the operand json
};

// What an option's value is, so that the same option given twice is compared by
// value: --heap-size=16K and --heap-size=16384 are one size, --gc-threshold=0.5 and
// =.50 one fraction. A value that does not parse is compared as text (and refused
// by the command when it reads it).
enum class OptionValue { text, size, integer, real };

struct OptionSpec {
  std::string_view name;  // with its dashes: "--heap"
  OptionArgument argument = OptionArgument::none;
  OptionValue value = OptionValue::text;
};

struct GivenOption {
  std::string_view name;
  std::optional<std::string> value;
  // The option as one word, "--heap=knuth" or "--gc-log", however it was written.
  std::string spelling() const;
};

// Whether an operand ends the options (run: the words after the script are the
// script's own) or options may follow operands (replay TRACE --stats).
enum class OperandPlacement { endsOptions, anywhere };

struct CommandLine {
  std::vector<GivenOption> options;  // in the order given; a repeat with the same value once
  std::vector<std::string_view> operands;
  bool help = false;  // --help or -h among the options (the rest is then not read)
};

struct CommandLineError {
  std::string message;
  std::string hint;  // "did you mean ...?", or empty
};

// Reads `args` (the words after the command's name) against `specs`; `command` names
// the command in messages ("run", "bench defrag").
std::optional<CommandLineError> parseCommandLine(std::string_view command, const std::vector<OptionSpec>& specs,
                                                 const std::vector<std::string_view>& args,
                                                 OperandPlacement placement, CommandLine& out);

// As parseCommandLine, and a mistake is printed as a usage error: nullopt when
// `out` is complete, else the exit code.
std::optional<int> readCommandLine(std::string_view command, const std::vector<OptionSpec>& specs,
                                   const std::vector<std::string_view>& args, OperandPlacement placement,
                                   CommandLine& out);

// Whether the words ask for the command's help: --help or -h before anything that
// ends the options, and no mistake before it.
bool asksForHelp(const std::vector<OptionSpec>& specs, const std::vector<std::string_view>& args,
                 OperandPlacement placement);

}  // namespace kith::cli
