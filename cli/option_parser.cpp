#include "cli/option_parser.h"

#include "cli/byte_size.h"
#include "cli/option_value.h"
#include "cli/suggestion.h"
#include "cli/usage_error.h"

namespace kith::cli {

std::string GivenOption::spelling() const {
  return value ? std::string(name) + "=" + *value : std::string(name);
}

namespace {

const OptionSpec* findSpec(const std::vector<OptionSpec>& specs, std::string_view name) {
  for (const OptionSpec& spec : specs)
    if (spec.name == name) return &spec;
  return nullptr;
}

std::optional<CommandLineError> unknownOption(std::string_view command, const std::vector<OptionSpec>& specs,
                                              std::string_view word, std::string_view name) {
  std::vector<std::string_view> names;
  for (const OptionSpec& spec : specs) names.push_back(spec.name);
  // Every command takes --help; a word with a value means some other option.
  if (word.find('=') == std::string_view::npos) names.push_back("--help");
  std::optional<std::string> nearest = nearestName(name, names);
  // The whole word corrected, value and all, so it can be copied back.
  std::string hint = nearest ? "did you mean '" + *nearest + std::string(word.substr(name.size())) + "'?"
                             : "(see kith " + std::string(command) + " --help)";
  return CommandLineError{"unknown option for '" + std::string(command) + "': " + std::string(word), hint};
}

// Whether two values of an option mean the same (OptionValue).
bool sameValue(OptionValue kind, const std::optional<std::string>& a, const std::optional<std::string>& b) {
  if (a == b) return true;
  if (!a || !b) return false;
  auto same = [&](auto parse) {
    auto x = parse(*a), y = parse(*b);
    return x && y && *x == *y;
  };
  switch (kind) {
    case OptionValue::text: return false;
    case OptionValue::size: return same(parseByteSize);
    case OptionValue::integer: return same(parseInteger);
    case OptionValue::real: return same(parseReal);
  }
  return false;
}

// Records one option; an error when the same option came before with another value.
std::optional<CommandLineError> record(const OptionSpec& spec, GivenOption given, CommandLine& out) {
  for (const GivenOption& earlier : out.options) {
    if (earlier.name != given.name) continue;
    if (sameValue(spec.value, earlier.value, given.value)) return std::nullopt;
    return CommandLineError{"conflicting options: " + earlier.spelling() + " and " + given.spelling() +
                                " (give " + std::string(given.name) + " once)",
                            ""};
  }
  out.options.push_back(std::move(given));
  return std::nullopt;
}

}  // namespace

std::optional<CommandLineError> parseCommandLine(std::string_view command, const std::vector<OptionSpec>& specs,
                                                 const std::vector<std::string_view>& args,
                                                 OperandPlacement placement, CommandLine& out) {
  bool optionsEnded = false;
  for (std::size_t i = 0; i < args.size(); ++i) {
    std::string_view word = args[i];
    bool isOption = !optionsEnded && word.size() > 1 && word[0] == '-';
    if (!isOption) {
      out.operands.push_back(word);
      if (placement == OperandPlacement::endsOptions) optionsEnded = true;
      continue;
    }
    if (word == "--") {
      optionsEnded = true;
      continue;
    }
    if (word == "--help" || word == "-h") {
      out.help = true;
      return std::nullopt;
    }
    std::size_t equals = word.find('=');
    std::string_view name = word.substr(0, equals);
    const OptionSpec* spec = word.starts_with("--") ? findSpec(specs, name) : nullptr;
    if (!spec) return unknownOption(command, specs, word, name);
    GivenOption given{spec->name, std::nullopt};
    if (equals != std::string_view::npos) {
      if (spec->argument == OptionArgument::none)
        return CommandLineError{std::string(name) + " takes no value; got '" + std::string(word) + "'", ""};
      given.value = std::string(word.substr(equals + 1));
    } else if (spec->argument == OptionArgument::required) {
      if (i + 1 == args.size())
        return CommandLineError{std::string(name) + " needs a value: " + std::string(name) + "=VALUE or " +
                                    std::string(name) + " VALUE",
                                ""};
      given.value = std::string(args[++i]);
    }
    if (spec->argument == OptionArgument::required && given.value->empty())
      return CommandLineError{std::string(name) + " needs a value; got an empty one", ""};
    if (auto error = record(*spec, std::move(given), out)) return error;
  }
  return std::nullopt;
}

std::optional<int> readCommandLine(std::string_view command, const std::vector<OptionSpec>& specs,
                                   const std::vector<std::string_view>& args, OperandPlacement placement,
                                   CommandLine& out) {
  std::optional<CommandLineError> error = parseCommandLine(command, specs, args, placement, out);
  if (!error) return std::nullopt;
  return usageError(error->message, error->hint);
}

bool asksForHelp(const std::vector<OptionSpec>& specs, const std::vector<std::string_view>& args,
                 OperandPlacement placement) {
  CommandLine line;
  return !parseCommandLine("", specs, args, placement, line) && line.help;
}

}  // namespace kith::cli
