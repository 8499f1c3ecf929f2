// Helpers shared by the buddy heap tests: a shadow of the live blocks that follows
// the defragmenter's moves through the relocation callback, an exhaustive driver
// for short operation sequences on a tiny heap, a random driver that checks
// the step bounds of every operation, and the runs of these and of the shared
// shadow model that the Knuth and estranged tests both make.
#pragma once

#include <gtest/gtest.h>

#include <algorithm>
#include <concepts>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <functional>
#include <iterator>
#include <map>
#include <string>
#include <vector>

#include "heap/buddy/buddy_block_table.h"
#include "heap/buddy/buddy_defragmenter.h"
#include "heap/outcome.h"
#include "heap/workload.h"
#include "tests/heap/policy_test_support.h"
#include "tests/heap/shadow_model.h"

namespace kith::heap::testing {

inline std::byte* bytesOf(void* p) { return static_cast<std::byte*>(p); }

// A block's offset from the base of h's arena.
template <class H>
std::size_t arenaOffset(const H& h, const void* p) {
  return static_cast<std::size_t>(static_cast<const std::byte*>(p) - h.arenaBase());
}

// A buddy heap H as the tests expect it, and P its registered policy: H under the
// defragmenter.
template <class H, class P>
concept BuddyHeapAndPolicy =
    SizedHeap<H> && ReportsOutcome<H> && std::same_as<P, BuddyDefragmenter<H>>;

// A heap whose every malloc and free is followed by checkInvariants(), as a test
// failure naming the operation. For the scripted tests.
template <class H>
class CheckedHeap : public H {
 public:
  using H::H;
  void* malloc(std::size_t size) {
    void* p = H::malloc(size);
    EXPECT_EQ(H::checkInvariants(), "") << "after malloc(" << size << ")";
    return p;
  }
  void free(void* ptr) {
    H::free(ptr);
    EXPECT_EQ(H::checkInvariants(), "") << "after free";
  }
};

// The test's own record of the live blocks: each block's size and the byte it was
// filled with. It checks overlap on insert. It is the relocation callback's
// context: a move must name a live block, and the block's bytes must already be at
// the new address. Every move is recorded.
class BuddyShadow {
 public:
  struct Block {
    std::size_t size;  // the whole block (getSize): the shadow fills all of it
    std::uint8_t fill;
  };
  struct Move {
    std::byte* from;
    std::byte* to;
    std::size_t size;
  };

  static void relocate(void* context, void* from, void* to, std::size_t size) {
    static_cast<BuddyShadow*>(context)->onMove(bytesOf(from), bytesOf(to), size);
  }

  // Records a new block and fills it; "" or what is wrong.
  std::string add(void* ptr, std::size_t size) {
    std::byte* p = bytesOf(ptr);
    if (std::string overlap = overlaps(p, size); !overlap.empty()) return overlap;
    const auto fill = static_cast<std::uint8_t>(nextFill_++ * 37 + 1);
    std::memset(p, fill, size);
    live_[p] = {size, fill};
    return {};
  }
  // Checks the block's contents and forgets it; "" or what is wrong.
  std::string remove(void* ptr) {
    auto it = live_.find(bytesOf(ptr));
    if (it == live_.end()) return "freeing a block the shadow does not know";
    std::string bad = intact(it->first, it->second) ? "" : "contents changed before free";
    live_.erase(it);
    return bad;
  }
  std::string verifyAll() const {
    for (const auto& [p, b] : live_)
      if (!intact(p, b)) return "contents of a live " + std::to_string(b.size) + "-byte block changed";
    return error_;
  }

  const std::map<std::byte*, Block>& live() const { return live_; }
  std::size_t liveBytes() const {
    std::size_t n = 0;
    for (const auto& [p, b] : live_) n += b.size;
    return n;
  }
  const std::vector<Move>& moves() const { return moves_; }
  const std::string& error() const { return error_; }
  // The i-th live block in address order.
  std::byte* nth(std::size_t i) const { return std::next(live_.begin(), static_cast<long>(i))->first; }

