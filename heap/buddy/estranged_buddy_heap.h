// EstrangedBuddyHeap: the buddy system with delayed recombination (the "estranged
// buddy system" of Donahue et al., after Kaufman's recombination-delaying buddy
// system). It is the default policy. free never joins a block with its buddy.
// Objects that die young are then served again straight from their own size's
// lists: Knuth would split and rejoin on every allocate/free pair (the oscillation
// of the paper's Figures 2 and 4).
//
// Two free lists per size (BuddyBlockTable lists A and B):
//   buddy-busy (A): free blocks whose buddy is busy. A split buddy counts as busy,
//                   and so does a maximal block, which has no buddy.
//   buddy-free (B): one block of each pair of free buddies. The other block of the
//                   pair is "implied": free and on no list.
// Invariant (checkInvariants): every free block is on the list that matches its
// buddy's state now, and exactly one block of each free pair is listed.
//
// A request of level k tries, in order:
//   (1) buddy-busy at k; (2) buddy-free at k (its partner becomes buddy-busy);
//   (3) glue a free pair from buddy-free at k-1;
//   (4) search upward (buddy-busy, then buddy-free, at each level) and bisect;
//   (5) glue from the buddy-free lists, lowest level first, up to k. At each level
//       j < k it glues at most one pair: the head of buddy-free j. A glued block whose
//       buddy is free forms a new pair at the head of buddy-free j+1, so a chain of
//       pairs reaches level k in k glues. Step 5 is bounded because it never glues
//       more than one pair per level. It therefore cannot always gather a large free
//       region that is scattered over many small pairs. BuddyDefragmenter can: a
//       region made only of free pairs has no live bytes, and it takes it whole
//       without moving anything.
// Steps 1-2 are "immediate", step 3 and 5 "glue", step 4 "split".
//
// Bounds, with L = topLevel() <= log2(M/16), for a request of level k (lastSteps()):
//   malloc <= 2 + [k>0]*2 + 3(L - k) + 2k <= 3L + 4
//            (two list heads per level searched, L - k bisections, k glue inspections
//             + k glues)
//   free   <= 2: one buddy check, at most one list change (lastFreeSteps()).
//
// Metadata: the side table and list display of BuddyBlockTable, outside the arena.
// BuddyHeapCore holds the table and counters and the accessors that read them.
#pragma once

#include <algorithm>
#include <cassert>
#include <cstddef>
#include <string>

#include "heap/buddy/buddy_block_table.h"
#include "heap/buddy/buddy_heap_core.h"
#include "heap/outcome.h"

namespace kith::heap {

// lastSteps(): list-head inspections + bisections + glues of the last malloc.
// lastFreeSteps(): buddy check + list changes of the last free.
template <class Super>
class EstrangedBuddyHeap : public BuddyHeapCore<Super> {
  using Core = BuddyHeapCore<Super>;
  using Core::freeSteps_;
  using Core::outcome_;
  using Core::steps_;
  using Core::table_;
  static constexpr BuddyState kBuddyBusy = BuddyState::listedA;
  static constexpr BuddyState kBuddyFree = BuddyState::listedB;
  static constexpr std::size_t kNone = BuddyBlockTable::kNone;

 public:
  using Core::Core;

  // Step (1) inline; the rest out of line, so that the common case saves no registers.
  void* malloc(std::size_t size) {
    const unsigned k = BuddyBlockTable::listLevelFor(size);
    if (void* block = table_.popFreeBlock(kBuddyBusy, k)) return Core::handImmediate(block, k);  // (1)
    if (size == 0) [[unlikely]] return malloc(1);  // the level of 1 byte, which listLevelFor(0) misses
    return mallocPastBuddyBusy(k);
  }

  // A block whose buddy is busy goes on buddy-busy inline; forming a free pair out
  // of line, so that the common case saves no registers.
  void free(void* ptr) {
    if (!ptr) return;
    unsigned level;
    const std::size_t off = Core::startFree(ptr, level);
    if (buddyLooksFree(off, level)) return freePair(off, level);
    table_.addFree(off, level, kBuddyBusy);
    table_.removeLive(off, level);
  }

  // The statistics layer's call after a malloc (BuddyHeapCore::noteHandedOut): step (4)
  // records the level it bisected from (its steps count list heads too, so they cannot
  // say); malloc pays one store for it, the level is read here, once.
  bool tookLeftover(void* ptr) {
    const std::size_t off = table_.offsetOf(ptr);
    const unsigned level = table_.levelAt(off);
    return Core::noteHandedOut(off, level, outcome_ == Outcome::split ? splitFrom_ : level);
  }

  std::string checkInvariants() const {
    return Core::checkFreeBlocks([&](std::size_t off, unsigned level, BuddyState s) -> std::string {
      const std::size_t buddy = BuddyBlockTable::buddyOf(off, level);
      if (table_.isRoot(off, level) || !table_.isFreeBlock(buddy, level)) {
        if (s != kBuddyBusy) return table_.describe(off) + ": its buddy is busy, so it belongs on buddy-busy";
      } else if (!((s == kBuddyFree && table_.stateAt(buddy) == BuddyState::implied) ||
                   (s == BuddyState::implied && table_.stateAt(buddy) == kBuddyFree))) {
        return table_.describe(off) + " and its free buddy " + table_.describe(buddy) +
               ": exactly one of a free pair must be on buddy-free";
      }
      return {};
    });
  }

  // The worst case of lastSteps() for a request of level k when the largest maximal
  // block has level `top`, and of lastFreeSteps().
  static constexpr std::size_t mallocStepBound(unsigned k, unsigned top) {
    return k > top ? 0 : 2 + (k > 0 ? 2 : 0) + 3 * (top - k) + 2 * k;
  }
  static constexpr std::size_t freeStepBound(unsigned) { return 2; }

