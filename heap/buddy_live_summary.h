// BuddyLiveSummary: how many live granules each aligned region of the arena holds,
// kept for the regions of every fourth level (4, 8, 12, ... up to the top), so
// that BuddyDefragmenter can find the region of a level with the fewest live bytes
// without walking the blocks inside every region.
//
// A region of level l is the aligned run of 2^l granules (16 << l bytes) that a
// block of level l would occupy. A row per stored level holds one counter per
// region of that level. The invariant (checked by check()):
//   - a region that is split (holds blocks smaller than itself) counts the granules
//     of the live blocks in it;
//   - a region that lies inside one block of its level or larger counts 0.
// So a block of level j that becomes live (malloc, a move's destination) adds 2^j
// to the one region containing it in each stored row of level > j, and loses them
// again when it stops being live: at most ceil((L + 1) / 4) counters per malloc or
// free (5 for a 64 MiB arena), none of them for the row of its own level or below.
// Regions inside a block are not touched, which is what keeps them at 0: a block
// is only ever formed from free granules, and a region inside a busy block is
// full, which the reader tells from the side table (liveGranules below).
//
// Memory, outside the arena: the level-4 row is one byte per 16 granules (a count
// is at most 16), the higher rows four bytes per region: M/256 + M/1024 + ...
// ~ 0.49% of an M-byte arena (about 0.33 MiB for 64 MiB), against the side table's
// 6.25%.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>

namespace kith::heap {

class BuddyLiveSummary {
 public:
  static constexpr unsigned kStride = 4;  // the stored levels are the multiples of 4
  static constexpr unsigned kRows = 8;    // levels 4, 8, ..., 32 (the top level is 31)

  // A summary of `granules` granules whose largest block has level `topLevel`.
  BuddyLiveSummary(std::size_t granules, unsigned topLevel) {
    for (unsigned r = 0; r < kRows; ++r) {
      const unsigned level = kStride * (r + 1);
      if (level > topLevel) break;
      rows_ = r + 1;
      counts_[r] = (granules + (std::size_t{1} << level) - 1) >> level;
      if (r == 0)
        small_ = std::make_unique<std::uint8_t[]>(counts_[0]);
      else
        large_[r] = std::make_unique<std::uint32_t[]>(counts_[r]);
    }
  }

  // The stored level at or below `level` (0 when there is none: levels 0-3).
  static constexpr unsigned storedLevelAtOrBelow(unsigned level) { return level / kStride * kStride; }

  // The block of `level` at granule `g` became live (+2^level) or stopped being live.
  void addLive(std::size_t g, unsigned level) { change(g, level, true); }
  void removeLive(std::size_t g, unsigned level) { change(g, level, false); }

  // The counter of the region of stored level `level` (a multiple of 4, >= 4)
  // that contains granule g.
  std::size_t count(unsigned level, std::size_t g) const {
    const unsigned r = level / kStride - 1;
    return r == 0 ? small_[g >> level] : large_[r][g >> level];
  }

  // Bytes of the rows, outside the arena.
  std::size_t bytes() const {
    std::size_t n = rows_ ? counts_[0] : 0;
    for (unsigned r = 1; r < rows_; ++r) n += counts_[r] * sizeof(std::uint32_t);
    return n;
  }

  // Whether every counter equals `expected(level, index)`; "" or the first
  // counter that does not.
  template <class Expected>
  std::string check(Expected expected) const {
    for (unsigned r = 0; r < rows_; ++r) {
      const unsigned level = kStride * (r + 1);
      for (std::size_t i = 0; i < counts_[r]; ++i) {
        const std::size_t have = count(level, i << level), want = expected(level, i);
        if (have != want)
          return "live summary: region " + std::to_string(i) + " of level " + std::to_string(level) +
                 " counts " + std::to_string(have) + " live granules, its blocks hold " + std::to_string(want);
      }
    }
    return {};
  }
  unsigned rows() const { return rows_; }

 private:
  void change(std::size_t g, unsigned level, bool add) {
    const std::uint32_t n = std::uint32_t{1} << level;
    unsigned r = level / kStride;  // the first row above `level` (row r holds level 4(r+1))
    if (r == 0 && rows_ != 0) {
      std::uint8_t& c = small_[g >> kStride];
      c = static_cast<std::uint8_t>(add ? c + n : c - n);
      r = 1;
    }
    for (; r < rows_; ++r) {
      std::uint32_t& c = large_[r][g >> (kStride * (r + 1))];
      c = add ? c + n : c - n;
    }
  }

  unsigned rows_ = 0;
  std::size_t counts_[kRows] = {};
  std::unique_ptr<std::uint8_t[]> small_;               // level 4: at most 16 per region
  std::unique_ptr<std::uint32_t[]> large_[kRows] = {};  // levels 8, 12, ...: large_[0] unused
};

}  // namespace kith::heap
