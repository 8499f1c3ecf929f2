#include "cli/option_table.h"

#include <algorithm>

namespace kith::cli {

namespace {

constexpr std::size_t kTextColumn = 22;  // where an entry's text starts: "  " and 20 for the usage
constexpr std::string_view kDefaultMark = "{default}";

std::string withDefault(std::string text, std::string_view shownDefault) {
  for (std::size_t at = text.find(kDefaultMark); at != std::string::npos; at = text.find(kDefaultMark, at))
    text.replace(at, kDefaultMark.size(), shownDefault);
  return text;
}

}  // namespace

std::string helpEntryLines(const HelpEntry& entry, std::string_view shownDefault) {
  std::string text = withDefault(std::string(entry.text), shownDefault);
  std::string lines = "  " + std::string(entry.usage);
  bool below = text.starts_with('\n');
  if (below) {
    text.erase(0, 1);
    lines += "\n";
  } else {
    // A long usage keeps two spaces before its text, as `--gc-pauses-file=PATH  write`.
    std::size_t used = std::min(2 + entry.usage.size(), kTextColumn);
    lines += std::string(std::max<std::size_t>(2, kTextColumn - used), ' ');
  }
  for (std::size_t start = 0, line = 0; start <= text.size(); ++line) {
    std::size_t end = std::min(text.find('\n', start), text.size());
    if (line > 0 || below) lines += std::string(kTextColumn, ' ');
    lines += text.substr(start, end - start) + "\n";
    start = end + 1;
  }
  return lines;
}

}  // namespace kith::cli
