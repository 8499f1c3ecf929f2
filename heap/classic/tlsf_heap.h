// TlsfHeap: Two-Level Segregated Fit (Masmano, Ripoll, Crespo, Real, "TLSF: a New
// Dynamic Memory Allocator for Real-Time Systems", ECRTS 2004). malloc and free in
// bounded time, independent of how many blocks the heap holds: free blocks sit in
// segregated lists indexed by a two-level map. The first level splits sizes into
// power-of-two ranges, the second splits each range linearly into 32 lists; one
// bitmap per level says which lists are non-empty, so finding a list that fits is
// a few find-first-set instructions, never a walk. malloc rounds the request up to
// the next list boundary ("good fit"), so the head of any list it finds fits
// without being looked at; a larger block is split and the rest goes back. free
// coalesces at once with both physical neighbours through boundary tags.
//
// Where things live:
//  - In the layer object, outside the arena: the first-level bitmap, 32 second-level
//    bitmaps, the 32x32 list heads and a few counters: 8,400 bytes, 8 KiB of it
//    the list heads.
//  - In the arena, which TlsfHeap takes whole from Super at construction:
//        [8 B unused][block][block]...[block][8 B sentinel header]
//    Every block begins with an 8-byte header: its size (a multiple of 16, header
//    included) with bit 0 = this block is free and bit 1 = the block physically
//    before it is free. The payload follows at a 16-byte-aligned address, so a
//    block of size S offers S - 8 usable bytes (getSize). A free block keeps its
//    list links in its payload, and its last 8 bytes point at its own header: the
//    next block reads that word, when its prev-free bit is set, to find the block
//    to coalesce with. The sentinel is a header of size 0 that is never free, so
//    the last block needs no bounds check.
//
// Invariants (checkInvariants() checks all of them):
//  1. The blocks tile the arena: 8 + sum of block sizes + 8 == managed bytes.
//  2. No two physically adjacent blocks are both free (coalescing is immediate).
//  3. A block's prev-free bit equals the free bit of the block before it, and when
//     set, the tail word of that block points at it.
//  4. Every free block is in exactly one list: the one mapInsert(size) names.
//  5. Second-level bit (f, s) is set iff list (f, s) is non-empty; first-level bit
//     f iff any second-level bit of f is set.
//
// Bounds, in "steps" (one step = a bitmap search or a list insertion/removal with
// its bitmap update; the index arithmetic is a handful of instructions on top):
// malloc takes at most kMaxMallocSteps = 5 (second-level search, first-level
// search, second-level search, remove, insert the split-off rest); free at most
// kMaxFreeSteps = 3 (remove the previous and the next neighbour, insert).
#pragma once

#include <algorithm>
#include <array>
#include <bit>
#include <cassert>
#include <concepts>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <string>
#include <utility>
#include <vector>

#include "heap/layer.h"
#include "heap/outcome.h"

namespace kith::heap {

template <class Super>
class TlsfHeap : public Super {
  static_assert(HeapLayer<Super> && requires(Super& s) {
    { s.remaining() } -> std::convertible_to<std::size_t>;
  }, "TlsfHeap takes its whole region from Super at construction: Super needs remaining(), "
     "as FixedArena has");

 public:
  // The two-level index of a free list: first = power-of-two range, second = slice.
  struct ListIndex {
    unsigned first;
    unsigned second;
    friend bool operator==(ListIndex, ListIndex) = default;
  };

  static constexpr unsigned kSecondLevelLog2 = 5;  // SLI: 32 lists per range
  static constexpr unsigned kSecondLevelCount = 1u << kSecondLevelLog2;
  static constexpr unsigned kFirstLevelCount = 32;
  // Sizes below 512 map linearly, one list per 16 bytes, into first level 0; first
  // level f >= 1 covers [2^(f+8), 2^(f+9)) in 32 slices of 2^(f+3) bytes.
  static constexpr unsigned kLinearLog2 = kSecondLevelLog2 + 4;
  static constexpr std::size_t kLinearLimit = std::size_t{1} << kLinearLog2;
  static constexpr std::size_t kHeaderSize = 8;
  static constexpr std::size_t kSmallestBlock = 32;  // header + two links + tail word
  static constexpr std::size_t kMaxBlockSize =
      (std::size_t{1} << (kFirstLevelCount + kLinearLog2 - 1)) - kAlignment;  // 1 TiB - 16
  static constexpr std::size_t kMaxMallocSteps = 5;
  static constexpr std::size_t kMaxFreeSteps = 3;

