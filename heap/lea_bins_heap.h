// LeaBinsHeap: the free structure of the Lea allocator (dlmalloc 2.7; paper §6.2):
// free blocks segregated by size into 64 doubly-linked bins, with best fit.
//
//   bins  0..30  exact sizes: blocks of 32, 48, ..., 512 bytes, one bin per 16
//   bins 31..62  medium: four bins per power of two, for blocks of 528 bytes up
//                to 128 KiB - 16 ([512,640), [640,768), ... [112 KiB,128 KiB))
//   bin  63      large: every block of 128 KiB or more (the initial arena block
//                lives here), searched best fit
//
// malloc(n) needs a block of blockBytesFor(n) bytes: best fit within that size's
// bin (an exact bin's head fits as it is; a ranged bin is walked for the smallest
// block that fits), else the smallest block of the next non-empty larger bin. One
// 64-bit word records which bins are non-empty, so finding that bin is a
// count-trailing-zeros, not a scan of the bins. Bins are LIFO and unsorted, so
// best fit within a ranged bin costs a walk of that bin (lastSteps counts it).
//
// It is a free structure for CoalesceHeap (coalesce_heap.h), which splits and
// coalesces; the `lea` policy puts exact-size quick lists (QuickListHeap) above:
//   QuickListHeap<64, 128 KiB, CoalesceHeap<LeaBinsHeap<CoalesceableHeap<FixedArena>>>>
// Metadata: 64 bin heads, the bitmap and a byte total in this object (~1 KiB);
// the links in the free blocks' payloads.
#pragma once

#include <bit>
#include <cstddef>
#include <cstdint>
#include <string>

#include "heap/coalesceable_heap.h"
#include "heap/free_block_list.h"

namespace kith::heap {

template <class Super>
class LeaBinsHeap : public Super {
  static_assert(CoalescingRepresentation<Super>,
                "LeaBinsHeap files blocks by their boundary-tag sizes: put CoalesceableHeap under it");

 public:
  using Super::Super;

  static constexpr unsigned kBinCount = 64;
  static constexpr unsigned kExactBinCount = 31;
  static constexpr std::size_t kExactMaxBytes = 512;       // largest block of an exact bin
  static constexpr std::size_t kLargeBytes = 128 * 1024;   // smallest block of the large bin
  static constexpr unsigned kLargeBin = kBinCount - 1;

  // The bin of a block of `blockBytes` bytes (a multiple of 16, at least 32).
  static constexpr unsigned binOf(std::size_t blockBytes) {
    if (blockBytes <= kExactMaxBytes) return static_cast<unsigned>(blockBytes / kAlignment) - 2;
    if (blockBytes >= kLargeBytes) return kLargeBin;
    unsigned log = static_cast<unsigned>(std::bit_width(blockBytes)) - 1;  // 9..16
    return kExactBinCount + (log - 9) * 4 + static_cast<unsigned>((blockBytes >> (log - 2)) & 3);
  }
  // The smallest block bin `bin` may hold.
  static constexpr std::size_t binLowerBound(unsigned bin) {
    if (bin < kExactBinCount) return (bin + 2) * kAlignment;
    if (bin == kLargeBin) return kLargeBytes;
    unsigned ranged = bin - kExactBinCount;
    unsigned log = 9 + ranged / 4;
    std::size_t lower = (std::size_t{4} + ranged % 4) << (log - 2);
    return lower == kExactMaxBytes ? kExactMaxBytes + kAlignment : lower;
  }

  void* malloc(std::size_t size) {
    steps_ = 0;
    if (size > Super::kMaxRequest) return Super::malloc(size);  // fails there
    std::size_t need = Super::blockBytesFor(size);
    unsigned bin = binOf(need);
    if (nonEmpty_ & (std::uint64_t{1} << bin)) {
      if (void* block = bestFit(bin, need)) return take(block);
    }
    std::uint64_t larger = bin == kLargeBin ? 0 : nonEmpty_ & (~std::uint64_t{0} << (bin + 1));
    if (larger) return take(bestFit(static_cast<unsigned>(std::countr_zero(larger)), need));
    return Super::malloc(size);
  }

  void free(void* block) {
    unsigned bin = binOf(Super::blockBytes(block));
    bins_[bin].pushFront(block);
    nonEmpty_ |= std::uint64_t{1} << bin;
    bytes_ += Super::getSize(block);
  }

  void remove(void* block) {
    unsigned bin = binOf(Super::blockBytes(block));
    bins_[bin].remove(block);
    if (bins_[bin].empty()) nonEmpty_ &= ~(std::uint64_t{1} << bin);
    bytes_ -= Super::getSize(block);
  }

  // Bin nodes the last malloc looked at (bitmap lookups not counted).
  std::size_t lastSteps() const { return steps_; }
  std::size_t freeBytes() const { return bytes_; }
  std::size_t binBlockCount(unsigned bin) const { return bins_[bin].count(); }
  std::uint64_t nonEmptyBins() const { return nonEmpty_; }
  // The largest request malloc can serve now: the biggest block of the highest
  // non-empty bin (walks that one bin).
  std::size_t largestFreeBlock() const {
    if (nonEmpty_ == 0) return 0;
    unsigned top = static_cast<unsigned>(std::bit_width(nonEmpty_)) - 1;
    std::size_t largest = 0;
    for (FreeBlockList::Node* n = bins_[top].head(); n; n = n->next)
      if (Super::getSize(n) > largest) largest = Super::getSize(n);
    return largest;
  }

  template <class Fn>
  void forEachFreeBlock(Fn&& fn) const {
    for (const FreeBlockList& bin : bins_)
      for (FreeBlockList::Node* n = bin.head(); n; n = n->next) fn(static_cast<void*>(n));
  }

  // Each bin's links hold together, its bitmap bit says whether it is non-empty,
  // and each of its blocks belongs in it by size.
  std::string checkFreeStructure() const {
    for (unsigned b = 0; b < kBinCount; ++b) {
      std::string bin = "bin " + std::to_string(b) + ": ";
      if (std::string broken = bins_[b].checkLinks(); !broken.empty()) return bin + broken;
      if (((nonEmpty_ >> b) & 1) != !bins_[b].empty())
        return bin + "bitmap bit disagrees with the bin being " + (bins_[b].empty() ? "empty" : "non-empty");
      for (FreeBlockList::Node* n = bins_[b].head(); n; n = n->next)
        if (binOf(Super::blockBytes(n)) != b)
          return bin + "holds a block of " + std::to_string(Super::blockBytes(n)) + " bytes";
    }
    return "";
  }

 private:
  // The smallest block of `bin` with at least `need` bytes, or nullptr. An exact
  // bin holds one size, so its head answers.
  void* bestFit(unsigned bin, std::size_t need) {
    FreeBlockList::Node* best = nullptr;
    std::size_t bestBytes = 0;
    for (FreeBlockList::Node* n = bins_[bin].head(); n; n = n->next) {
      ++steps_;
      std::size_t bytes = Super::blockBytes(n);
      if (bytes >= need && (best == nullptr || bytes < bestBytes)) {
        best = n;
        bestBytes = bytes;
        if (bytes == need || bin < kExactBinCount) break;
      }
    }
    return best;
  }

  void* take(void* block) {
    remove(block);
    return block;
  }

  FreeBlockList bins_[kBinCount];
  std::uint64_t nonEmpty_ = 0;
  std::size_t bytes_ = 0;
  std::size_t steps_ = 0;
};

}  // namespace kith::heap
