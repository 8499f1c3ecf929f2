// "Did you mean ...?" for a misspelled name on the command line (CLI.md: a
// misspelled option, policy, collector or command suggests the nearest valid name).
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace kith::cli {

// The edit distance between two words, counting a swap of two neighbouring
// characters as one edit (the commonest typing slip) as well as an insertion, a
// deletion and a substitution.
std::size_t editDistance(std::string_view a, std::string_view b);

// The one name `word` most likely misspells: the nearest within two edits (and
// fewer edits than the word has characters, so "x" suggests nothing), else the one
// name `word` is a prefix of. nullopt when no name is near, or two are equally near.
std::optional<std::string> nearestName(std::string_view word, const std::vector<std::string_view>& names);

// The hint line for a usage error: "did you mean 'NAME'?", or empty when nothing is near.
std::string didYouMean(std::string_view word, const std::vector<std::string_view>& names);

}  // namespace kith::cli
