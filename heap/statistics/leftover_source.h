// LeftoverSource<H>: how StatsHeap learns whether the block a malloc handed out was a
// leftover (no free had returned it: a split's rest, or never-used memory), so that
// `immediate` splits into recycled and leftover (statistics.h, immediate_leftover).
// One interface over three ways, chosen by what the policy offers:
//  - the policy keeps the marks itself (TracksLeftovers: the buddy heaps' block table,
//    Kingsley's bins, which hold only freed blocks): PolicyLeftovers forwards to it;
//  - the policy's blocks show their neighbours (ShowsNeighbours: CoalesceHeap's
//    policies, TLSF): SplitLeftovers keeps the marks in the statistics layer;
//  - neither: NoLeftovers, and the statistics say the source is not known.
// The calls, all in the counting modes only: beforeMalloc (a token for afterMalloc),
// afterMalloc (whether the block was a leftover), beforeFree, and track (on, or off
// for good: marks not kept while off cannot be trusted again; StatsHeap decides).
#pragma once

#include <concepts>
#include <cstddef>
#include <type_traits>

#include "heap/outcome.h"
#include "heap/statistics/split_leftovers.h"

namespace kith::heap {

// Knows which free blocks no free has returned (BuddyBlockTable's leftovers): asked
// after every malloc, it also clears the mark of the block handed out.
template <class H>
concept TracksLeftovers = requires(H h, void* p, bool on) {
  { h.tookLeftover(p) } -> std::same_as<bool>;
  h.trackLeftovers(on);
};

template <class H>
class PolicyLeftovers {
 public:
  static constexpr bool kKnown = true;
  explicit PolicyLeftovers(H&) {}
  void track(H& h, bool on) { h.trackLeftovers(on); }
  std::size_t beforeMalloc(const H&) const { return 0; }
  bool afterMalloc(H& h, void* p, Outcome, std::size_t) { return p && h.tookLeftover(p); }
  void beforeFree(const H&, void*) {}
};

template <class H>
class NoLeftovers {
 public:
  static constexpr bool kKnown = false;
  explicit NoLeftovers(H&) {}
  void track(H&, bool) {}
  std::size_t beforeMalloc(const H&) const { return 0; }
  bool afterMalloc(H&, void*, Outcome, std::size_t) { return false; }
  void beforeFree(const H&, void*) {}
};

template <class H>
using LeftoverSource =
    std::conditional_t<TracksLeftovers<H>, PolicyLeftovers<H>,
                       std::conditional_t<ShowsNeighbours<H>, SplitLeftovers<H>, NoLeftovers<H>>>;

}  // namespace kith::heap
