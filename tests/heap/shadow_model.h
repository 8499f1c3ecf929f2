// The randomized differential test every policy runs: random malloc/free against
// a shadow model of the live blocks. The shadow checks what any correct
// allocator must keep true — no two live blocks overlap, each lies inside the
// arena, each is 16-byte aligned, each keeps its contents until it is freed —
// and calls the policy's own invariant checker as it goes.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <functional>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "heap/layer.h"
#include "heap/workload.h"

namespace kith::heap::testing {

using heap::SeededRandom;
using heap::SizeMix;

struct ShadowRunOptions {
  std::uint64_t seed = 1;
  std::size_t operations = 1'000'000;  // malloc and free calls in total
  SizeMix mix = SizeMix::jvmLike;
  std::size_t checkEvery = 1;          // invariants() every N operations; 0 never
  std::size_t maxLive = 4000;          // live-block count the phases swing up to
};

struct ShadowRunResult {
  std::size_t mallocs = 0, frees = 0, failures = 0;
  std::string error;  // "" when every check held
};

using heap::drawSize;

template <class H>
ShadowRunResult runShadowModel(H& heap, const ShadowRunOptions& options,
                               std::function<std::string()> invariants = {}) {
  struct Live {
    std::byte* ptr;
    std::size_t size;
    std::uint8_t fill;
  };
  ShadowRunResult result;
  SeededRandom rng(options.seed);
  std::vector<Live> live;                       // for picking a random victim
  std::map<std::uintptr_t, std::uintptr_t> spans;  // start -> end, for overlap checks
  std::ostringstream why;
  auto fail = [&](std::size_t op, const std::string& what) {
    why << "seed " << options.seed << ", operation " << op << ": " << what;
    result.error = why.str();
  };
  auto intact = [](const Live& b) {
    // All bytes equal the fill byte iff the first does and the block equals itself shifted by one.
    return b.size == 0 ||
           (b.ptr[0] == std::byte{b.fill} && std::memcmp(b.ptr, b.ptr + 1, b.size - 1) == 0);
  };
  auto freeOne = [&](std::size_t op, std::size_t index) -> bool {
    Live b = live[index];
    if (!intact(b)) {
      fail(op, "contents of a " + std::to_string(b.size) + "-byte block changed before it was freed");
      return false;
    }
    spans.erase(reinterpret_cast<std::uintptr_t>(b.ptr));
    live[index] = live.back();
    live.pop_back();
    heap.free(b.ptr);
    ++result.frees;
    return true;
  };

  bool growing = true;
  std::size_t target = rng.between(1, options.maxLive);
  for (std::size_t op = 0; op < options.operations; ++op) {
    // Phases: grow to a random live count, then shrink to a random lower one —
    // bursts of allocation and of freeing, like a program between collections.
    if (growing && live.size() >= target) {
      growing = false;
      target = rng.below(live.size() + 1);
    } else if (!growing && live.size() <= target) {
      growing = true;
      target = rng.between(live.size() + 1, options.maxLive);
    }
    bool doMalloc = live.empty() || rng.chance(growing ? 75 : 25);
    if (doMalloc) {
      std::size_t size = drawSize(rng, options.mix, op);
      auto* p = static_cast<std::byte*>(heap.malloc(size));
      if (!p) {
        ++result.failures;
        if (!live.empty() && !freeOne(op, rng.below(live.size()))) return result;
        continue;
      }
      ++result.mallocs;
      auto start = reinterpret_cast<std::uintptr_t>(p);
      if (!isAligned(p)) return fail(op, "block not 16-byte aligned"), result;
      if constexpr (requires { heap.arenaBase(); heap.arenaSize(); }) {
        auto base = reinterpret_cast<std::uintptr_t>(heap.arenaBase());
        if (base != 0 && (start < base || start + size > base + heap.arenaSize()))
          return fail(op, "block outside the arena"), result;
      }
      if constexpr (SizedHeap<H>) {
        if (heap.getSize(p) < size)
          return fail(op, "getSize " + std::to_string(heap.getSize(p)) + " < request " +
                              std::to_string(size)),
                 result;
      }
      auto next = spans.lower_bound(start);
      if (next != spans.end() && next->first < start + size)
        return fail(op, "new block overlaps a live block"), result;
      if (next != spans.begin() && std::prev(next)->second > start)
        return fail(op, "new block overlaps a live block"), result;
      spans.emplace(start, start + size);
      auto fill = static_cast<std::uint8_t>(rng.next() | 1);
      std::memset(p, fill, size);
      live.push_back({p, size, fill});
    } else if (!freeOne(op, rng.below(live.size()))) {
      return result;
    }
    if (invariants && options.checkEvery && op % options.checkEvery == 0) {
      std::string broken = invariants();
      if (!broken.empty()) return fail(op, "invariant broken: " + broken), result;
    }
  }
  while (!live.empty())
    if (!freeOne(options.operations, live.size() - 1)) return result;
  if (invariants) {
    std::string broken = invariants();
    if (!broken.empty()) fail(options.operations, "invariant broken after freeing all: " + broken);
  }
  return result;
}

}  // namespace kith::heap::testing
