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
#include <bit>
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
  // A reference from the object at `from` to the object at `to`. Branch-free: the
  // marker calls this right after loading the target's handle (usually a cache
  // miss), and a branch on that address mispredicts, flushing the marker's later
  // loads that were already in flight.
  void reference(const void* from, const void* to) {
    std::uintptr_t d = offset(from) ^ offset(to);
    // Nested thresholds: 0 same line, 1 same page, 2 same 64 KiB region, 3 far.
    ++buckets_[(d >> kLineShift != 0) + (d >> kPageShift != 0) + (d >> kCloseShift != 0)];
  }
  void endCycle() {
    if (!inCycle_) return;
    inCycle_ = false;
    ++stats_.cycles;
    for (std::uint64_t w : pages_) cyclePages_ += static_cast<std::uint64_t>(std::popcount(w));
    cyclePages_ += otherPages_.size();
    stats_.pagesTouchedTotal += cyclePages_;
    stats_.pagesTouchedMax = std::max(stats_.pagesTouchedMax, cyclePages_);
  }
  vm::LocalityStatistics statistics() const {
    vm::LocalityStatistics s = stats_;
    s.sameLine = buckets_[0];
    s.samePage = buckets_[1];
    s.kClose = buckets_[2];
    s.far = buckets_[3];
    s.references = buckets_[0] + buckets_[1] + buckets_[2] + buckets_[3];
    return s;
  }

 private:
  std::uintptr_t offset(const void* p) const { return reinterpret_cast<std::uintptr_t>(p) - base_; }
  // Pages are counted at endCycle (popcount of the bitmap), not here: no branch on
  // whether the page was already seen.
  void touch(std::uintptr_t page) {
    if (page / 64 < pages_.size()) pages_[page / 64] |= std::uint64_t{1} << (page % 64);
    else otherPages_.insert(page);
  }

  std::uintptr_t base_ = 0;
  std::vector<std::uint64_t> pages_;            // the arena's pages touched this cycle
  std::unordered_set<std::uintptr_t> otherPages_;  // without an arena (malloc)
  std::uint64_t cyclePages_ = 0;
  bool inCycle_ = false;
  vm::LocalityStatistics stats_;  // cycles and pages (the buckets are in buckets_)
  std::uint64_t buckets_[4] = {};  // same line, same page, same 64 KiB, far
};

}  // namespace kith::gc
