// LeaBinsHeap: the free structure of the Lea allocator (dlmalloc; paper §6.2):
// free blocks segregated by size into 64 bins, best fit, found without a scan.
//
//   bins  0..30  exact sizes: blocks of 32, 48, ..., 512 bytes, one bin per 16,
//                each a LIFO list (any block of the bin fits its requests)
//   bins 31..62  medium: four bins per power of two, for blocks of 528 bytes up
//                to 128 KiB - 16 ([512,640), [640,768), ... [112 KiB,128 KiB)),
//                each a SizeTrie (size_trie.h; dlmalloc 2.8's treebins)
//   bin  63      large: every block of 128 KiB or more (the initial arena block
//                lives here), a SizeTrie keyed on bits 47..4 (blocks < 256 TiB)
//   victim       one free block kept out of the bins (dlmalloc 2.8's "designated
//                victim"): the rest of the last block split for a small request
//
// malloc(n) needs a block of blockBytesFor(n) bytes. A small one (<= 512 B): the
// head of its exact bin; else the victim, if big enough; else the smallest block
// of the next non-empty larger bin, whose rest becomes the victim. So a run of
// small requests carves one block in address order, one step each. A victim that
// ends its chunk (the arena's untouched rest, dlmalloc's "top") is carved only
// when no larger free block is left, so holes are reused first and the heap stays
// compact. A medium or large request: the best fit in its trie, else the smallest
// block of the next non-empty larger bin, or the victim if it fits more closely.
// One 64-bit word records which bins are non-empty, so finding a bin is a
// count-trailing-zeros.
//
// Bounded time, in steps (a list or trie node or the victim looked at, or a link
// made or unlinked; bitmap instructions not counted). A trie of bin b has paths of
// at most P(b) = TopBit - 2 nodes: 4 to 11 for the medium bins, P = 45 for the
// large one. Per trie operation: insert <= P + 1, remove <= P, best fit <= 2P - 1,
// smallest <= P. Under CoalesceHeap, one malloc (search, unlink, file the split-off
// rest) costs at most kMaxMallocSteps = 5P + 1 = 226 and one free (unlink both
// neighbours, file the merged block) kMaxFreeSteps = 3P + 1 = 136, whatever the
// number of free blocks; an exact-bin hit costs 2, a carve from the victim 2.
// stepCount() is the running total; the layer above (QuickListHeap) turns it into
// per-call counts.
//
// It is a free structure for CoalesceHeap (coalesce_heap.h), which splits and
// coalesces; the `lea` policy puts exact-size quick lists (QuickListHeap) above:
//   QuickListHeap<160, 2^18, 128 KiB, CoalesceHeap<LeaBinsHeap<CoalesceableHeap<FixedArena>>>>
// Metadata: 31 list heads, 33 trie roots, the victim, the bitmap and byte and step
// totals in this object (~1.4 KiB); the links in the free blocks' payloads.
#pragma once

#include <algorithm>
#include <array>
#include <bit>
#include <cassert>
#include <cstddef>
#include <cstdint>
#include <string>

