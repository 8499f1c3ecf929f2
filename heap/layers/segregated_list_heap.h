// SegregatedListHeap: segregated fits as a free structure for CoalesceHeap — what
// Kingsley's classes become when "we just add coalescing and splitting with the
// layers we developed for LeaHeap" (paper §8; the `kingsley-coalescing` policy):
//
//     CoalesceHeap< SegregatedListHeap< classes, CoalesceableHeap< FixedArena > > >
//
// Free blocks of any size sit on one doubly-linked list per size class (NumClasses
// of them, at most 64), each under the largest class all of whose requests it holds
// (listOf), so the head of any list at or above a request's class fits it unlooked.
// malloc takes the head of the smallest non-empty list at or above the request's
// class — Heap Layers' SegHeap, which looks on up to larger classes, not
// StrictSegHeap, which would never reuse a coalesced block filed under another
// class — found with one count-trailing-zeros in a word of non-empty lists; when
// there is none, Super's fresh chunk (over a fixed arena: nullptr, as the arena went
// whole to the first). free pushes at its list's head; remove unlinks a block from
// anywhere (a neighbour being merged), O(1).
//
// Kith's SegHeap cannot be this structure: its bins (FreelistHeap) are singly
// linked, so a neighbour being merged cannot be taken out of them, and its
// free-space reports count a cached block at its class's size, where a coalesced
// block has any size.
//
// A request fails when its class's list and every larger one are empty, even if the
// list just below holds a block big enough (a 100-byte block is filed under 64 and
// does not serve 80): the price of never looking at a block before taking it, as in
// TLSF's good fit. largestFreeBlock() says what can be served.
//
// Bounded time, in steps (TLSF's units: a search of the non-empty word, or a list
// insertion or removal with its word's update). Under CoalesceHeap a malloc is the
// search, the unlink of the block found (on a miss: the call to Super) and the filing
// of the rest a split leaves: kMaxMallocSteps = 3. A free unlinks at most both
// neighbours and files the merged block: kMaxFreeSteps = 3. However many blocks are
// free. lastSteps() and lastFreeSteps() count the last malloc and the last free.
//
// Metadata: the list heads and counts, the non-empty word, the free bytes and the
// step counts in this object (~1 KiB for 60 classes); the links in the free blocks'
// payloads.
#pragma once

#include <bit>
#include <cstddef>
#include <cstdint>
#include <string>

#include "heap/layers/coalesceable_heap.h"
#include "heap/layers/free_block_list.h"

namespace kith::heap {

template <int NumClasses, int (*SizeClass)(std::size_t), std::size_t (*ClassMaxSize)(int), class Super>
class SegregatedListHeap : public Super {
  static_assert(NumClasses > 0 && NumClasses <= 64, "the non-empty lists are bits of one 64-bit word");
  static_assert(CoalescingRepresentation<Super>,
                "SegregatedListHeap files blocks by their boundary-tag sizes: put CoalesceableHeap under it");
  static_assert(Super::usableBytes(Super::blockBytesFor(0)) >= ClassMaxSize(0),
                "the smallest block must hold the first class's requests, so every free block has a list");

 public:
  using Super::Super;

  static constexpr std::size_t kMaxMallocSteps = 3;
  static constexpr std::size_t kMaxFreeSteps = 3;

  // The head of the smallest non-empty list that fits, unlinked; else Super's fresh
  // chunk, or nullptr.
  void* malloc(std::size_t size) {
    const int c = SizeClass(size);
    const std::uint64_t fitting = c < NumClasses ? nonEmpty_ >> c << c : 0;
    mallocSteps_ = 2;  // the search, then the unlink or Super
    if (fitting == 0) return Super::malloc(size);
    const int list = std::countr_zero(fitting);
    void* block = lists_[list].head();
    unlink(list, block);
    return block;
  }

  // Files a free block (a whole free, or the merge of one with its neighbours).
  void free(void* block) {
    file(block);
    freeSteps_ = unlinkedForFree_ + 1;
    unlinkedForFree_ = 0;
  }

  // Files the rest of the block the last malloc split (CoalesceHeap calls this in
  // place of free), so the malloc's steps include it.
  void fileSplitRest(void* rest) {
    file(rest);
    ++mallocSteps_;
  }

  // Unlinks a free block this structure holds: a neighbour a free merges.
  void remove(void* block) {
    unlink(listOf(Super::getSize(block)), block);
    ++unlinkedForFree_;
  }

  std::size_t lastSteps() const { return mallocSteps_; }
  std::size_t lastFreeSteps() const { return freeSteps_; }

  // Usable bytes in the blocks held.
  std::size_t freeBytes() const { return bytes_; }
  // The largest request malloc serves now: the first size of the largest non-empty
  // list's class (a bigger request's class is above every non-empty list).
  std::size_t largestFreeBlock() const {
    if (nonEmpty_ == 0) return 0;
    return ClassMaxSize(63 - std::countl_zero(nonEmpty_));
  }

  // Class by class, each list head to tail.
  template <class Fn>
  void forEachFreeBlock(Fn&& fn) const {
    for (const FreeBlockList& list : lists_)
      for (FreeBlockList::Node* n = list.head(); n; n = n->next) fn(static_cast<void*>(n));
  }

  // Each list's links hold; each block is on the list of its size; a list's bit in
  // the non-empty word is set exactly when it holds a block. "" when all hold.
  std::string checkFreeStructure() const {
    for (int c = 0; c < NumClasses; ++c) {
      const FreeBlockList& list = lists_[c];
      const std::string where = "segregated list " + std::to_string(c) + " (" + std::to_string(ClassMaxSize(c)) + " B): ";
      if (std::string broken = list.checkLinks(); !broken.empty()) return where + broken;
      const bool markedNonEmpty = (nonEmpty_ >> c) & 1;
      if (markedNonEmpty == list.empty())
        return where + (list.empty() ? "empty, but its non-empty bit is set" : "holds blocks, but its non-empty bit is clear");
      for (FreeBlockList::Node* n = list.head(); n; n = n->next)
        if (listOf(Super::getSize(n)) != c)
          return where + "holds a block of " + std::to_string(Super::getSize(n)) + " usable bytes, which belongs on list " +
                 std::to_string(listOf(Super::getSize(n)));
    }
    return "";
  }

  // The list a free block of `usable` bytes is filed on: the largest class all of
  // whose requests it holds (the last one for a block bigger than every class).
  static int listOf(std::size_t usable) {
    const int c = SizeClass(usable);
    if (c >= NumClasses) return NumClasses - 1;
    return ClassMaxSize(c) > usable ? c - 1 : c;
  }

 protected:
  void file(void* block) {
    const std::size_t usable = Super::getSize(block);
    const int list = listOf(usable);
    lists_[list].pushFront(block);
    nonEmpty_ |= std::uint64_t{1} << list;
    bytes_ += usable;
  }

  void unlink(int list, void* block) {
    lists_[list].remove(block);
    if (lists_[list].empty()) nonEmpty_ &= ~(std::uint64_t{1} << list);
    bytes_ -= Super::getSize(block);
  }

  FreeBlockList lists_[NumClasses];
  std::uint64_t nonEmpty_ = 0;  // bit c: list c holds a block
  std::size_t bytes_ = 0;
  std::size_t mallocSteps_ = 0;
  std::size_t freeSteps_ = 0;
  std::size_t unlinkedForFree_ = 0;  // neighbours removed since the last free
};

}  // namespace kith::heap