 private:
  void onMove(std::byte* from, std::byte* to, std::size_t size) {
    moves_.push_back({from, to, size});
    auto it = live_.find(from);
    if (it == live_.end()) return note("moved a block that is not live");
    Block b = it->second;
    if (b.size != size) return note("moved " + std::to_string(size) + " bytes of a " +
                                    std::to_string(b.size) + "-byte block");
    if (!intact(to, b)) return note("the bytes were not copied before the callback");
    live_.erase(it);
    // The destination was a free block: no live block may be there.
    if (std::string overlap = overlaps(to, size); !overlap.empty())
      return note("moved onto a live block");
    live_[to] = b;
  }
  void note(const std::string& what) {
    if (error_.empty()) error_ = what;
  }
  static bool intact(const std::byte* p, const Block& b) {
    return p[0] == std::byte{b.fill} && std::memcmp(p, p + 1, b.size - 1) == 0;
  }
  std::string overlaps(std::byte* p, std::size_t size) const {
    auto next = live_.lower_bound(p);
    if (next != live_.end() && next->first < p + size) return "new block overlaps a live block";
    if (next != live_.begin()) {
      auto prev = std::prev(next);
      if (prev->first + prev->second.size > p) return "new block overlaps a live block";
    }
    return {};
  }

  std::map<std::byte*, Block> live_;
  std::vector<Move> moves_;
  std::string error_;
  unsigned nextFill_ = 0;
};

// One operation of an exhaustive sequence, as the check sees it.
struct SequenceOp {
  bool wasMalloc;
  std::size_t size;              // the request (malloc only)
  void* result;                  // what malloc returned (malloc only)
  std::size_t freeBytesBefore;   // heap.freeBytes() before the operation
  std::size_t movesBefore;       // shadow.moves().size() before the operation
};

// Runs every sequence of `depth` operations on a fresh heap of `arenaBytes`. An
// operation is malloc(s) for each s in `sizes`, or free of the i-th live block (in
// address order). setup(heap, shadow) runs on each fresh heap (e.g. to install the
// shadow as relocator). After every operation the driver checks the heap's
// invariants and the shadow, then calls check(heap, shadow, op), which returns ""
// or a fault. (Each prefix is itself a sequence the driver visits, so a replay
// checks only its last operation.) Returns the number of sequences run. At the first fault it stops and
// `fault` describes the sequence.
template <class H, class Setup, class Check>
std::size_t forEverySequence(std::size_t arenaBytes, const std::vector<std::size_t>& sizes,
                             std::size_t depth, Setup setup, Check check, std::string& fault) {
  std::vector<std::size_t> ops;  // the current sequence; replayed from a fresh heap
  std::size_t sequences = 0;
  std::function<void()> extend = [&] {
    if (!fault.empty()) return;
    H heap(arenaBytes);
    BuddyShadow shadow;
    setup(heap, shadow);
    std::string trace;
    for (std::size_t i = 0; i < ops.size(); ++i) {
      const std::size_t op = ops[i];
      std::string step;
      SequenceOp info{op < sizes.size(), 0, nullptr, heap.freeBytes(), shadow.moves().size()};
      if (info.wasMalloc) {
        info.size = sizes[op];
        info.result = heap.malloc(info.size);
        trace += "malloc(" + std::to_string(info.size) + ") ";
        step = shadow.error();
        if (step.empty() && info.result) step = shadow.add(info.result, heap.getSize(info.result));
      } else {
        void* p = shadow.nth(op - sizes.size());
        trace += "free(#" + std::to_string(op - sizes.size()) + ") ";
        step = shadow.remove(p);
        heap.free(p);
      }
      // The prefix was checked when it was the whole sequence: check the last step only.
      const bool last = i + 1 == ops.size();
      if (step.empty() && last) step = heap.checkInvariants();
      if (step.empty() && last) step = shadow.verifyAll();
      if (step.empty() && last) step = check(heap, shadow, info);
      if (!step.empty()) {
        fault = "after " + trace + ": " + step + "\n  layout: " + heap.layout();
        return;
      }
    }
    if (ops.size() == depth) {
      ++sequences;
      return;
    }
    const std::size_t choices = sizes.size() + shadow.live().size();
    for (std::size_t c = 0; c < choices && fault.empty(); ++c) {
      ops.push_back(c);
      extend();
      ops.pop_back();
    }
  };
  extend();
  return sequences;
}

template <class H>
void noSetup(H&, BuddyShadow&) {}

// forEverySequence of seven operations, each malloc(16, 32, 64 or 128) or a free, on
// a 128-byte H. After each: freeBytes() matches the shadow's live blocks, then
// check(h, shadow, op) returns "" or a fault. Expects no fault in over 10'000 sequences.
template <class H, class Check>
void expectEverySequenceOfSevenOn128Bytes(Check check) {
  std::string fault;
  const std::size_t sequences = forEverySequence<H>(
      128, {16, 32, 64, 128}, 7, noSetup<H>,
      [&](H& h, const BuddyShadow& shadow, const SequenceOp& op) -> std::string {
        if (h.freeBytes() != 128 - shadow.liveBytes()) return "freeBytes() disagrees with the live blocks";
        return check(h, shadow, op);
      },
      fault);
  EXPECT_EQ(fault, "");
  EXPECT_GT(sequences, 10'000u);
}

// Random malloc/free on `heap` that checks, for every call, lastSteps() against
// mallocBound(level) and lastFreeSteps() against freeBound. onMalloc(size, p) can
// add checks. Uses the shadow to keep contents honest and to follow moves when the
// heap has a relocator.
struct RandomRunOptions {
  std::uint64_t seed = 1;
  std::size_t operations = 100'000;
  SizeMix mix = SizeMix::jvmLike;
  std::size_t maxLive = 2000;
  std::size_t checkEvery = 0;  // checkInvariants() every N operations; 0 never
  std::function<void()> beforeMalloc = {};  // called just before each malloc, if set
};

struct RandomRunResult {
  std::size_t mallocs = 0, failures = 0, frees = 0;
  std::size_t worstSteps = 0, worstFreeSteps = 0;
  std::string error;
};

template <class H, class MallocBound, class OnMalloc>
RandomRunResult runBoundedRandom(H& heap, BuddyShadow& shadow, const RandomRunOptions& o,
                                 MallocBound mallocBound, std::size_t freeBound, OnMalloc onMalloc) {
  RandomRunResult r;
  SeededRandom rng(o.seed);
  bool growing = true;
  std::size_t target = rng.between(1, o.maxLive);
  auto fail = [&](std::size_t op, const std::string& what) {
    r.error = "seed " + std::to_string(o.seed) + ", op " + std::to_string(op) + ": " + what;
  };
  auto freeRandom = [&](std::size_t op) {
    void* p = shadow.nth(rng.below(shadow.live().size()));
    if (std::string bad = shadow.remove(p); !bad.empty()) return fail(op, bad), false;
    heap.free(p);
    ++r.frees;
    r.worstFreeSteps = std::max(r.worstFreeSteps, heap.lastFreeSteps());
    if (heap.lastFreeSteps() > freeBound)
      return fail(op, "free took " + std::to_string(heap.lastFreeSteps()) + " steps"), false;
    return true;
  };
  for (std::size_t op = 0; op < o.operations && r.error.empty(); ++op) {
    const std::size_t live = shadow.live().size();
    if (growing && live >= target) {
      growing = false;
      target = rng.below(live + 1);
    } else if (!growing && live <= target) {
      growing = true;
      target = rng.between(live + 1, o.maxLive);
    }
    if (live == 0 || rng.chance(growing ? 75 : 25)) {
      const std::size_t size = drawSize(rng, o.mix, op);
      if (o.beforeMalloc) o.beforeMalloc();
      void* p = heap.malloc(size);
      const std::size_t steps = heap.lastSteps();
      r.worstSteps = std::max(r.worstSteps, steps);
      const std::size_t bound = mallocBound(BuddyBlockTable::levelFor(size));
      if (steps > bound) {
        fail(op, "malloc(" + std::to_string(size) + ") took " + std::to_string(steps) +
                     " steps, bound " + std::to_string(bound));
        break;
      }
      if (std::string bad = shadow.error(); !bad.empty()) {
        fail(op, bad);
        break;
      }
      if (std::string bad = onMalloc(size, p); !bad.empty()) {
        fail(op, bad);
        break;
      }
      if (!p) {
        ++r.failures;
        if (!shadow.live().empty()) freeRandom(op);
        continue;
      }
      ++r.mallocs;
      if (std::string bad = shadow.add(p, heap.getSize(p)); !bad.empty()) fail(op, bad);
    } else {
      freeRandom(op);
    }
    if (o.checkEvery && op % o.checkEvery == 0 && r.error.empty()) {
      if (std::string bad = heap.checkInvariants(); !bad.empty()) fail(op, "invariant: " + bad);
      else if (std::string bad2 = shadow.verifyAll(); !bad2.empty()) fail(op, bad2);
    }
  }
  while (r.error.empty() && !shadow.live().empty()) freeRandom(o.operations);
  if (r.error.empty())
    if (std::string bad = heap.checkInvariants(); !bad.empty()) fail(o.operations, "at the end: " + bad);
  return r;
}

// runBoundedRandom on h with H's own step bounds at h.topLevel(), once for each
// size mix (200'000 operations, seed `seed`). Expects no error, over 50'000
// mallocs, and worst steps within worstMalloc and worstFree.
template <class H>
void expectWithinStepBounds(H& h, std::uint64_t seed, std::size_t worstMalloc, std::size_t worstFree) {
  const unsigned top = h.topLevel();
  BuddyShadow shadow;
  for (auto mix : {SizeMix::jvmLike, SizeMix::fragmenting}) {
    auto r = runBoundedRandom(
        h, shadow, {.seed = seed, .operations = 200'000, .mix = mix, .maxLive = 3000, .checkEvery = 20'000},
        [&](unsigned k) { return H::mallocStepBound(k, top); }, H::freeStepBound(top),
        [&](std::size_t, void*) { return std::string(); });
    EXPECT_EQ(r.error, "");
    EXPECT_LE(r.worstSteps, worstMalloc);
    EXPECT_LE(r.worstFreeSteps, worstFree);
    EXPECT_GT(r.mallocs, 50'000u);
  }
}

// A million operations of the shared shadow model on an 8 MiB policy P, its
// invariants checked every 1000. Expects no error and every block freed.
template <class P>
void expectMillionShadowOperations() {
  P h(8u << 20);
  auto r = runCheckedShadowModel(h, {.seed = 20261121, .operations = 1'000'000, .checkEvery = 1000});
  EXPECT_EQ(r.error, "");
  EXPECT_EQ(r.mallocs, r.frees);
  EXPECT_GT(r.mallocs, 400'000u);
  EXPECT_EQ(h.freeBytes(), 8u << 20);
}

// The shared shadow model's fragmenting mix on h (200'000 operations, at most 600
// live blocks), invariants checked every 500.
template <class H>
ShadowRunResult runFragmentingShadowModel(H& h) {
  return runCheckedShadowModel(
      h, {.seed = 99, .operations = 200'000, .mix = SizeMix::fragmenting, .checkEvery = 500, .maxLive = 600});
}

}  // namespace kith::heap::testing