  // The list a free block of `size` bytes belongs to (size in [lower, next lower)).
  static constexpr ListIndex mapInsert(std::size_t size) { return indexOf(listOf(size)); }
  // The first list whose every block holds `size` bytes: size rounded up to the
  // next slice boundary, then mapped. first may reach kFirstLevelCount (no list).
  static constexpr ListIndex mapSearch(std::size_t size) { return indexOf(searchListOf(size)); }
  // The smallest block size list `i` holds.
  static constexpr std::size_t listLowerBound(ListIndex i) {
    if (i.first == 0) return i.second * kAlignment;
    unsigned log = i.first + kLinearLog2 - 1;
    return (std::size_t{1} << log) + (std::size_t{i.second} << (log - kSecondLevelLog2));
  }

  template <class... Args>
    requires std::constructible_from<Super, Args...>
  explicit TlsfHeap(Args&&... args) : Super(std::forward<Args>(args)...) {
    takeArena();
  }

  void* malloc(std::size_t size) {
    // A request of at most kMinBlock bytes takes the smallest block, unchecked.
    std::size_t need = alignUp(kMinBlock + kHeaderSize);
    if (size > kMinBlock) {
      if (size > kMaxBlockSize) return failed(0);  // cannot fit, and would overflow below
      need = alignUp(size + kHeaderSize);
    }
    unsigned list = searchListOf(need);
    if (list >= kListCount) return failed(0);
    // The steps are counted in a local: a member would be reloaded after every
    // header store, which the compiler must assume may alias it.
    unsigned steps = 1;  // the second-level search
    unsigned first = list >> kSecondLevelLog2;
    std::uint32_t seconds =
        secondLevel_[first] & (~std::uint32_t{0} << (list & (kSecondLevelCount - 1)));
    if (seconds == 0) {
      std::uint32_t firsts =
          first + 1 < kFirstLevelCount ? firstLevel_ & (~std::uint32_t{0} << (first + 1)) : 0;
      if (firsts == 0) return failed(2);
      first = static_cast<unsigned>(std::countr_zero(firsts));
      seconds = secondLevel_[first];
      // Invariant 5: the range the first level names has a list. Said, it lets
      // countr_zero below compile to the bare tzcnt, without its answer for 0.
      if (seconds == 0) __builtin_unreachable();
      steps = 3;  // the first-level search and the second-level one in the range found
    }
    list = (first << kSecondLevelLog2) + static_cast<unsigned>(std::countr_zero(seconds));
    Block*& head = heads_[list];
    Block* block = head;  // good fit: the head fits without a look at its size
    Block* following = block->nextInList;
    std::size_t header = block->header;
    std::size_t foundSize = header & ~kFlagMask;
    Block* next = at(block, foundSize);
    std::size_t restSize = foundSize - need;
    if (restSize >= kSmallestBlock) {
      Block* rest = at(block, need);
      rest->header = restSize | kFreeBit;  // its predecessor, block, is in use
      previousPhysical(next) = rest;       // next's prev-free bit stays set
      block->header = need | (header & kPreviousFreeBit);
      if (restSize >= listFloor(foundSize)) {
        // Removing the head and filing the rest in the same list puts the rest
        // where the block was: relink it in place, the bitmaps unchanged.
        linkAsHead(rest, following, head);
      } else {
        unlinkHead(list, following);
        pushFront(rest, listOf(restSize));
      }
      record(Outcome::split, steps + 2);  // the removal and the insertion
    } else {
      unlinkHead(list, following);
      block->header = header & ~kFreeBit;
      next->header &= ~kPreviousFreeBit;
      record(Outcome::immediate, steps + 1);  // the removal
    }
    return payload(block);
  }

