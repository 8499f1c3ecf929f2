// BuddyDefragmenter against the optimum. The optimum of a request of level k is the
// fewest bytes any sequence of moves must copy before some aligned region of level
// k is free, where a move takes a live block of level j to an aligned run of 2^j
// free granules (inside a maximal block of level >= j). It is found by A* search over
// the layouts of the live blocks, with an admissible lower bound (lowerBound below:
// a region's live bytes, plus what making room for its largest block costs at
// least). Checked:
//   - the defragmenter empties a region with the fewest live bytes (m);
//   - it moves exactly m when the free blocks outside that region take its blocks
//     by size (guarantee (b) of buddy_defragmenter.h), which every heap of 16-byte
//     objects satisfies;
//   - it moves at most twice the optimum: on every layout of an 8-granule heap, on
//     random layouts up to 64 granules with the optimum searched every time, and on
//     random runs up to 4 KiB where the search runs when the moves exceed 2m;
//   - the staircase heap, where every region of level v holds one block of each
//     level below v and a free granule, reaches the worst case k * 2^(k-1).
#include "heap/buddy/buddy_defragmenter.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <functional>
#include <queue>
#include <string>
#include <unordered_map>
#include <vector>

#include "heap/policies.h"
#include "heap/workload.h"
#include "tests/heap/buddy_test_support.h"