#include "heap/layers/coalesceable_heap.h"
#include "heap/layers/free_block_list.h"
#include "heap/layers/size_trie.h"

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
  // The largest request an exact bin serves: the usable bytes of its largest block.
  static constexpr std::size_t kExactMaxRequest = kExactMaxBytes - 8;
  static_assert(Super::blockBytesFor(kExactMaxRequest) == kExactMaxBytes &&
                Super::blockBytesFor(kExactMaxRequest + 1) > kExactMaxBytes);
  static constexpr std::size_t kLargeBytes = 128 * 1024;   // smallest block of the large bin
  static constexpr unsigned kLargeBin = kBinCount - 1;
  static constexpr unsigned kTrieCount = kBinCount - kExactBinCount;
  // The large bin's trie keys bits 47..4: no block reaches 2^48 bytes (256 TiB).
  static constexpr unsigned kLargeTopBit = 47;
  static constexpr std::size_t kLargestBlockBytes = (std::size_t{1} << (kLargeTopBit + 1)) - kAlignment;

  // The bin of a block of `blockBytes` bytes (a multiple of 16, at least 32).
  static constexpr unsigned binOf(std::size_t blockBytes) {
    if (blockBytes <= kExactMaxBytes) return static_cast<unsigned>((blockBytes - 2 * kAlignment) / kAlignment);
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
  // The highest key bit of a trie bin: below the bits that chose the bin.
  static constexpr unsigned trieTopBit(unsigned bin) {
    if (bin == kLargeBin) return kLargeTopBit;
    return 9 + (bin - kExactBinCount) / 4 - 3;
  }
  // Longest trie path of any bin (the large bin's), and the per-call bounds under
  // CoalesceHeap (see the top of this file).
  static constexpr std::size_t kPathNodes = SizeTrie::pathNodes(kLargeTopBit);
  // Worst malloc: best fit in its trie, the smallest of a bigger one, a look at the
  // victim, the unlink, the rest filed in a trie.
  static constexpr std::size_t kMaxMallocSteps =
      (2 * kPathNodes - 1) + kPathNodes + 1 + kPathNodes + (kPathNodes + 1);
  // Worst free: both neighbours unlinked, the merged block filed.
  static constexpr std::size_t kMaxFreeSteps = 2 * kPathNodes + (kPathNodes + 1);
  static_assert(sizeof(SizeTrie::Node) + 16 <= binLowerBound(kExactBinCount),
                "a trie node must fit in the payload (after the 16-byte header) of the smallest block a trie holds");

  // The two common cases inline — a small request met by the head of its exact bin,
  // or by the victim where the search below would take it (it is not the top, or no
  // bigger bin holds a block) — with the same steps; everything else out of line
  // (mallocSearching), so that these save no registers.
  void* malloc(std::size_t size) {
    victimRest_ = nullptr;
    if (size <= kExactMaxRequest) {
      const std::size_t need = Super::blockBytesFor(size);
      const unsigned bin = binOf(need);
      if (nonEmpty_ & (std::uint64_t{1} << bin)) return take(bin, exact_[bin].head());
      if (victim_ != nullptr && victimBytes_ >= need && victimMayServe(bin)) {
        ++steps_;  // the victim looked at
        return takeVictim(need);
      }
    }
    return mallocSearching(size);
  }

  // The common carve in one pass: what malloc (when it takes the victim),
  // CoalesceHeap's carve and the free of the rest that hands it over as the next
  // victim do together, with the same tags, steps and victim, without taking the
  // victim out and filing its rest back. malloc takes the victim for a small request
  // when its exact bin is empty (and, for the top, every bigger bin too), and for a
  // medium or large one when its bin and every bigger one are empty (nothing there
  // could fit more closely). nullptr, changing nothing, in every other case and when
  // the rest would be too small to split off: then malloc.
  static constexpr std::size_t kFastPathSteps = 2;  // the victim looked at; its rest handed over
  void* mallocFastPath(std::size_t size) {
    if (size <= kExactMaxRequest) {
      const std::size_t need = Super::blockBytesFor(size);
      const unsigned bin = binOf(need);
      if (!victimMayServe(bin)) return nullptr;
      return carveVictim(need);
    }
    if (size > kLargestBlockBytes - kAlignment) return nullptr;  // then blockBytesFor(size) <= kLargestBlockBytes
    const std::size_t need = Super::blockBytesFor(size);
    if ((nonEmpty_ >> binOf(need)) != 0) return nullptr;
    return carveVictim(need);
  }

  // The rest of a block just taken from the victim (the common carve) becomes the
  // next victim inline; every other free out of line (fileFreed).
  void free(void* block) {
    if (block == victimRest_ && victim_ == nullptr) {
      assert(!victimMerged_);  // a hand-over is taken by the free that follows it
      assert(victimRestBytes_ == Super::blockBytes(block) && victimRestIsTop_ == (Super::blockAfter(block) == nullptr));
      victimRest_ = nullptr;
      ++steps_;
      adoptVictim(block, victimRestBytes_, victimRestIsTop_);
      return;
    }
    fileFreed(block);
  }

  void remove(void* block) {
    if (block == victim_) {  // a neighbour being coalesced: the merged block becomes the victim
      ++steps_;
      victim_ = nullptr;
      victimMerged_ = true;
      bytes_ -= Super::usableBytes(victimBytes_);
      return;
    }
    unlink(binOf(Super::blockBytes(block)), block);
  }

  // Steps taken since construction (see the top of this file).
  std::size_t stepCount() const { return steps_; }
  std::size_t freeBytes() const { return bytes_; }
  std::size_t binBlockCount(unsigned bin) const {
    return bin < kExactBinCount ? exact_[bin].count() : trie(bin).count();
  }
  std::uint64_t nonEmptyBins() const { return nonEmpty_; }
  // The free block kept out of the bins for small requests (nullptr if none).
  void* victim() const { return victim_; }
  // The largest request malloc can serve now: the bigger of the victim and the
  // biggest block of the highest non-empty bin (its trie's rightmost path).
  std::size_t largestFreeBlock() const {
    std::size_t largest = victim_ ? Super::usableBytes(victimBytes_) : 0;
    if (nonEmpty_ == 0) return largest;
    unsigned top = static_cast<unsigned>(std::bit_width(nonEmpty_)) - 1;
    void* block = top < kExactBinCount ? exact_[top].head() : trie(top).largest();
    return std::max(largest, Super::getSize(block));
  }

  template <class Fn>
  void forEachFreeBlock(Fn&& fn) const {
    if (victim_) fn(victim_);
    for (const FreeBlockList& bin : exact_)
      for (FreeBlockList::Node* n = bin.head(); n; n = n->next) fn(static_cast<void*>(n));
    for (const SizeTrie& t : tries_) t.forEach(fn);
  }

  // Each bin's links (lists) or shape (tries) hold together, its bitmap bit says
  // whether it is non-empty, and each of its blocks belongs in it by size.
  std::string checkFreeStructure() const {
    if (victim_ != nullptr && !Super::isFree(victim_)) return "the victim is not a free block";
    if (victim_ != nullptr && victimBytes_ != Super::blockBytes(victim_))
      return "the victim's recorded size disagrees with its header";
    if (victim_ != nullptr && victimIsTop() != (Super::blockAfter(victim_) == nullptr))
      return "the victim's top flag disagrees with what lies after it";
    if (victimRest_ != nullptr || victimMerged_) return "a victim hand-over left pending";
    for (unsigned b = 0; b < kBinCount; ++b) {
      std::string bin = "bin " + std::to_string(b) + ": ";
      bool isEmpty = b < kExactBinCount ? exact_[b].empty() : trie(b).empty();
      if (b < kExactBinCount) {
        if (std::string broken = exact_[b].checkLinks(); !broken.empty()) return bin + broken;
      } else {
        if (trie(b).topBit() != trieTopBit(b)) return bin + "trie keyed on the wrong bits";
        if (std::string broken = trie(b).checkStructure(); !broken.empty()) return bin + broken;
      }
      if (((nonEmpty_ >> b) & 1) != !isEmpty)
        return bin + "bitmap bit disagrees with the bin being " + (isEmpty ? "empty" : "non-empty");
      std::string misfiled;
      auto check = [&](void* n) {
        if (misfiled.empty() && binOf(Super::blockBytes(n)) != b)
          misfiled = bin + "holds a block of " + std::to_string(Super::blockBytes(n)) + " bytes";
      };
      if (b < kExactBinCount) {
        for (FreeBlockList::Node* n = exact_[b].head(); n; n = n->next) check(n);
      } else {
        trie(b).forEach([&](void* n) {
          check(n);
          auto* node = static_cast<SizeTrie::Node*>(n);
          if (misfiled.empty() && node->size != Super::blockBytes(n))
            misfiled = bin + "trie node says " + std::to_string(node->size) + " bytes, the block " +
                       std::to_string(Super::blockBytes(n));
        });
      }
      if (!misfiled.empty()) return misfiled;
    }
    return "";
  }

 private:
  static constexpr std::array<SizeTrie, kTrieCount> makeTries() {
    std::array<SizeTrie, kTrieCount> tries{};
    for (unsigned i = 0; i < kTrieCount; ++i) tries[i] = SizeTrie(trieTopBit(kExactBinCount + i));
    return tries;
  }
  SizeTrie& trie(unsigned bin) { return tries_[bin - kExactBinCount]; }
  const SizeTrie& trie(unsigned bin) const { return tries_[bin - kExactBinCount]; }

  // The whole search, in the order the top of this file gives (malloc, its only
  // caller, has cleared victimRest_).
  [[gnu::noinline]] void* mallocSearching(std::size_t size) {
    if (size > Super::kMaxRequest) return Super::malloc(size);  // fails there
    std::size_t need = Super::blockBytesFor(size);
    if (need > kLargestBlockBytes) return Super::malloc(size);  // no free block is that big
    unsigned bin = binOf(need);
    std::uint64_t larger = bin == kLargeBin ? 0 : nonEmpty_ & (~std::uint64_t{0} << (bin + 1));
    if (bin < kExactBinCount) {  // small: exact fit, else the victim, else carve a bigger block
      if (nonEmpty_ & (std::uint64_t{1} << bin)) return take(bin, exact_[bin].head());
      // The victim first, unless it is the arena's last block (the "top"): that one
      // only when no bigger free block is left, so holes are reused before fresh
      // memory and the heap stays compact.
      if (victim_ != nullptr && !victimIsTop() && (++steps_, victimBytes_ >= need)) return takeVictim(need);
      if (larger == 0) {
        if (victim_ != nullptr && (++steps_, victimBytes_ >= need)) return takeVictim(need);
        return Super::malloc(size);
      }
      unsigned next = static_cast<unsigned>(std::countr_zero(larger));
      void* block = take(next, next < kExactBinCount ? exact_[next].head() : trie(next).smallest(steps_));
      if (const std::size_t rest = Super::blockBytes(block) - need; rest >= Super::kMinBlockBytes)
        expectRest(static_cast<std::byte*>(block) + need, rest, Super::blockAfter(block) == nullptr);
      return block;
    }
    // Medium and large: best fit in its trie, else the smallest of a bigger bin;
    // the victim instead when it is a closer fit.
    void* best = nullptr;
    unsigned from = bin;
    if (nonEmpty_ & (std::uint64_t{1} << bin)) best = trie(bin).bestFit(need, steps_);
    if (best == nullptr && larger != 0) {
      from = static_cast<unsigned>(std::countr_zero(larger));
      best = from < kExactBinCount ? (++steps_, exact_[from].head()) : trie(from).smallest(steps_);
    }
    if (victim_ != nullptr) {
      ++steps_;
      if (victimBytes_ >= need && (best == nullptr || victimBytes_ < Super::blockBytes(best))) return takeVictim(need);
    }
    if (best == nullptr) return Super::malloc(size);
    unlink(from, best);
    return best;
  }

  // mallocFastPath once malloc would take the victim: its first `need` bytes, the
  // rest the next victim; nullptr when there is none or the rest would be too small.
  void* carveVictim(std::size_t need) {
    void* block = victim_;
    const std::size_t bytes = victimBytes_;
    if (block == nullptr || bytes < need + Super::kMinBlockBytes) return nullptr;
    assert(victimRest_ == nullptr);  // no hand-over is pending between calls
    steps_ += kFastPathSteps;
    victimBytes_ = bytes - need;
    victim_ = Super::carveFree(block, bytes, need);
    bytes_ -= need;  // apart from steps_: the two beside each other get vectorized, at more instructions
    return block;
  }

  // Files a freed block, or makes it the victim when it succeeds one (see free).
  [[gnu::noinline]] void fileFreed(void* block) {
    if (block == victimRest_ || victimMerged_) {  // the victim's successor
      const bool rest = block == victimRest_;
      victimRest_ = nullptr;
      victimMerged_ = false;
      ++steps_;
      if (victim_ != nullptr) file(victim_, victimBytes_);  // its header may be cold: size from here
      if (rest) {
        adoptVictim(block, victimRestBytes_, victimRestIsTop_);
      } else {
        const std::size_t bytes = Super::blockBytes(block);
        adoptVictim(block, bytes, Super::blockAfter(block) == nullptr);
      }
    } else {
      file(block, Super::blockBytes(block));
      bytes_ += Super::getSize(block);
    }
  }
  // Makes `block` (of `bytes` bytes, ending its chunk if `isTop`) the victim. The
  // caller knows its size: read back from the header just written, it would be
  // reloaded after every store that may alias it.
  void adoptVictim(void* block, std::size_t bytes, bool isTop) {
    const std::size_t usable = Super::usableBytes(bytes);
    victim_ = block;
    victimBytes_ = bytes;
    victimBinsMask_ = isTop ? ~std::uint64_t{0} : 1;
    bytes_ += usable;
  }
  // The caller will split off `rest` (of `bytes` bytes) and file it back: it
  // becomes the next victim, with the size and top flag known now.
  void expectRest(void* rest, std::size_t bytes, bool isTop) {
    victimRest_ = rest;
    victimRestBytes_ = bytes;
    victimRestIsTop_ = isTop;
  }

  // Files a free block of `bytes` bytes in its bin (bytes_ is the caller's).
  void file(void* block, std::size_t bytes) {
    assert(bytes <= kLargestBlockBytes);
    unsigned bin = binOf(bytes);
    if (bin < kExactBinCount) {
      ++steps_;
      exact_[bin].pushFront(block);
    } else {
      trie(bin).insert(block, bytes, steps_);
    }
    nonEmpty_ |= std::uint64_t{1} << bin;
  }

  // Hands out the victim (already looked at); when CoalesceHeap will split it, the
  // rest it files back becomes the next victim.
  void* takeVictim(std::size_t need) {
    void* block = victim_;
    const std::size_t rest = victimBytes_ - need;
    victim_ = nullptr;
    bytes_ -= Super::usableBytes(victimBytes_);
    if (rest >= Super::kMinBlockBytes) expectRest(static_cast<std::byte*>(block) + need, rest, victimIsTop());
    return block;
  }

  void unlink(unsigned bin, void* block) {
    bool nowEmpty;
    if (bin < kExactBinCount) {
      ++steps_;
      exact_[bin].remove(block);
      nowEmpty = exact_[bin].empty();
    } else {
      trie(bin).remove(block, steps_);
      nowEmpty = trie(bin).empty();
    }
    if (nowEmpty) nonEmpty_ &= ~(std::uint64_t{1} << bin);
    bytes_ -= Super::getSize(block);
  }

  // Unlinks `block` of `bin` (an exact bin's head counts one step for the look).
  void* take(unsigned bin, void* block) {
    if (bin < kExactBinCount) ++steps_;  // the head looked at
    unlink(bin, block);
    return block;
  }

  FreeBlockList exact_[kExactBinCount];
  std::array<SizeTrie, kTrieCount> tries_ = makeTries();
  // The designated victim (dlmalloc 2.8's "dv"): the rest of the last block split
  // for a small request, kept out of the bins, so a run of small requests carves
  // one block in address order at one step each instead of a trie removal and
  // insertion each. It is free, so it coalesces like any other free block.
  void* victim_ = nullptr;
  std::size_t victimBytes_ = 0;  // its size, kept here: its header may be cold
  // The bins, from a small request's own up (nonEmpty_ shifted down to it), that must
  // all be empty for the victim to serve it: its own alone (1), or all of them when
  // the victim ends its chunk (the arena's untouched rest, the "top").
  std::uint64_t victimBinsMask_ = 1;
  bool victimIsTop() const { return victimBinsMask_ != 1; }
  // The victim's rule for a small request of exact bin `bin`: that bin, and when the
  // victim is the top every bigger bin too, must be empty (one shift and mask).
  bool victimMayServe(unsigned bin) const { return ((nonEmpty_ >> bin) & victimBinsMask_) == 0; }
  void* victimRest_ = nullptr;  // the rest malloc's caller will file back: the next victim
  std::size_t victimRestBytes_ = 0;  // its size and top flag (expectRest)
  bool victimRestIsTop_ = false;
  bool victimMerged_ = false;   // the victim was coalesced away: the merged block succeeds it
  std::uint64_t nonEmpty_ = 0;
  std::size_t bytes_ = 0;
  std::size_t steps_ = 0;
};

}  // namespace kith::heap
