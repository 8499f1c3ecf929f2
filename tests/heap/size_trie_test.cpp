// SizeTrie: free blocks by size in a bitwise trie (dlmalloc 2.8's treebin). Checked
// against a std::multimap model over random and adversarial sequences; every
// operation's step count against the bound of its path length.
#include "heap/layers/size_trie.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <memory>
#include <vector>

#include "heap/workload.h"

namespace kith::heap {
namespace {

// Blocks for the trie to link: 64-byte slots, aligned, never touched otherwise.
struct Slots {
  struct alignas(16) Slot {
    std::byte bytes[64];
  };
  std::vector<Slot> slots;
  explicit Slots(std::size_t n) : slots(n) {}
  void* operator[](std::size_t i) { return &slots[i]; }
};

// A trie for one of Lea's medium bins: [4096, 5120), keyed on bits 9..4.
constexpr unsigned kTop = 9;
constexpr std::size_t kLower = 4096;
constexpr std::size_t kSizes = (5120 - 4096) / 16;  // 64 sizes
constexpr std::size_t kPath = SizeTrie::pathNodes(kTop);

TEST(SizeTrie, PathLengthIsOneNodePerKeyBitPlusTheRoot) {
  EXPECT_EQ(SizeTrie::pathNodes(9), 7u);    // bits 9..4 = 6, + 1
  EXPECT_EQ(SizeTrie::pathNodes(13), 11u);  // Lea's widest medium bin
  EXPECT_EQ(SizeTrie::pathNodes(47), 45u);  // Lea's large bin
  EXPECT_LE(sizeof(SizeTrie::Node), 56u);
}

TEST(SizeTrie, EmptyTrieFindsNothing) {
  SizeTrie t(kTop);
  std::size_t steps = 0;
  EXPECT_TRUE(t.empty());
  EXPECT_EQ(t.bestFit(kLower, steps), nullptr);
  EXPECT_EQ(t.smallest(steps), nullptr);
  EXPECT_EQ(t.largest(), nullptr);
  EXPECT_EQ(steps, 0u);
  EXPECT_EQ(t.checkStructure(), "");
}

TEST(SizeTrie, BestFitIsTheSmallestBlockThatFitsNotTheFirstFiled) {
  Slots s(8);
  SizeTrie t(kTop);
  std::size_t steps = 0;
  t.insert(s[0], 5008, steps);
  t.insert(s[1], 4208, steps);
  t.insert(s[2], 4800, steps);
  t.insert(s[3], 4112, steps);
  ASSERT_EQ(t.checkStructure(), "");
  EXPECT_EQ(t.bestFit(4096, steps), s[3]);
  EXPECT_EQ(t.bestFit(4128, steps), s[1]);
  EXPECT_EQ(t.bestFit(4224, steps), s[2]);
  EXPECT_EQ(t.bestFit(4800, steps), s[2]);
  EXPECT_EQ(t.bestFit(4801, steps), s[0]);
  EXPECT_EQ(t.bestFit(5024, steps), nullptr);
  EXPECT_EQ(t.smallest(steps), s[3]);
  EXPECT_EQ(t.largest(), s[0]);
  EXPECT_EQ(t.count(), 4u);
}

TEST(SizeTrie, EqualSizesShareANodeAndTheTreeNodeIsTakenFirst) {
  Slots s(4);
  SizeTrie t(kTop);
  std::size_t steps = 0;
  for (int i = 0; i < 3; ++i) t.insert(s[i], 4608, steps);
  ASSERT_EQ(t.checkStructure(), "");
  EXPECT_EQ(t.bestFit(4500, steps), s[0]);
  t.remove(s[0], steps);  // a ring mate takes its place in the tree
  ASSERT_EQ(t.checkStructure(), "");
  void* next = t.bestFit(4500, steps);
  EXPECT_TRUE(next == s[1] || next == s[2]);
  t.remove(next, steps);
  t.remove(next == s[1] ? s[2] : s[1], steps);
  EXPECT_TRUE(t.empty());
  EXPECT_EQ(t.checkStructure(), "");
}

TEST(SizeTrie, RemovingAnInnerNodeKeepsEveryPathValid) {
  Slots s(kSizes);
  SizeTrie t(kTop);
  std::size_t steps = 0;
  // Every size of the bin, in an order that fills the upper levels first.
  for (std::size_t i = 0; i < kSizes; ++i) t.insert(s[i], kLower + 16 * ((i * 37) % kSizes), steps);
  ASSERT_EQ(t.checkStructure(), "");
  for (std::size_t i = 0; i < kSizes; i += 3) {
    t.remove(s[i], steps);
    ASSERT_EQ(t.checkStructure(), "") << i;
  }
}

TEST(SizeTrie, CheckStructureCatchesAWrongSizeAndABrokenRing) {
  Slots s(4);
  SizeTrie t(kTop);
  std::size_t steps = 0;
  t.insert(s[0], 4608, steps);
  t.insert(s[1], 4208, steps);
  t.insert(s[2], 4208, steps);
  ASSERT_EQ(t.checkStructure(), "");
  auto* child = static_cast<SizeTrie::Node*>(s[1]);
  child->size += 1024;  // now on the wrong side of its path, and its ring disagrees
  EXPECT_NE(t.checkStructure(), "");
  child->size -= 1024;
  ASSERT_EQ(t.checkStructure(), "");
  auto* mate = static_cast<SizeTrie::Node*>(s[2]);
  mate->next = mate;
  EXPECT_NE(t.checkStructure(), "");
}

// Random inserts and removals against a multimap of size -> block: best fit,
// smallest and largest agree with the model, the shape checks out, and no
// operation exceeds its bound.
TEST(SizeTrie, AgreesWithAModelAndStaysWithinItsStepBounds) {
  constexpr std::size_t kBlocks = 3000;
  Slots s(kBlocks);
  SizeTrie t(kTop);
  std::multimap<std::size_t, void*> model;
  std::vector<std::size_t> sizeOf(kBlocks);
  std::vector<std::size_t> filed, unfiled;
  for (std::size_t i = 0; i < kBlocks; ++i) unfiled.push_back(i);
  SeededRandom rng(2026);
  std::size_t maxInsert = 0, maxRemove = 0, maxBestFit = 0, maxSmallest = 0;
  for (int op = 0; op < 200'000; ++op) {
    bool insert = filed.empty() || (!unfiled.empty() && rng.chance(55));
    std::size_t steps = 0;
    if (insert) {
      std::size_t k = rng.below(unfiled.size());
      std::size_t i = unfiled[k];
      unfiled[k] = unfiled.back();
      unfiled.pop_back();
      // A few sizes much more often than the rest: long rings and a deep trie at once.
      sizeOf[i] = kLower + 16 * (rng.chance(50) ? rng.below(4) * 17 : rng.below(kSizes));
      t.insert(s[i], sizeOf[i], steps);
      maxInsert = std::max(maxInsert, steps);
      model.emplace(sizeOf[i], s[i]);
      filed.push_back(i);
    } else {
      // Within the bin's range (as Lea's bins ask), not always a multiple of 16.
      std::size_t need = kLower + 16 * rng.below(kSizes) + 8 * rng.below(2);
      void* fit = t.bestFit(need, steps);
      maxBestFit = std::max(maxBestFit, steps);
      auto it = model.lower_bound(need);
      ASSERT_EQ(fit == nullptr, it == model.end()) << op;
      if (fit) {
        ASSERT_EQ(static_cast<SizeTrie::Node*>(fit)->size, it->first) << op;
      }
      steps = 0;
      void* least = t.smallest(steps);
      maxSmallest = std::max(maxSmallest, steps);
      ASSERT_EQ(static_cast<SizeTrie::Node*>(least)->size, model.begin()->first);
      ASSERT_EQ(static_cast<SizeTrie::Node*>(t.largest())->size, model.rbegin()->first);
      // Remove either the fit (as malloc does) or any block (a coalescing neighbour).
      std::size_t k = rng.below(filed.size());
      void* victim = fit && rng.chance(50) ? fit : s[filed[k]];
      std::size_t i = static_cast<std::size_t>(static_cast<Slots::Slot*>(victim) - &s.slots[0]);
      steps = 0;
      t.remove(victim, steps);
      maxRemove = std::max(maxRemove, steps);
      auto range = model.equal_range(sizeOf[i]);
      auto m = std::find_if(range.first, range.second, [&](auto& e) { return e.second == victim; });
      ASSERT_NE(m, range.second);
      model.erase(m);
      filed.erase(std::find(filed.begin(), filed.end(), i));
      unfiled.push_back(i);
    }
    ASSERT_EQ(t.count(), model.size());
    if (op % 997 == 0) {
      ASSERT_EQ(t.checkStructure(), "") << op;
    }
  }
  EXPECT_LE(maxInsert, kPath + 1);
  EXPECT_LE(maxRemove, kPath);
  EXPECT_LE(maxBestFit, 2 * kPath - 1);
  EXPECT_LE(maxSmallest, kPath);
  EXPECT_GE(maxInsert, kPath - 1);  // the bounds are reached, not just respected
}

// The pathology of an unsorted bin: many blocks of one size, one request that
// needs a slightly bigger block. The trie answers in a few steps however many
// equal blocks there are.
TEST(SizeTrie, ManyEqualBlocksDoNotLengthenTheSearch) {
  for (std::size_t n : {10, 1000, 100'000}) {
    Slots s(n + 2);
    SizeTrie t(kTop);
    std::size_t steps = 0;
    for (std::size_t i = 0; i < n; ++i) t.insert(s[i], 4608, steps);
    t.insert(s[n], 5104, steps);
    steps = 0;
    EXPECT_EQ(t.bestFit(4609, steps), s[n]) << n;
    EXPECT_LE(steps, 2u) << n;
    steps = 0;
    t.insert(s[n + 1], 4608, steps);  // joins the ring: one look, one link
    EXPECT_EQ(steps, 2u);
    EXPECT_EQ(t.count(), n + 2);
  }
}

}  // namespace
}  // namespace kith::heap