  void free(void* ptr) {
    if (ptr == nullptr) {
      freeSteps_ = 0;
      return;
    }
    Block* block = blockOf(ptr);
    assert(reinterpret_cast<std::byte*>(block) >= begin_ &&
           reinterpret_cast<std::byte*>(block) < end_ && "free of a pointer TlsfHeap did not give");
    assert(!block->isFree() && "double free");
    std::size_t header = block->header;
    if (header & kPreviousFreeBit) return freeAfterFreeBlock(block);
    std::size_t size = header & ~kFlagMask;
    Block* next = at(block, size);
    fileWithNext(block, size, next, next->header, 1);  // 1: the insertion
  }

  // The usable bytes of a live block: its size less the header.
  std::size_t getSize(void* ptr) const { return blockOf(ptr)->size() - kHeaderSize; }

  Outcome lastOutcome() const { return static_cast<Outcome>(lastMalloc_ & kOutcomeMask); }
  // Bitmap searches + list operations of the last malloc (<= kMaxMallocSteps) and
  // of the last free (<= kMaxFreeSteps).
  std::size_t lastSteps() const { return lastMalloc_ >> kOutcomeBits; }
  std::size_t lastFreeSteps() const { return freeSteps_; }

  // Usable bytes in free blocks (each counted as size - header), summed over the
  // lists when asked: it is read at a failure or a census, and a running count
  // would cost every malloc and free an update.
  std::size_t freeBytes() const {
    std::size_t bytes = 0;
    forEachFreeSize([&](std::size_t usable, std::size_t) { bytes += usable; });
    return bytes;
  }

  // The largest request malloc will satisfy now, read from the bitmaps in O(1): the
  // usable size of the smallest block the highest non-empty list may hold. Good fit
  // never takes a block for a request above its list's lower bound, so a bigger
  // free block in that list (at most 1/32 bigger) cannot serve a bigger request:
  // malloc(largestFreeBlock()) succeeds and malloc(largestFreeBlock() + 1) fails.
  std::size_t largestFreeBlock() const {
    if (firstLevel_ == 0) return 0;
    unsigned first = static_cast<unsigned>(std::bit_width(firstLevel_)) - 1;
    unsigned second = static_cast<unsigned>(std::bit_width(secondLevel_[first])) - 1;
    return listLowerBound({first, second}) - kHeaderSize;
  }

  // fn(usable bytes, 1) for each block on the free lists (free_space.h).
  template <class Fn>
  void forEachFreeSize(Fn&& fn) const {
    for (unsigned f = 0; f < kFirstLevelCount; ++f)
      for (unsigned s = 0; s < kSecondLevelCount && secondLevel_[f] != 0; ++s)
        for (const Block* b = heads_[(f << kSecondLevelLog2) + s]; b != nullptr; b = b->nextInList) fn(b->size() - kHeaderSize, std::size_t{1});
  }

  // Read-only views of a block's physical neighbours, for the statistics layer (its
  // leftover marks, split_leftovers.h); malloc and free never call them. The block
  // just above `ptr` (after a split, the rest), or nullptr at the sentinel; the free
  // block just below `ptr`, which a free of ptr will merge with, or nullptr.
  void* blockAfter(void* ptr) const {
    Block* next = at(blockOf(ptr), blockOf(ptr)->size());
    return next->size() == 0 ? nullptr : payload(next);
  }
  void* freeBlockBefore(void* ptr) const {
    const Block* block = blockOf(ptr);
    return block->header & kPreviousFreeBit ? payload(previousPhysical(block)) : nullptr;
  }
  // fn(payload) for each block on the free lists.
  template <class Fn>
  void forEachFreeBlock(Fn&& fn) const {
    for (unsigned list = 0; list < kListCount; ++list)
      for (Block* b = heads_[list]; b != nullptr; b = b->nextInList) fn(payload(b));
  }

  // Walks every physical block and every free list; "" when invariants 1-5 hold,
  // otherwise what is wrong, with offsets from arenaBase().
  std::string checkInvariants() const {
    std::vector<const Block*> freeBlocks;  // in address order
    if (std::string broken = checkPhysicalBlocks(freeBlocks); !broken.empty()) return broken;
    return checkLists(freeBlocks);
  }

 private:
  static constexpr std::size_t kFreeBit = 1;
  static constexpr std::size_t kPreviousFreeBit = 2;
  static constexpr std::size_t kFlagMask = kAlignment - 1;
  static constexpr unsigned kListCount = kFirstLevelCount * kSecondLevelCount;