namespace kith::heap {
namespace {

using testing::BuddyShadow;

// --- the model: live blocks as (granule, level), sorted ----------------------------
struct Block {
  std::uint32_t granule;
  std::uint8_t level;
  bool operator<(const Block& o) const { return granule < o.granule; }
  bool operator==(const Block& o) const = default;
};
using Layout = std::vector<Block>;

// The arena's geometry in granules: a block of level j fits at g when g is a
// multiple of 2^j and lies in a maximal block of level >= j, which all come first.
struct Geometry {
  std::size_t granules;
  bool fits(std::size_t g, unsigned j) const {
    return g % (std::size_t{1} << j) == 0 && g + (std::size_t{1} << j) <= ((granules >> j) << j);
  }
};

std::vector<std::uint8_t> occupancy(const Geometry& geo, const Layout& live) {
  std::vector<std::uint8_t> occ(geo.granules, 0);
  for (const Block& b : live) std::fill_n(occ.begin() + b.granule, std::size_t{1} << b.level, 1);
  return occ;
}

// Live granules of each region of level k, and the fewest.
std::size_t leastLive(const Geometry& geo, const std::vector<std::uint8_t>& occ, unsigned k) {
  std::size_t best = SIZE_MAX;
  const std::size_t n = std::size_t{1} << k;
  for (std::size_t r = 0; geo.fits(r, k); r += n) {
    std::size_t live = 0;
    for (std::size_t g = r; g < r + n; ++g) live += occ[g];
    best = std::min(best, live);
  }
  return best;
}

// A sharper lower bound for the search, still admissible: emptying region R costs
// its live granules and, if R holds a block of level j >= 1 while no aligned free
// run of level >= j lies outside R, at least the live granules of some region of
// level j outside R, which must be emptied first (those blocks are not R's).
std::size_t lowerBound(const Geometry& geo, const Layout& live, unsigned k) {
  const auto occ = occupancy(geo, live);
  std::vector<std::size_t> prefix(geo.granules + 1, 0);
  for (std::size_t g = 0; g < geo.granules; ++g) prefix[g + 1] = prefix[g] + occ[g];
  auto liveIn = [&](std::size_t g, unsigned j) { return prefix[g + (std::size_t{1} << j)] - prefix[g]; };
  std::size_t best = SIZE_MAX;
  const std::size_t n = std::size_t{1} << k;
  for (std::size_t r = 0; geo.fits(r, k); r += n) {
    const std::size_t liveR = liveIn(r, k);
    unsigned top = 0;
    bool big = false;
    for (const Block& b : live)
      if (b.granule >= r && b.granule < r + n && b.level >= 1) top = std::max<unsigned>(top, b.level), big = true;
    std::size_t extra = 0;
    if (big) {
      bool room = false;
      std::size_t cheapest = SIZE_MAX;
      for (unsigned j = top; j < k && !room; ++j)
        for (std::size_t g = 0; geo.fits(g, j); g += std::size_t{1} << j) {
          if (g >= r && g < r + n) continue;
          if (liveIn(g, j) == 0) room = true;
          if (j == top) cheapest = std::min(cheapest, liveIn(g, j));
        }
      if (!room && cheapest != SIZE_MAX) extra = cheapest;
    }
    best = std::min(best, liveR + extra);
  }
  return best;
}

// Each block's granule and level, not its bytes: a Block's three padding bytes are
// whatever the stack held, and keying on them made equal layouts look different (the
// search then ran past its limit now and then).
std::string key(const Layout& l) {
  std::string k;
  k.reserve(l.size() * 5);
  for (const Block& b : l) {
    k.append(reinterpret_cast<const char*>(&b.granule), sizeof b.granule);
    k.push_back(static_cast<char>(b.level));
  }
  return k;
}

// The optimum in granules, or `limit` when every solution costs at least `limit`.
// `expanded` counts the layouts searched; the search gives up (returns SIZE_MAX)
// past `maxExpanded`.
std::size_t optimum(const Geometry& geo, Layout start, unsigned k, std::size_t limit,
                    std::size_t maxExpanded, std::size_t* expanded = nullptr) {
  std::sort(start.begin(), start.end());
  struct Node {
    std::size_t f, g;
    Layout layout;
    bool operator>(const Node& o) const { return f > o.f; }
  };
  std::priority_queue<Node, std::vector<Node>, std::greater<>> open;
  std::unordered_map<std::string, std::size_t> best;
  auto push = [&](Layout l, std::size_t g) {
    const std::size_t h = lowerBound(geo, l, k);
    if (g + h >= limit) return;
    auto [it, fresh] = best.try_emplace(key(l), g);
    if (!fresh && it->second <= g) return;
    it->second = g;
    open.push({g + h, g, std::move(l)});
  };
  push(start, 0);
  std::size_t n = 0;
  while (!open.empty()) {
    Node node = open.top();
    open.pop();
    if (best[key(node.layout)] < node.g) continue;
    if (leastLive(geo, occupancy(geo, node.layout), k) == 0) {  // a region is free
      if (expanded) *expanded = n;
      return node.g;
    }
    if (++n > maxExpanded) return SIZE_MAX;
    const auto occ = occupancy(geo, node.layout);
    std::vector<std::size_t> prefix(geo.granules + 1, 0);
    for (std::size_t g = 0; g < geo.granules; ++g) prefix[g + 1] = prefix[g] + occ[g];
    for (std::size_t i = 0; i < node.layout.size(); ++i) {
      const Block b = node.layout[i];
      const std::size_t size = std::size_t{1} << b.level;
      for (std::size_t p = 0; geo.fits(p, b.level); p += size) {
        if (prefix[p + size] != prefix[p]) continue;
        Layout next = node.layout;
        next[i].granule = static_cast<std::uint32_t>(p);
        std::sort(next.begin(), next.end());
        push(std::move(next), node.g + size);
      }
    }
  }
  if (expanded) *expanded = n;
  return limit;
}

// The live blocks of a buddy heap, from its side table.
template <class P>
Layout liveLayout(P& h) {
  Layout l;
  h.blockTable().forEachBlock([&](std::size_t off, unsigned level, BuddyState s) {
    if (s == BuddyState::busy) l.push_back({static_cast<std::uint32_t>(off / 16), static_cast<std::uint8_t>(level)});
  });
  return l;
}

// Whether the free blocks outside region (r, k) take its live blocks by size:
// for every j, free granules outside in blocks of level >= j >= live granules
// inside in blocks of level >= j.
template <class P>
bool fitsBySize(P& h, std::size_t r, unsigned k) {
  std::size_t freeAtLeast[BuddyBlockTable::kLevels + 1] = {}, liveAtLeast[BuddyBlockTable::kLevels + 1] = {};
  const std::size_t end = r + (std::size_t{1} << k);
  h.blockTable().forEachBlock([&](std::size_t off, unsigned level, BuddyState s) {
    const std::size_t g = off / 16;
    const bool inside = g >= r && g < end;
    if (!inside && isFreeState(s)) freeAtLeast[level] += std::size_t{1} << level;
    if (inside && s == BuddyState::busy) liveAtLeast[level] += std::size_t{1} << level;
  });
  for (unsigned j = BuddyBlockTable::kLevels; j-- > 0;) {
    freeAtLeast[j] += freeAtLeast[j + 1];
    liveAtLeast[j] += liveAtLeast[j + 1];
    if (freeAtLeast[j] < liveAtLeast[j]) return false;
  }
  return true;
}

// What one defragmenting request showed.
struct Case {
  std::size_t moved = 0;      // granules
  std::size_t least = 0;      // m, granules
  std::size_t optimal = 0;    // granules; SIZE_MAX when not searched
  bool fit = false;           // (b)'s condition held for the chosen region
};

struct Tally {
  std::size_t cases = 0, aboveLeast = 0, searched = 0;
  double worstRatio = 0;  // moved / optimal, where searched
  std::string fault;
  void note(const std::string& what) {
    if (fault.empty()) fault = what;
  }
};

// Runs malloc(size) on h (its relocator installed) and checks the request against m,
// (b), and the optimum: searched always when `searchAlways`, else only when the
// moves exceed 2m.
template <class P>
void checkRequest(P& h, BuddyShadow& shadow, std::size_t size, bool searchAlways, Tally& t, void** result) {
  const unsigned k = BuddyBlockTable::levelFor(size);
  // Only a request no free block serves and the free bytes cover can defragment.
  if (h.largestFreeBlock() >= size || h.freeBytes() < size) {
    *result = h.malloc(size);
    if (h.lastRegionSearchSteps() != 0) t.note("defragmented although a free block could serve");
    return;
  }
  const Geometry geo{h.arenaSize() / 16};
  const Layout before = liveLayout(h);
  const auto occ = occupancy(geo, before);
  const std::size_t bytesBefore = h.defragBytesMoved();
  // Snapshot for (b): which regions fit by size (computed lazily for the chosen one).
  std::vector<std::pair<std::size_t, bool>> fit;
  for (std::size_t r = 0; geo.fits(r, k); r += std::size_t{1} << k) fit.emplace_back(r, fitsBySize(h, r, k));
  void* p = h.malloc(size);
  *result = p;
  const bool defragmented = h.lastRegionSearchSteps() != 0;
  if (!defragmented) return;
  ++t.cases;
  if (!p) return t.note("a defragmenting request failed");
  const std::size_t r = static_cast<std::size_t>(static_cast<std::byte*>(p) - h.arenaBase()) / 16;
  Case c;
  c.moved = (h.defragBytesMoved() - bytesBefore) / 16;
  c.least = leastLive(geo, occ, k);
  std::size_t liveR = 0;
  for (std::size_t g = r; g < r + (std::size_t{1} << k); ++g) liveR += occ[g];
  if (liveR != c.least) t.note("emptied a region with " + std::to_string(liveR) + " live granules, not the fewest " +
                               std::to_string(c.least));
  for (auto [region, fits] : fit)
    if (region == r) c.fit = fits;
  if (c.fit && c.moved != c.least)
    t.note("moved " + std::to_string(c.moved) + " granules where the blocks fit by size and m = " +
           std::to_string(c.least));
  if (c.moved > c.least) ++t.aboveLeast;
  if (searchAlways || c.moved > 2 * c.least) {
    ++t.searched;
    // Search for a solution cheaper than half the moves; the limit keeps it small.
    const std::size_t limit = searchAlways ? c.moved + 1 : (c.moved + 1) / 2;
    const std::size_t opt = optimum(geo, before, k, limit, 2'000'000);
    if (opt == SIZE_MAX) return t.note("the search for the optimum gave up");
    if (opt < limit) {
      if (c.moved > 2 * opt)
        t.note("moved " + std::to_string(c.moved) + " granules, the optimum is " + std::to_string(opt));
      if (opt) t.worstRatio = std::max(t.worstRatio, double(c.moved) / double(opt));
      if (c.moved < opt) t.note("moved fewer than the optimum: the search is wrong");
    }
  }
  (void)shadow;
}

// Random malloc/free on a P of `bytes` with sizes 16 << (0..maxLevel), a request
// checked by checkRequest whenever it defragments.
template <class P>
Tally randomRuns(std::size_t bytes, unsigned maxLevel, std::size_t runs, std::size_t operations, bool searchAlways) {
  Tally t;
  for (std::size_t seed = 1; seed <= runs && t.fault.empty(); ++seed) {
    P h(bytes);
    BuddyShadow shadow;
    h.setRelocator(&BuddyShadow::relocate, &shadow);
    SeededRandom rng(seed);
    for (std::size_t op = 0; op < operations && t.fault.empty(); ++op) {
      if (!shadow.live().empty() && rng.chance(45)) {
        void* victim = shadow.nth(rng.below(shadow.live().size()));
        if (std::string bad = shadow.remove(victim); !bad.empty()) t.note(bad);
        h.free(victim);
        continue;
      }
      // Mostly small blocks, now and then a larger one: the larger ones defragment.
      const unsigned level = rng.chance(70) ? static_cast<unsigned>(rng.below(2)) : static_cast<unsigned>(rng.between(0, maxLevel));
      void* p = nullptr;
      checkRequest(h, shadow, std::size_t{16} << level, searchAlways, t, &p);
      if (!t.fault.empty()) t.fault = "seed " + std::to_string(seed) + ", op " + std::to_string(op) + ": " + t.fault;
      if (std::string bad = shadow.error(); !bad.empty()) t.note(bad);
      if (p)
        if (std::string bad = shadow.add(p, h.getSize(p)); !bad.empty()) t.note(bad);
    }
    if (t.fault.empty())
      if (std::string bad = h.checkInvariants(); !bad.empty()) t.note(bad);
    if (t.fault.empty())
      if (std::string bad = shadow.verifyAll(); !bad.empty()) t.note(bad);
  }
  return t;
}

template <class P>
class BuddyDefragOptimum : public ::testing::Test {};
using Policies = ::testing::Types<KnuthPolicy, EstrangedPolicy>;
class PolicyNames {
 public:
  template <class T>
  static std::string GetName(int) {
    return std::same_as<T, KnuthPolicy> ? "knuth" : "estranged";
  }
};
TYPED_TEST_SUITE(BuddyDefragOptimum, Policies, PolicyNames);

TEST(BuddyDefragOptimumSearch, FindsTheOptimumOfSmallCases) {
  const Geometry geo{8};
  // 16 | 16* | 16 | 16* | 32* | 32*: a 32 needs one 16-byte move.
  EXPECT_EQ(optimum(geo, {{1, 0}, {3, 0}, {4, 1}, {6, 1}}, 1, 100, 1000), 1u);
  // A 64 needs one region of 4 emptied: the one with the 32 (2 granules)...
  EXPECT_EQ(optimum(geo, {{1, 0}, {3, 0}, {4, 1}}, 2, 100, 1000), 2u);
  // ... unless the 32 has nowhere to go: then the two 16s move (2), not 2 + 1.
  EXPECT_EQ(optimum(geo, {{0, 0}, {2, 0}, {4, 1}}, 2, 100, 1000), 2u);
  // Already free.
  EXPECT_EQ(optimum(geo, {{0, 2}}, 2, 100, 1000), 0u);
  // 32 32* | 16 16* 16 16*, request 64: the 32 has no free 32 outside its region,
  // so the cheapest way is to move the two 16s into the free 32 (2), not the 32.
  EXPECT_EQ(optimum(geo, {{2, 1}, {5, 0}, {7, 0}}, 2, 100, 1000), 2u);
  // Nothing cheaper than the limit: the limit comes back.
  EXPECT_EQ(optimum(geo, {{2, 1}, {5, 0}, {7, 0}}, 2, 2, 1000), 2u);
  // Too few free granules: no solution at all.
  EXPECT_EQ(optimum(geo, {{0, 0}, {2, 1}, {4, 0}, {6, 0}, {7, 0}}, 2, 100, 1000), 100u);
}

// Every layout of an 8-granule (128-byte) heap: each block of a buddy partition busy
// or free, built by allocating the blocks in address order and freeing the free
// ones, then every request that needs defragmentation, against the searched optimum.
TYPED_TEST(BuddyDefragOptimum, EveryLayoutOfAnEightGranuleHeap) {
  // All buddy partitions of [0, 8) with a busy bit per block.
  std::vector<std::vector<std::pair<Block, bool>>> layouts;
  std::function<std::vector<std::vector<std::pair<Block, bool>>>(std::uint32_t, unsigned)> part =
      [&](std::uint32_t g, unsigned level) {
        std::vector<std::vector<std::pair<Block, bool>>> out;
        for (bool busy : {false, true}) out.push_back({{{g, static_cast<std::uint8_t>(level)}, busy}});
        if (level == 0) return out;
        for (auto& lo : part(g, level - 1))
          for (auto& hi : part(g + (1u << (level - 1)), level - 1)) {
            auto both = lo;
            both.insert(both.end(), hi.begin(), hi.end());
            out.push_back(both);
          }
        return out;
      };
  layouts = part(0, 3);
  ASSERT_EQ(layouts.size(), 1446u);
  Tally t;
  std::size_t requests = 0;
  for (const auto& layout : layouts) {
    for (unsigned k = 1; k <= 3 && t.fault.empty(); ++k) {
      TypeParam h(128);
      BuddyShadow shadow;
      std::vector<void*> toFree;
      for (auto [b, busy] : layout) {
        void* p = h.malloc(std::size_t{16} << b.level);
        ASSERT_EQ(testing::arenaOffset(h, p), b.granule * 16u);
        if (busy)
          ASSERT_EQ(shadow.add(p, h.getSize(p)), "");
        else
          toFree.push_back(p);
      }
      for (void* p : toFree) h.free(p);
      h.setRelocator(&BuddyShadow::relocate, &shadow);
      void* p = nullptr;
      ++requests;
      checkRequest(h, shadow, std::size_t{16} << k, true, t, &p);
      if (t.fault.empty())
        if (std::string bad = h.checkInvariants(); !bad.empty()) t.note(bad);
      if (t.fault.empty())
        if (std::string bad = shadow.verifyAll(); !bad.empty()) t.note(bad);
    }
  }
  EXPECT_EQ(t.fault, "");
  EXPECT_GT(t.cases, 300u) << "of " << requests;
  EXPECT_LE(t.worstRatio, 2.0);
  ::testing::Test::RecordProperty("worst_ratio", std::to_string(t.worstRatio));
  std::printf("8 granules: %zu defragmenting requests, %zu above m, worst moved/optimum %.2f\n", t.cases,
              t.aboveLeast, t.worstRatio);
}

// Random runs on heaps of 16 to 64 granules with blocks up to half the heap, the
// optimum searched for every defragmenting request.
TYPED_TEST(BuddyDefragOptimum, RandomSmallHeapsWithinTwiceTheOptimum) {
  for (auto [bytes, maxLevel] : {std::pair<std::size_t, unsigned>{256, 3}, {512, 3}, {1024, 4}}) {
    const Tally t = randomRuns<TypeParam>(bytes, maxLevel, 150, 300, true);
    EXPECT_EQ(t.fault, "") << bytes << " bytes";
    EXPECT_GT(t.cases, 50u) << bytes << " bytes";
    EXPECT_LE(t.worstRatio, 2.0);
    std::printf("%zu bytes: %zu defragmenting requests, %zu above m, worst moved/optimum %.2f\n", bytes, t.cases,
                t.aboveLeast, t.worstRatio);
  }
}

// Random runs up to 4 KiB: the moves are within 2m (so within twice the optimum)
// or the search shows the optimum is at least half of them.
TYPED_TEST(BuddyDefragOptimum, RandomHeapsUpTo4KWithinTwiceTheOptimum) {
  for (auto [bytes, maxLevel] : {std::pair<std::size_t, unsigned>{2048, 5}, {4096, 6}}) {
    const Tally t = randomRuns<TypeParam>(bytes, maxLevel, 100, 2000, false);
    EXPECT_EQ(t.fault, "") << bytes << " bytes";
    EXPECT_GT(t.cases, 200u) << bytes << " bytes";
    std::printf("%zu bytes: %zu defragmenting requests, %zu above m, %zu searched\n", bytes, t.cases, t.aboveLeast,
                t.searched);
  }
}

// A heap of 16-byte objects (kith bench defrag's experiment, small): the region
// with the fewest live objects is emptied and nothing else moves.
TYPED_TEST(BuddyDefragOptimum, SixteenByteObjectsMoveExactlyTheLeast) {
  for (unsigned k = 2; k <= 8; ++k)
    for (std::uint64_t seed = 1; seed <= 5; ++seed) {
      const std::size_t granules = std::size_t{4} << k;
      TypeParam h(granules * 16);
      BuddyShadow shadow;
      std::vector<void*> all;
      while (void* p = h.malloc(16)) all.push_back(p);
      ASSERT_EQ(all.size(), granules);
      SeededRandom rng(seed);
      for (std::size_t i = 0; i < all.size(); ++i) std::swap(all[i], all[i + rng.below(all.size() - i)]);
      for (std::size_t i = 0; i < all.size(); ++i) {
        if (i < (std::size_t{1} << k))
          h.free(all[i]);
        else
          ASSERT_EQ(shadow.add(all[i], 16), "");
      }
      h.setRelocator(&BuddyShadow::relocate, &shadow);
      Tally t;
      void* p = nullptr;
      checkRequest(h, shadow, std::size_t{16} << k, false, t, &p);
      ASSERT_NE(p, nullptr);
      EXPECT_EQ(t.fault, "") << "k " << k << ", seed " << seed;
      EXPECT_EQ(t.aboveLeast, 0u) << "k " << k << ", seed " << seed;
      EXPECT_EQ(h.freeBytes(), 0u);
      EXPECT_EQ(shadow.verifyAll(), "");
      EXPECT_EQ(h.checkInvariants(), "");
    }
}

// The staircase: each region of level k holds blocks of levels k-1, ..., 0 and one
// free granule, so every block of level j >= 1 that moves needs a region of level
// j emptied first. The defragmenter reaches the worst case k 2^(k-1) granules.
// At k = 3 the search confirms the optimum moves as much (12 granules, m = 7); at
// k = 4 (32 granules, m = 15) the argument of buddy_defragmenter.h's (d) says the
// optimum moves as much again, more than 2m (the search is too large to run there).
TYPED_TEST(BuddyDefragOptimum, TheStaircaseReachesTheWorstCase) {
  for (unsigned k = 2; k <= 5; ++k) {
    const std::size_t region = std::size_t{1} << k, regions = region;  // 2^k free granules
    TypeParam h(regions * region * 16);
    BuddyShadow shadow;
    std::vector<void*> holes;
    for (std::size_t r = 0; r < regions; ++r) {
      for (unsigned j = k; j-- > 0;) {
        void* p = h.malloc(std::size_t{16} << j);
        ASSERT_EQ(testing::arenaOffset(h, p) / 16, r * region + region - (std::size_t{2} << j));
        ASSERT_EQ(shadow.add(p, h.getSize(p)), "");
      }
      holes.push_back(h.malloc(16));
    }
    for (void* p : holes) h.free(p);
    const Geometry geo{regions * region};
    const Layout before = liveLayout(h);
    h.setRelocator(&BuddyShadow::relocate, &shadow);
    void* p = h.malloc(region * 16);
    ASSERT_NE(p, nullptr);
    const std::size_t moved = h.defragBytesMoved() / 16;
    EXPECT_EQ(moved, k * region / 2) << "k " << k;
    EXPECT_EQ(leastLive(geo, occupancy(geo, before), k), region - 1);
    EXPECT_EQ(shadow.verifyAll(), "");
    EXPECT_EQ(h.checkInvariants(), "");
    if (k == 3) {
      EXPECT_EQ(optimum(geo, before, k, moved + 1, 5'000'000), moved);
    }
  }
}

}  // namespace
}  // namespace kith::heap
