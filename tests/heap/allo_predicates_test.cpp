// Allotheque allocation predicates (heap/allotheque/allo_predicates.h) on a fake container:
// classes 0..7, each holding some chunks; which class each predicate takes from.
#include <gtest/gtest.h>

#include <array>
#include <vector>

#include "heap/allotheque/allo_predicates.h"

namespace kith::heap::allotheque {
namespace {

struct Fake {
  using Cursor = std::size_t;
  std::array<int, 8> chunks{};  // how many chunks each class holds
  std::size_t last_ = 8;
  std::vector<std::size_t> taken;
  Cursor none() const { return 8; }
  Cursor find(Key k, const Context&) const { return k < 8 && chunks[k] ? k : 8; }
  Cursor first() const { return next0(0); }
  Cursor next(Cursor c) const { return next0(c + 1); }
  Cursor last() const { return last_ < 8 && chunks[last_] ? last_ : 8; }
  Cursor resume() const { return last_ < 8 ? next0(last_) : 8; }
  Key keyOf(Cursor c, const Context&) const { return c; }
  void* take(Cursor c, const Request&, Context&) {
    if (!chunks[c]) return nullptr;
    --chunks[c];
    last_ = c;
    taken.push_back(c);
    return &chunks[c];
  }
  Cursor next0(std::size_t k) const {
    for (; k < 8; ++k)
      if (chunks[k]) return k;
    return 8;
  }
};
static_assert(Navigable<Fake>);

Context noArena{nullptr, 0};

template <class P>
std::size_t pick(Fake& f, std::optional<Key> target) {
  void* p = P::select(f, target, Request{16, nullptr}, noArena);
  return p ? f.taken.back() : 99;
}

TEST(AlloPredicates, FirstTakesTheLowestNonEmptyClass) {
  Fake f;
  f.chunks = {0, 0, 1, 0, 1, 0, 0, 0};
  EXPECT_EQ(pick<First>(f, 4), 2u);
  EXPECT_EQ(pick<First>(f, 4), 4u);
  EXPECT_EQ(pick<First>(f, 4), 99u);
}

TEST(AlloPredicates, MatchTakesOnlyTheTarget) {
  Fake f;
  f.chunks = {1, 0, 0, 1, 0, 0, 0, 0};
  EXPECT_EQ(pick<Match>(f, 3), 3u);
  EXPECT_EQ(pick<Match>(f, 3), 99u);
  EXPECT_EQ(pick<Match>(f, std::nullopt), 99u);
}

TEST(AlloPredicates, MatchFirstFallsBackToFirst) {
  Fake f;
  f.chunks = {0, 1, 0, 1, 0, 0, 0, 0};
  EXPECT_EQ(pick<MatchFirst>(f, 3), 3u);
  EXPECT_EQ(pick<MatchFirst>(f, 3), 1u);
}

TEST(AlloPredicates, MatchLastFirstPrefersTheLastUsedClass) {
  Fake f;
  f.chunks = {1, 0, 0, 0, 0, 2, 1, 0};
  EXPECT_EQ(pick<MatchLastFirst>(f, 6), 6u);  // match
  EXPECT_EQ(pick<MatchLastFirst>(f, 6), 0u);  // last (6) empty -> first
  f.last_ = 5;
  EXPECT_EQ(pick<MatchLastFirst>(f, 7), 5u);  // last used
  EXPECT_EQ(pick<MatchLastFirst>(f, std::nullopt), 5u);
  EXPECT_EQ(pick<MatchLastFirst>(f, 2), 99u);
}

TEST(AlloPredicates, MatchNextIsNextFitFromTheLastUsed) {
  Fake f;
  f.chunks = {1, 0, 1, 1, 0, 1, 0, 0};
  f.last_ = 3;
  EXPECT_EQ(pick<MatchNext>(f, 2), 2u);  // match first
  EXPECT_EQ(pick<MatchNext>(f, 7), 3u);  // resume at the last used, 2 (now empty): 3
  EXPECT_EQ(pick<MatchNext>(f, 7), 5u);  // 3 emptied: the next one after it
  EXPECT_EQ(pick<MatchNext>(f, 7), 0u);  // wraps to the beginning
  EXPECT_EQ(pick<MatchNext>(f, 7), 99u);
}

TEST(AlloPredicates, BestTakesTheSmallestKeyAtLeastTheTarget) {
  Fake f;
  f.chunks = {1, 0, 0, 1, 0, 1, 0, 0};
  EXPECT_EQ(pick<Best>(f, 4), 5u);
  EXPECT_EQ(pick<Best>(f, 4), 99u);
  EXPECT_EQ(pick<Best>(f, 0), 0u);
}

}  // namespace
}  // namespace kith::heap::allotheque