  // Internally a list is one number, first * kSecondLevelCount + second: its head
  // is one array element, its bits are list / 32 and list % 32, and comparing two
  // lists is one comparison.
  static constexpr ListIndex indexOf(unsigned list) {
    return {list >> kSecondLevelLog2, list & (kSecondLevelCount - 1)};
  }
  // The index of size's highest set bit (size > 0), written so that it compiles
  // to the one bit-scan instruction: bit_width(size) - 1 costs two more.
  static constexpr unsigned floorLog2(std::size_t size) {
    return 63u ^ static_cast<unsigned>(std::countl_zero(size));
  }
  // mapInsert as one number. Above the linear range, size >> (log - 5) is in
  // [32, 64): the slice plus 32, so the first level, log - 8, enters as log - 9.
  static constexpr unsigned listOf(std::size_t size) {
    if (size < kLinearLimit) return static_cast<unsigned>(size / kAlignment);
    unsigned log = floorLog2(size);
    return ((log - kLinearLog2) << kSecondLevelLog2) +
           static_cast<unsigned>(size >> (log - kSecondLevelLog2));
  }
  // The smallest size in size's list. A smaller size s' < size is in the same
  // list iff s' >= listFloor(size): one comparison, where mapping s' would take
  // another bit scan.
  static constexpr std::size_t listFloor(std::size_t size) {
    if (size < kLinearLimit) return size & ~kFlagMask;
    return size & (~std::size_t{0} << (floorLog2(size) - kSecondLevelLog2));
  }
  // mapSearch as one number; kListCount or more when no list is large enough.
  static constexpr unsigned searchListOf(std::size_t size) {
    if (size < kLinearLimit) return listOf(size);
    unsigned log = floorLog2(size);
    return listOf(size + (std::size_t{1} << (log - kSecondLevelLog2)) - 1);
  }

  struct Block {
    std::size_t header;  // size | kFreeBit | kPreviousFreeBit
    Block* nextInList;   // these two only while free, in the payload
    Block* previousInList;
    std::size_t size() const { return header & ~kFlagMask; }
    bool isFree() const { return (header & kFreeBit) != 0; }
  };

  static Block* at(Block* block, std::size_t offset) {
    return reinterpret_cast<Block*>(reinterpret_cast<std::byte*>(block) + offset);
  }
  static Block* blockOf(void* ptr) {
    return reinterpret_cast<Block*>(static_cast<std::byte*>(ptr) - kHeaderSize);
  }
  static void* payload(Block* block) { return reinterpret_cast<std::byte*>(block) + kHeaderSize; }
  // The tail word of the block before `block`; meaningful while that block is free.
  static Block*& previousPhysical(const Block* block) {
    return *reinterpret_cast<Block**>(
        const_cast<std::byte*>(reinterpret_cast<const std::byte*>(block)) - sizeof(Block*));
  }

  void takeArena() {
    std::size_t bytes = Super::remaining() & ~kFlagMask;
    auto* region = static_cast<std::byte*>(Super::malloc(bytes));
    // Beyond what the map covers the region is left unused (only above 1 TiB).
    if (bytes > kMaxBlockSize + 2 * kHeaderSize) bytes = kMaxBlockSize + 2 * kHeaderSize;
    if (region == nullptr || bytes < kSmallestBlock + 2 * kHeaderSize) return;  // every malloc fails
    region_ = region;
    managedBytes_ = bytes;
    begin_ = region + kHeaderSize;
    end_ = region + bytes - kHeaderSize;
    auto* first = reinterpret_cast<Block*>(begin_);
    auto* sentinel = reinterpret_cast<Block*>(end_);
    first->header = static_cast<std::size_t>(end_ - begin_) | kFreeBit;
    sentinel->header = kPreviousFreeBit;  // size 0, in use
    previousPhysical(sentinel) = first;
    pushFront(first, listOf(first->size()));
  }

  void* failed(unsigned steps) {
    record(Outcome::failed, steps);
    return nullptr;
  }

