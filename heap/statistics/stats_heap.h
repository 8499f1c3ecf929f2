// StatsHeap: counts and times every malloc/free of the policy beneath it and
// summarises them as HeapStatistics (statistics.h, CLI.md's "heap" block). It is
// the outermost layer of every policy `makeHeap` builds, so one class measures
// them all the same way.
//
// It adds only malloc (plain and hinted), free (and freeAndGetSize), setMode and
// statistics; every other method of Super (getSize, setRelocator, checkInvariants,
// arenaBase, ...) stays visible through inheritance. Requirements on Super: getSize
// (SizedHeap), to count block bytes. Optional: `Outcome lastOutcome() const`
// (ReportsOutcome) fills `satisfied`; freeBytes() and largestFreeBlock() give
// `external_at_failure`; lastSteps() (CountsMallocSteps) and lastFreeSteps()
// (CountsFreeSteps), read after every malloc and free, fill the `steps` histograms
// (step_histogram.h); where the policy's outcomes are reported, LeftoverSource
// (leftover_source.h) splits the immediate ones into recycled and leftover, from
// marks only the counting modes keep.
//
// Latency: two reads of a CycleClock per operation (the TSC where it is invariant,
// ~9 ns a read here), binned in ticks in a LatencyHistogram, so memory stays
// constant however long the run; statistics() converts ticks to ns by the rate
// measured over the heap's lifetime. setMode (statistics_mode.h) chooses how much is
// kept: the clock reads only in countsAndTimes; in bytesInUse only bytes_in_use.
// All statistics live in this object, outside the arena.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <map>

#include "heap/statistics/cycle_clock.h"
#include "heap/statistics/latency_histogram.h"
#include "heap/statistics/leftover_source.h"
#include "heap/layer.h"
#include "heap/outcome.h"
#include "heap/statistics/statistics.h"
#include "heap/statistics/statistics_mode.h"
#include "heap/statistics/step_histogram.h"

namespace kith::heap {

template <class H>
concept ReportsFreeSpace = requires(H h) {
  { h.freeBytes() } -> std::convertible_to<std::size_t>;
  { h.largestFreeBlock() } -> std::convertible_to<std::size_t>;
};

// The steps of the last malloc / free, in the units the policy's bounds count.
template <class H>
concept CountsMallocSteps = requires(const H h) {
  { h.lastSteps() } -> std::convertible_to<std::size_t>;
};
template <class H>
concept CountsFreeSteps = requires(const H h) {
  { h.lastFreeSteps() } -> std::convertible_to<std::size_t>;
};

template <class Super>
class StatsHeap : public Super {
  static_assert(SizedHeap<Super>,
                "StatsHeap needs Super::getSize(void*) to count the bytes of each block");

 public:
  using Super::Super;

  void* malloc(std::size_t size) { return malloc(size, nullptr); }
  // The hinted entry point; a policy without hints gets malloc(size) (layer.h).
  void* malloc(std::size_t size, const void* near) {
    if (mode_ == StatisticsMode::none) return mallocNear(static_cast<Super&>(*this), size, near);
    if (mode_ == StatisticsMode::bytesInUse) {
      void* p = mallocNear(static_cast<Super&>(*this), size, near);
      if (p) stats_.bytes_in_use += Super::getSize(p);
      return p;
    }
    return sourced_ ? countedMalloc<true>(size, near) : countedMalloc<false>(size, near);
  }

  // free(nullptr) does nothing, as in C, and is not counted.
  void free(void* p) {
    if (!p) return;
    if (mode_ == StatisticsMode::none) {
      Super::free(p);
      return;
    }
    if (mode_ == StatisticsMode::bytesInUse) {
      stats_.bytes_in_use -= Super::getSize(p);
      Super::free(p);
      return;
    }
    if (sourced_) countedFree<true>(p);
    else countedFree<false>(p);
  }
  // free(p), counted the same, returning the block's bytes: the size the counting
  // reads anyway, so a caller that wants it (a collector's sweep) does not ask again.
  std::size_t freeAndGetSize(void* p) {
    if (!p) return 0;
    if (mode_ == StatisticsMode::none) {
      std::size_t block = Super::getSize(p);
      Super::free(p);
      return block;
    }
    if (mode_ == StatisticsMode::bytesInUse) {
      std::size_t block = Super::getSize(p);
      stats_.bytes_in_use -= block;
      Super::free(p);
      return block;
    }
    return sourced_ ? countedFree<true>(p) : countedFree<false>(p);
  }

  std::size_t bytesInUse() const { return stats_.bytes_in_use; }
  // Set before the first malloc: a mode chosen later would count only part of the blocks.
  void setMode(StatisticsMode mode) {
    mode_ = mode;
    // Only the counting modes read the leftover marks; without them nothing keeps them.
    if (mode < StatisticsMode::counts) dropSources();
  }
  StatisticsMode mode() const { return mode_; }
  // Where immediate blocks came from is not tracked (the source stays unknown), so the
  // counting modes pay no more than they did without it: the study's timed runs.
  bool tracksSources() const { return Leftovers::kKnown && !leftoversLost_; }
  void skipImmediateSources() {
    sourcesSkipped_ = true;
    dropSources();
  }

