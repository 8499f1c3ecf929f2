// A command's options as one table (docs/CLI.md): a row per option with its name,
// how its value is read into the command's options, its default and its --help
// entries. The parser's list of options (option_parser.h), the names a misspelling is
// compared with and the lines of `kith COMMAND --help` are all made from the rows,
// so none of them can name an option the others do not. A table is a constant
// array (no work at start-up): its readers are plain functions, often one of the
// templates below for a member of the command's options struct.
#pragma once

#include <array>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "cli/option_parser.h"
#include "cli/option_value.h"

namespace kith::cli {

// One entry of a command's --help: "  --heap=POLICY       heap policy (default ...)".
struct HelpEntry {
  std::string_view usage;  // how the option is written: "--heap=POLICY"; empty: no entry
  // What it does, lines split by '\n', shown from column 23 (or two spaces after a
  // long usage); "{default}" stands for the row's default. Starting with '\n', it
  // starts on the line after the usage (a usage of more than one line).
  std::string_view text;
};

template <class Options>
struct OptionRow {
  OptionSpec spec;  // its name, whether it takes a value, how repeats compare
  // Reads the option as given into `options`: nullopt when taken, else the usage
  // error's exit code (after the message).
  std::optional<int> (*read)(const GivenOption& given, Options& options);
  // Its entries in --help, in order (--gc-stress and --gc-stress=move); none when
  // another row's entry describes it too (--fail-alloc-every in --fail-alloc's).
  std::array<HelpEntry, 2> help = {};
  // The default, written as the option's value would be ("64M"), read from `options`
  // as they are before any option; null for a flag, or a default that is no value
  // of the option (--gc-threshold's: the collector's own).
  std::string (*shownDefault)(const Options& options) = nullptr;

  bool described() const { return !help[0].usage.empty(); }
};

template <class Options>
using OptionTable = std::span<const OptionRow<Options>>;

// One help entry as --help prints it, "{default}" replaced by `shownDefault`.
std::string helpEntryLines(const HelpEntry& entry, std::string_view shownDefault);

// What the command-line parser needs of each row.
template <class Options>
std::vector<OptionSpec> optionSpecs(OptionTable<Options> table) {
  std::vector<OptionSpec> specs;
  for (const OptionRow<Options>& row : table) specs.push_back(row.spec);
  return specs;
}

// The help entries of every row, in the table's order, with the defaults of `defaults`.
template <class Options>
std::string optionsHelp(OptionTable<Options> table, const Options& defaults = Options{}) {
  std::string help;
  for (const OptionRow<Options>& row : table)
    for (const HelpEntry& entry : row.help)
      if (!entry.usage.empty())
        help += helpEntryLines(entry, row.shownDefault ? row.shownDefault(defaults) : std::string());
  return help;
}

// The row of the option named `name` ("--heap"), or null.
template <class Options>
const OptionRow<Options>* optionRow(OptionTable<Options> table, std::string_view name) {
  for (const OptionRow<Options>& row : table)
    if (row.spec.name == name) return &row;
  return nullptr;
}

// Reads each given option (the parser found each one's row) in the order given:
// nullopt when all were taken, else the first usage error's exit code.
template <class Options>
std::optional<int> readOptions(OptionTable<Options> table, const std::vector<GivenOption>& given, Options& options) {
  for (const GivenOption& option : given)
    if (auto exit = optionRow(table, option.name)->read(option, options)) return exit;
  return std::nullopt;
}

// Readers for a member of the options: a flag sets it, a text or a path is kept as
// given, an integer must lie in [min, max] ("--NAME wants a number from MIN to MAX").
template <class Options, bool Options::*member>
std::optional<int> readFlag(const GivenOption&, Options& options) {
  options.*member = true;
  return std::nullopt;
}

template <class Options, std::string Options::*member>
std::optional<int> readText(const GivenOption& given, Options& options) {
  options.*member = *given.value;
  return std::nullopt;
}

template <class Options, auto member, long long min, long long max>
std::optional<int> readInteger(const GivenOption& given, Options& options) {
  return readIntegerOption(given.name, *given.value, min, max, options.*member);
}

// A default shown as its number: std::to_string of the member.
template <class Options, auto member>
std::string shownNumber(const Options& options) {
  return std::to_string(options.*member);
}

// A default shown as it is: the member's text.
template <class Options, std::string Options::*member>
std::string shownText(const Options& options) {
  return options.*member;
}

}  // namespace kith::cli
