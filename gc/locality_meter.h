// LocalityMeter: how close together the live graph lies, measured during each
// collection's mark phase (the `locality` block of the stats JSON, CLI.md names).
// For every reference the marker scans, from an object to the object it refers
// to, the distance between the two objects' starts falls in one bucket:
//   same_line   the same 64-byte cache line
//   same_page   the same 4 KiB page, not the same line
//   k_close     the same 64 KiB region (Velox's K-class), not the same page
//   far         further apart
// and the pages the scanned objects span are counted per cycle (distinct pages
// touched by the live graph). Addresses are taken relative to the heap's arena
// base where it has one (page-aligned, so lines and pages are the hardware's;
// 64 KiB regions are the arena's, as Velox sees them), else absolute (malloc).
// Cost: a subtraction and a few shifts per reference, a bit per live page, and
// clearing a bitmap of arena pages / 8 bytes per cycle.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <unordered_set>
#include <vector>

#include "vm/collector.h"

namespace kith::gc {

class LocalityMeter {
 public:
  static constexpr unsigned kLineShift = 6, kPageShift = 12, kCloseShift = 16;

  // Starts a cycle over a heap whose arena is [base, base + bytes) (nullptr, 0: none).
  void beginCycle(const std::byte* base, std::size_t bytes) {
    base_ = reinterpret_cast<std::uintptr_t>(base);
    pages_.assign(bytes ? ((bytes >> kPageShift) + 64) / 64 : 0, 0);
    otherPages_.clear();
    cyclePages_ = 0;
    inCycle_ = true;
  }
  // An object the marker scans: the pages it spans count as touched.
  void object(const void* at, std::size_t size) {
    std::uintptr_t first = offset(at) >> kPageShift, last = (offset(at) + (size ? size - 1 : 0)) >> kPageShift;
    for (std::uintptr_t p = first; p <= last; ++p) touch(p);
  }
  // A reference from the object at `from` to the object at `to`.
  void reference(const void* from, const void* to) {
    std::uintptr_t a = offset(from), b = offset(to);
    ++stats_.references;
    if ((a >> kLineShift) == (b >> kLineShift)) ++stats_.sameLine;
    else if ((a >> kPageShift) == (b >> kPageShift)) ++stats_.samePage;
    else if ((a >> kCloseShift) == (b >> kCloseShift)) ++stats_.kClose;
    else ++stats_.far;
  }
  void endCycle() {
    if (!inCycle_) return;
    inCycle_ = false;
    ++stats_.cycles;
    stats_.pagesTouchedTotal += cyclePages_;
    stats_.pagesTouchedMax = std::max(stats_.pagesTouchedMax, cyclePages_);
  }
  const vm::LocalityStatistics& statistics() const { return stats_; }

 private:
  std::uintptr_t offset(const void* p) const { return reinterpret_cast<std::uintptr_t>(p) - base_; }
  void touch(std::uintptr_t page) {
    if (page / 64 < pages_.size()) {
      std::uint64_t bit = std::uint64_t{1} << (page % 64);
      if (!(pages_[page / 64] & bit)) {
        pages_[page / 64] |= bit;
        ++cyclePages_;
      }
    } else if (otherPages_.insert(page).second) {
      ++cyclePages_;
    }
  }

  std::uintptr_t base_ = 0;
  std::vector<std::uint64_t> pages_;            // the arena's pages touched this cycle
  std::unordered_set<std::uintptr_t> otherPages_;  // without an arena (malloc)
  std::uint64_t cyclePages_ = 0;
  bool inCycle_ = false;
  vm::LocalityStatistics stats_;
};

}  // namespace kith::gc