  // The last malloc's outcome and steps, in the one byte malloc stores.
  static constexpr unsigned kOutcomeBits = 3;
  static constexpr unsigned kOutcomeMask = (1u << kOutcomeBits) - 1;
  static_assert(kOutcomeCount <= (1 << kOutcomeBits) && (kMaxMallocSteps << kOutcomeBits) < 256);
  void record(Outcome outcome, unsigned steps) {
    lastMalloc_ = static_cast<std::uint8_t>(steps << kOutcomeBits | static_cast<unsigned>(outcome));
  }

  // free of a block whose physical predecessor is free: merge with it, then on as
  // free does. Out of line: inlined, its registers would be saved and restored on
  // every free.
  [[gnu::noinline]] void freeAfterFreeBlock(Block* block) {
    std::size_t size = block->size();
    Block* next = at(block, size);
    std::size_t nextHeader = next->header;
    Block* previous = previousPhysical(block);
    std::size_t previousSize = previous->size();
    size += previousSize;
    // Removing a list head and inserting the merged block, at the same address,
    // in the same list would leave the list as it is.
    bool stays = (nextHeader & kFreeBit) == 0 && previous->previousInList == nullptr &&
                 previousSize >= listFloor(size);
    if (stays) return finishFree(previous, size, next, 2);
    detach(previous, previousSize);
    fileWithNext(previous, size, next, nextHeader, 2);  // 2: the removal and the insertion
  }

  // Files a free `block` of `size` bytes, merged with `next` (its physical
  // successor, whose header is nextHeader) when that is free. steps counts what
  // free has done so far.
  // Always inline: free's fast path is this and a few loads, and a call would pass
  // five arguments.
  [[gnu::always_inline]] void fileWithNext(Block* block, std::size_t size, Block* next,
                                           std::size_t nextHeader, std::size_t steps) {
    if (nextHeader & kFreeBit) {
      std::size_t nextSize = nextHeader & ~kFlagMask;
      size += nextSize;
      ++steps;
      unsigned list = listOf(size);
      if (next->previousInList == nullptr && nextSize >= listFloor(size)) {
        // The merged block takes the place of next, the head of the same list.
        linkAsHead(block, next->nextInList, heads_[list]);
      } else {
        // Filed before next is unlinked (the lists end the same either way): in
        // this order free needs three fewer registers saved and restored.
        pushFront(block, list);
        detach(next, nextSize);
      }
      next = at(next, nextSize);
    } else {
      pushFront(block, listOf(size));
    }
    finishFree(block, size, next, steps);
  }

  // The merged block's boundary tags, once it is in its list.
  void finishFree(Block* block, std::size_t size, Block* next, std::size_t steps) {
    block->header = size | kFreeBit;  // after coalescing its predecessor is in use
    previousPhysical(next) = block;
    next->header |= kPreviousFreeBit;
    freeSteps_ = steps;
  }

  static void linkAsHead(Block* block, Block* following, Block*& head) {
    block->nextInList = following;
    block->previousInList = nullptr;
    if (following) following->previousInList = block;
    head = block;
  }

  void pushFront(Block* block, unsigned list) {
    Block*& head = heads_[list];
    linkAsHead(block, head, head);
    unsigned first = list >> kSecondLevelLog2;
    secondLevel_[first] |= std::uint32_t{1} << (list & (kSecondLevelCount - 1));
    firstLevel_ |= std::uint32_t{1} << first;
  }

  // Removes the head of `list`, whose successor is `following`.
  void unlinkHead(unsigned list, Block* following) {
    heads_[list] = following;
    if (following) {
      following->previousInList = nullptr;
    } else {
      unsigned first = list >> kSecondLevelLog2;
      secondLevel_[first] &= ~(std::uint32_t{1} << (list & (kSecondLevelCount - 1)));
      if (secondLevel_[first] == 0) firstLevel_ &= ~(std::uint32_t{1} << first);
    }
  }

  // Removes a free block of `size` bytes from its list; the list is looked up
  // only when the block is its head.
  void detach(Block* block, std::size_t size) {
    Block* previous = block->previousInList;
    Block* following = block->nextInList;
    if (previous == nullptr) return unlinkHead(listOf(size), following);
    previous->nextInList = following;
    if (following) following->previousInList = previous;
  }

  std::string where(const Block* block) const {
    return "block at offset " +
           std::to_string(reinterpret_cast<const std::byte*>(block) - region_) + ": ";
  }

