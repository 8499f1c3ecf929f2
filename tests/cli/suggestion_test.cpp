#include "cli/suggestion.h"

#include <gtest/gtest.h>

namespace kith::cli {
namespace {

TEST(EditDistance, CountsEachKindOfEditOnce) {
  EXPECT_EQ(editDistance("heap", "heap"), 0u);
  EXPECT_EQ(editDistance("hep", "heap"), 1u);        // insertion
  EXPECT_EQ(editDistance("heaps", "heap"), 1u);      // deletion
  EXPECT_EQ(editDistance("heat", "heap"), 1u);       // substitution
  EXPECT_EQ(editDistance("rnu", "run"), 1u);         // neighbours swapped
  EXPECT_EQ(editDistance("", "run"), 3u);
  EXPECT_EQ(editDistance("continous", "continuous"), 1u);
}

TEST(NearestName, SuggestsTheOneNameWithinTwoEdits) {
  std::vector<std::string_view> names = {"list", "knuth", "estranged", "tlsf"};
  EXPECT_EQ(nearestName("estrange", names), "estranged");
  EXPECT_EQ(nearestName("knth", names), "knuth");
  EXPECT_EQ(nearestName("tlfs", names), "tlsf");
  EXPECT_EQ(nearestName("boehmish", names), std::nullopt);  // nothing near
  EXPECT_EQ(nearestName("knuth", names), std::nullopt);     // no mistake, no suggestion
}

TEST(NearestName, ShortWordsAndTiesSuggestNothing) {
  EXPECT_EQ(nearestName("x", {"list", "tlsf"}), std::nullopt);   // every name is as far as the word is long
  EXPECT_EQ(nearestName("lisx", {"list", "lisp"}), std::nullopt);  // two at one edit
}

TEST(NearestName, FallsBackToTheOneNameAWordBegins) {
  EXPECT_EQ(nearestName("--gc-over", {"--gc", "--gc-overhead-limit", "--gc-log"}), "--gc-overhead-limit");
  EXPECT_EQ(nearestName("--gc-", {"--gc-step", "--gc-log"}), std::nullopt);  // two names begin so
}

TEST(DidYouMean, IsTheHintLineOrEmpty) {
  EXPECT_EQ(didYouMean("defrg", {"contrived", "defrag"}), "did you mean 'defrag'?");
  EXPECT_EQ(didYouMean("zzz", {"contrived", "defrag"}), "");
}

}  // namespace
}  // namespace kith::cli