  HeapStatistics statistics() const {
    HeapStatistics s = stats_;  // the large block sizes are already in the map
    for (std::size_t size = 0; size < kSmallSizes; ++size)
      if (smallSizes_[size]) s.size_histogram[size] += smallSizes_[size];
    bool timed = allocTicks_.count() || freeTicks_.count();
    double nsPerTick = timed ? clock_.nsPerTick() : 1.0;
    s.alloc_ns = inNs(allocTicks_.summary(), nsPerTick);
    s.free_ns = inNs(freeTicks_.summary(), nsPerTick);
    s.op_timers = mode_ == StatisticsMode::countsAndTimes;
    if constexpr (CountsMallocSteps<Super>) s.malloc_steps = mallocSteps_.summary();
    if constexpr (CountsFreeSteps<Super>) s.free_steps = freeSteps_.summary();
    if constexpr (Leftovers::kKnown && ReportsOutcome<Super>) s.immediate_source_known = !leftoversLost_;
    s.immediate_source_skipped = sourcesSkipped_;
    s.internal_bytes =
        s.bytes_allocated > s.bytes_requested ? s.bytes_allocated - s.bytes_requested : 0;
    return s;
  }

 private:
  // Out of line, so that the registers the counting needs are saved only when it runs:
  // inlined, their saving and restoring would cost the cheap modes' path too.
  // Two copies of the counting path (sourced_ picks), so that one not tracking sources
  // (the study's timed runs) is the path as it was before they existed.
  template <bool kSources>
  [[gnu::noinline]] void* countedMalloc(std::size_t size, const void* near) {
    [[maybe_unused]] const std::size_t leftoverToken = kSources ? leftovers_.beforeMalloc(*this) : 0;
    bool timing = mode_ == StatisticsMode::countsAndTimes;
    std::uint64_t start = timing ? clock_.ticks() : 0;
    void* p = mallocNear(static_cast<Super&>(*this), size, near);
    if (timing) allocTicks_.record(since(start));
    if constexpr (CountsMallocSteps<Super>) mallocSteps_.record(Super::lastSteps());

    if constexpr (ReportsOutcome<Super>) {
      // A null result is a failure whatever the policy reports.
      const Outcome outcome = p ? Super::lastOutcome() : Outcome::failed;
      ++stats_.satisfied[static_cast<int>(outcome)];
      // Every block handed out clears its mark, whatever the outcome.
      if constexpr (kSources) {
        if (leftovers_.afterMalloc(*this, p, outcome, leftoverToken) && outcome == Outcome::immediate)
          ++stats_.immediate_leftover;
      }
    } else if (!p) {
      ++stats_.satisfied[static_cast<int>(Outcome::failed)];
    }
    if (!p) {
      if (stats_.failed_allocations++ == 0) stats_.external_at_failure = externalFragmentation();
      return nullptr;
    }
    std::size_t block = Super::getSize(p);
    ++stats_.allocations;
    stats_.bytes_requested += size;
    stats_.bytes_allocated += block;
    stats_.bytes_in_use += block;
    if (stats_.bytes_in_use > stats_.peak_bytes_in_use)
      stats_.peak_bytes_in_use = stats_.bytes_in_use;
    if (block < kSmallSizes) ++smallSizes_[block];
    else ++stats_.size_histogram[block];
    return p;
  }

  // Returns the block's bytes (for freeAndGetSize).
  template <bool kSources>
  [[gnu::noinline]] std::size_t countedFree(void* p) {
    std::size_t block = Super::getSize(p);
    if constexpr (kSources) leftovers_.beforeFree(*this, p);
    bool timing = mode_ == StatisticsMode::countsAndTimes;
    std::uint64_t start = timing ? clock_.ticks() : 0;
    Super::free(p);
    if (timing) freeTicks_.record(since(start));
    if constexpr (CountsFreeSteps<Super>) freeSteps_.record(Super::lastFreeSteps());
    ++stats_.frees;
    stats_.bytes_in_use -= block;
    return block;
  }

  // Block sizes below this are counted in a flat array (no map lookup per malloc).
  static constexpr std::size_t kSmallSizes = 1025;

  // A thread moved between cores could read a counter a little behind the first.
  std::uint64_t since(std::uint64_t start) const {
    std::uint64_t end = clock_.ticks();
    return end > start ? end - start : 0;
  }

  static LatencySummary inNs(LatencySummary s, double nsPerTick) {
    s.mean *= nsPerTick;
    s.p50 *= nsPerTick;
    s.p99 *= nsPerTick;
    s.max *= nsPerTick;
    return s;
  }

  double externalFragmentation() {
    if constexpr (ReportsFreeSpace<Super>) {
      auto free = static_cast<double>(Super::freeBytes());
      if (free == 0) return 0;
      return 1.0 - static_cast<double>(Super::largestFreeBlock()) / free;
    } else {
      return 0;
    }
  }

  HeapStatistics stats_;
  std::array<std::uint64_t, kSmallSizes> smallSizes_{};
  CycleClock clock_;
  LatencyHistogram allocTicks_, freeTicks_;  // in clock_ ticks
  StepHistogram mallocSteps_, freeSteps_;
  StatisticsMode mode_ = StatisticsMode::countsAndTimes;
  // tracksSources(), kept beside mode_ so that the paths test a byte they load anyway.
  bool sourced_ = Leftovers::kKnown;
  // Where immediate blocks came from (leftover_source.h), tracked from construction
  // (Super is built before this member).
  using Leftovers = LeftoverSource<Super>;
  Leftovers leftovers_{static_cast<Super&>(*this)};
  bool sourcesSkipped_ = false;  // skipImmediateSources: asked not to track them
  bool leftoversLost_ = false;  // a mode that does not count has let blocks out unmarked

  // Stops tracking where immediate blocks came from, for good: marks dropped once
  // cannot be trusted again.
  void dropSources() {
    if constexpr (Leftovers::kKnown) {
      leftoversLost_ = true;
      leftovers_.track(*this, false);
    }
    sourced_ = false;
  }
};

}  // namespace kith::heap