  // Invariants 1-3; collects the free blocks for checkLists.
  std::string checkPhysicalBlocks(std::vector<const Block*>& freeBlocks) const {
    if (region_ == nullptr) return "";
    const Block* previous = nullptr;
    std::size_t total = 0;
    auto* block = reinterpret_cast<const Block*>(begin_);
    while (reinterpret_cast<const std::byte*>(block) != end_) {
      std::size_t size = block->size();
      if (size < kSmallestBlock || size % kAlignment != 0 ||
          size > static_cast<std::size_t>(end_ - reinterpret_cast<const std::byte*>(block)))
        return where(block) + "bad size " + std::to_string(size);
      bool previousFree = previous != nullptr && previous->isFree();
      if (((block->header & kPreviousFreeBit) != 0) != previousFree)
        return where(block) + "prev-free bit disagrees with the previous block";
      if (previousFree && previousPhysical(block) != previous)
        return where(block) + "tail word of the free previous block does not point at it";
      if (previousFree && block->isFree()) return where(block) + "two adjacent free blocks";
      if (block->isFree()) freeBlocks.push_back(block);
      total += size;
      previous = block;
      block = reinterpret_cast<const Block*>(reinterpret_cast<const std::byte*>(block) + size);
    }
    if (block->size() != 0 || block->isFree()) return where(block) + "sentinel damaged";
    if (((block->header & kPreviousFreeBit) != 0) != previous->isFree())
      return where(block) + "sentinel's prev-free bit disagrees with the last block";
    if (previous->isFree() && previousPhysical(block) != previous)
      return where(block) + "tail word of the last block does not point at it";
    if (2 * kHeaderSize + total != managedBytes_)
      return "block sizes sum to " + std::to_string(total) + ", not the arena's " +
             std::to_string(managedBytes_ - 2 * kHeaderSize);
    return "";
  }

  // Invariants 4-5: each listed block is a free block of the physical walk and maps
  // to its list; as many entries as free blocks means none is missing or listed twice.
  std::string checkLists(const std::vector<const Block*>& freeBlocks) const {
    std::size_t listed = 0;
    for (unsigned f = 0; f < kFirstLevelCount; ++f) {
      bool anySecond = secondLevel_[f] != 0;
      if (((firstLevel_ >> f) & 1) != (anySecond ? 1u : 0u))
        return "first-level bit " + std::to_string(f) + " disagrees with its second level";
      for (unsigned s = 0; s < kSecondLevelCount; ++s) {
        auto list = [&] { return "list (" + std::to_string(f) + ", " + std::to_string(s) + "): "; };
        const Block* head = heads_[(f << kSecondLevelLog2) + s];
        if (((secondLevel_[f] >> s) & 1) != (head != nullptr ? 1u : 0u))
          return list() + "bitmap bit disagrees with the list's emptiness";
        const Block* previous = nullptr;
        for (const Block* b = head; b != nullptr; previous = b, b = b->nextInList) {
          if (++listed > freeBlocks.size()) return list() + "more entries than free blocks (a cycle?)";
          if (!std::binary_search(freeBlocks.begin(), freeBlocks.end(), b, std::less<>()))
            return list() + "holds something that is not a free block";
          if (b->previousInList != previous) return list() + where(b) + "broken back link";
          if (mapInsert(b->size()) != ListIndex{f, s})
            return list() + where(b) + "size " + std::to_string(b->size()) + " belongs elsewhere";
        }
      }
    }
    if (listed != freeBlocks.size())
      return std::to_string(freeBlocks.size() - listed) + " free block(s) in no list";
    return "";
  }

  std::uint32_t firstLevel_ = 0;
  std::array<std::uint32_t, kFirstLevelCount> secondLevel_{};
  std::array<Block*, kListCount> heads_{};
  std::byte* region_ = nullptr;  // what Super gave; nullptr when too small to manage
  std::byte* begin_ = nullptr;   // the first block's header
  std::byte* end_ = nullptr;     // the sentinel's header
  std::size_t managedBytes_ = 0;
  std::size_t freeSteps_ = 0;
  std::uint8_t lastMalloc_ = 0;  // steps << kOutcomeBits | outcome, written by record()
};

}  // namespace kith::heap
