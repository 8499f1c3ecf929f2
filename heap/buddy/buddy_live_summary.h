// BuddyLiveSummary: how many live granules each aligned region of 256 granules
// (4 KiB, level 8) holds, so that BuddyDefragmenter can weigh regions without
// walking every block inside them.
//
// One counter per region of level 8. The invariant (checked by check()):
//   - a region of level 8 that is split (holds blocks smaller than itself) counts
//     the granules of the live blocks in it;
//   - a region that lies inside one block of level 8 or larger counts 0.
// So a block of level j < 8 that becomes live (malloc, a move's destination) adds
// 2^j to the counter of the region containing it, and subtracts them when it stops
// being live; a block of level >= 8 changes nothing (its regions are inside it,
// and a block is only ever formed from free granules, so they count 0). That is one
// counter update per malloc and per free, written without a branch: the change is
// read from a table by level (a block of level >= 8 adds 0).
//
// Why one row and not a tree. A summary for every level (a sum over the buddy tree,
// O(log M) counters per malloc and free) or one every fourth level (4, 8, 12, ...:
// up to 6 counters) made the policies' malloc+free 15-20% slower in heap_bench's
// replays: branches on the block's level that mispredict when sizes alternate, and
// the few counters of the top levels, which every malloc and free rewrites. One row,
// branch-free, costs 1-5%. Regions of other levels are read from it (BuddyBlockTable
// ::liveGranules): 2^(j-8) counters for a region of level j >= 8, the side table's
// blocks (at most 2^j) below level 8.
//
// Memory, outside the arena: two bytes per 256 granules (a count is at most 256),
// M/2048 bytes, 0.05% of an M-byte arena (32 KiB for 64 MiB), against the side
// table's 6.25%.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>

#include "heap/layers/zeroed_array.h"

namespace kith::heap {

class BuddyLiveSummary {
 public:
  static constexpr unsigned kLevel = 8;  // the regions counted: 256 granules
  static constexpr std::size_t kRegionGranules = std::size_t{1} << kLevel;
  static constexpr unsigned kLevels = 32;  // the block levels it takes (BuddyBlockTable's)

  explicit BuddyLiveSummary(std::size_t granules)
      : regions_(granules / kRegionGranules + 1),  // one more: the tail below level 8
        counts_(makeZeroedArray<std::uint16_t>(regions_)) {}

  // The block of `level` at granule g became live, or stopped being live.
  void addLive(std::size_t g, unsigned level) { counts_[g >> kLevel] += delta(level); }
  void removeLive(std::size_t g, unsigned level) { counts_[g >> kLevel] -= delta(level); }

  // The counter of the region of level 8 that contains granule g.
  std::size_t count(std::size_t g) const { return counts_[g >> kLevel]; }

  std::size_t bytes() const { return regions_ * sizeof(std::uint16_t); }

  // Whether every counter equals expected(index); "" or the first that does not.
  template <class Expected>
  std::string check(Expected expected) const {
    for (std::size_t i = 0; i < regions_; ++i)
      if (counts_[i] != expected(i))
        return "live summary: region " + std::to_string(i) + " of level 8 counts " + std::to_string(counts_[i]) +
               " live granules, its blocks hold " + std::to_string(expected(i));
    return {};
  }
  std::size_t regions() const { return regions_; }

 private:
  static constexpr std::array<std::uint16_t, kLevels> kDelta = [] {
    std::array<std::uint16_t, kLevels> d{};
    for (unsigned level = 0; level < kLevel; ++level) d[level] = static_cast<std::uint16_t>(1u << level);
    return d;
  }();
  static std::uint16_t delta(unsigned level) { return kDelta[level]; }

  std::size_t regions_;
  ZeroedArray<std::uint16_t> counts_;
};

}  // namespace kith::heap
