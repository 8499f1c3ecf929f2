#include "cli/suggestion.h"

#include <algorithm>

namespace kith::cli {

std::size_t editDistance(std::string_view a, std::string_view b) {
  // Three rows of the dynamic-programming table: a transposition looks two rows back.
  std::vector<std::size_t> beforePrevious(b.size() + 1), previous(b.size() + 1), current(b.size() + 1);
  for (std::size_t j = 0; j <= b.size(); ++j) previous[j] = j;
  for (std::size_t i = 1; i <= a.size(); ++i) {
    current[0] = i;
    for (std::size_t j = 1; j <= b.size(); ++j) {
      std::size_t substitution = previous[j - 1] + (a[i - 1] == b[j - 1] ? 0 : 1);
      current[j] = std::min({previous[j] + 1, current[j - 1] + 1, substitution});
      if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1])
        current[j] = std::min(current[j], beforePrevious[j - 2] + 1);
    }
    std::swap(beforePrevious, previous);
    std::swap(previous, current);
  }
  return previous[b.size()];
}

std::optional<std::string> nearestName(std::string_view word, const std::vector<std::string_view>& names) {
  constexpr std::size_t kMaxEdits = 2;
  std::optional<std::string_view> nearest;
  std::size_t nearestDistance = kMaxEdits + 1;
  bool tie = false;
  for (std::string_view name : names) {
    std::size_t d = editDistance(word, name);
    if (d == 0 || d >= word.size()) continue;
    if (d < nearestDistance) {
      nearest = name;
      nearestDistance = d;
      tie = false;
    } else if (d == nearestDistance && name != *nearest) {
      tie = true;
    }
  }
  if (nearest && !tie) return std::string(*nearest);
  if (word.empty()) return std::nullopt;
  std::optional<std::string_view> extension;
  for (std::string_view name : names) {
    if (!name.starts_with(word) || name == word) continue;
    if (extension && *extension != name) return std::nullopt;
    extension = name;
  }
  return extension ? std::optional<std::string>(*extension) : std::nullopt;
}

std::string didYouMean(std::string_view word, const std::vector<std::string_view>& names) {
  std::optional<std::string> name = nearestName(word, names);
  return name ? "did you mean '" + *name + "'?" : std::string();
}

}  // namespace kith::cli