 private:
  // Step (2) of a malloc of level k whose buddy-busy list was empty: a block off
  // buddy-free k. Steps (3) to (5) further out of line.
  [[gnu::noinline]] void* mallocPastBuddyBusy(unsigned k) {
    Core::startSearch();
    if (k > table_.topLevel()) return nullptr;
    steps_ = 2;  // (1): the head of buddy-busy k, empty; (2): the head of buddy-free k
    if (void* block = table_.popFreeBlock(kBuddyFree, k)) {
      const std::size_t off = table_.offsetOf(block);
      table_.restate(BuddyBlockTable::buddyOf(off, k), k, BuddyState::implied, kBuddyBusy);
      outcome_ = Outcome::immediate;
      return Core::hand(off, k);
    }
    return mallocPastOwnLists(k);
  }

  // Steps (3) to (5) of a malloc of level k whose own two lists were empty.
  [[gnu::noinline]] void* mallocPastOwnLists(unsigned k) {
    // (3): two free half-size buddies.
    if (std::size_t off = glueFromList(k, steps_); off != kNone) {
      outcome_ = Outcome::glue;
      return Core::hand(off, k);
    }
    // (4): the usual upward search and bisection.
    for (unsigned m = k + 1; m <= table_.topLevel(); ++m) {
      const std::size_t off = takeListed(m, steps_);
      if (off == kNone) continue;
      // The upper halves' buddies are busy (split), and buddy-busy k to m - 1 were
      // all found empty: each upper half starts its list.
      for (unsigned level = m; level > k;) {
        --level;
        ++steps_;
        table_.addFreeOnEmpty(off + BuddyBlockTable::blockBytes(level), level, kBuddyBusy);
      }
      outcome_ = Outcome::split;
      splitFrom_ = m;
      return Core::hand(off, k);
    }
    // (5): glue level by level from the bottom, at most one pair per level.
    for (unsigned j = 0; j < k; ++j) {
      ++steps_;
      if (table_.listEmpty(kBuddyFree, j)) continue;
      const std::size_t off = gluePair(j, steps_);
      if (j + 1 == k) {
        outcome_ = Outcome::glue;
        return Core::hand(off, k);
      }
      classifyFree(off, j + 1);
    }
    return Core::searchFailed(k);
  }

  // Steps (1) and (2) at `level`: a block off buddy-busy, else off buddy-free (its
  // partner, no longer half of a free pair, moves to buddy-busy). The block leaves
  // the free accounting; the caller rewrites its table byte.
  std::size_t takeListed(unsigned level, std::size_t& steps) {
    ++steps;
    if (std::size_t off = table_.popFree(kBuddyBusy, level); off != kNone) return off;
    ++steps;
    return takeBuddyFree(level);
  }
  // Step (2) alone, not counted.
  std::size_t takeBuddyFree(unsigned level) {
    const std::size_t off = table_.popFree(kBuddyFree, level);
    if (off != kNone)
      table_.restate(BuddyBlockTable::buddyOf(off, level), level, BuddyState::implied, kBuddyBusy);
    return off;
  }

  // Step (3): a block of `level` glued from a pair on buddy-free at level - 1.
  std::size_t glueFromList(unsigned level, std::size_t& steps) {
    if (level == 0) return kNone;
    ++steps;
    if (table_.listEmpty(kBuddyFree, level - 1)) return kNone;
    return gluePair(level - 1, steps);
  }

  // Joins the pair at the head of buddy-free `level` (listed block and implied
  // partner) into one block of level + 1. Its offset is returned, out of the free
  // accounting, for the caller to hand out or classify.
  std::size_t gluePair(unsigned level, std::size_t& steps) {
    ++steps;
    const std::size_t off = table_.popFree(kBuddyFree, level);
    const std::size_t partner = BuddyBlockTable::buddyOf(off, level);
    assert(table_.stateAt(partner) == BuddyState::implied);
    table_.removeFree(partner, level, BuddyState::implied);
    table_.clear(std::max(off, partner));
    return std::min(off, partner);
  }

  // Puts a block that has just become free at `off` on the list its buddy's state
  // calls for. If the buddy is free (it was on buddy-busy, since this block was
  // not free), the two form a pair: this block goes on buddy-free and the buddy
  // becomes implied. Returns whether the buddy changed list. (free() does the same
  // with the pair out of line.)
  bool classifyFree(std::size_t off, unsigned level) {
    if (buddyLooksFree(off, level)) {
      pair(off, level);
      return true;
    }
    table_.addFree(off, level, kBuddyBusy);
    return false;
  }
  // Whether the buddy of the block (off, level) is free: a free buddy can only be on
  // buddy-busy, so one byte compare asks (a root's buddy never reads as free).
  bool buddyLooksFree(std::size_t off, unsigned level) const {
    assert(table_.isRoot(off, level) || !table_.isFreeBlock(BuddyBlockTable::buddyOf(off, level), level) ||
           table_.stateAt(BuddyBlockTable::buddyOf(off, level)) == kBuddyBusy);
    return table_.buddyIsBlock(off, level, kBuddyBusy);
  }
  // The block (off, level) goes on buddy-free and its free buddy becomes implied.
  void pair(std::size_t off, unsigned level) {
    table_.restate(BuddyBlockTable::buddyOf(off, level), level, kBuddyBusy, BuddyState::implied);
    table_.addFree(off, level, kBuddyFree);
  }
  [[gnu::noinline]] void freePair(std::size_t off, unsigned level) {
    table_.removeLive(off, level);
    pair(off, level);
    ++freeSteps_;  // the buddy changed list
  }

  unsigned splitFrom_ = 0;  // the level step (4) of the last split malloc bisected from
};

}  // namespace kith::heap
