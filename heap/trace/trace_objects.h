// TraceObjects: the consistency rules every trace reader applies, whatever the
// encoding, and a dense number for each object so that a replay can keep its
// blocks in a flat table.
//
// The rules (the same for text and binary traces):
//   - times strictly increase;
//   - allocation ids strictly increase (recorders number objects 0, 1, 2, ...;
//     gaps are allowed);
//   - a free, a resize or a move names an object that is live: allocated and not
//     yet freed (a resize or a move leaves it live, under the same id).
// Each allocated object gets an index: 0 for the first allocation, 1 for the
// next, ... — equal to its id in every trace Kith records. Ids with gaps are
// mapped through a sorted list of runs of consecutive ids, so a lookup is O(1)
// for a gapless trace and O(log runs) otherwise. Liveness is one bit per object.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "heap/trace/trace_event.h"

namespace kith::heap {

class TraceObjects {
 public:
  // Checks `e` against every event before it. Fine: sets `index` (alloc, free,
  // resize, move: the object's index; failed: unchanged) and returns true. Otherwise returns
  // false and `error` says what is wrong (without a position; the reader adds
  // "line N: " or "offset N: ").
  [[gnu::always_inline]] bool accept(const TraceEvent& e, std::uint64_t& index, std::string& error) {
    if (events_ > 0 && e.time <= lastTime_) return timeError(e, error);
    switch (e.kind) {
      case TraceEventKind::alloc:
        if (allocations_ > 0 && e.id <= lastId_) return idError(e, error);
        if (allocations_ == 0 || e.id != lastId_ + 1) runs_.push_back({e.id, allocations_});
        index = allocations_++;
        lastId_ = e.id;
        if ((index & 63) == 0) live_.push_back(0);
        live_[index >> 6] |= std::uint64_t{1} << (index & 63);
        ++liveCount_;
        break;
      case TraceEventKind::free: {
        std::uint64_t i;
        if (!find(e.id, i) || !(live_[i >> 6] >> (i & 63) & 1)) return freeError(e, error);
        live_[i >> 6] &= ~(std::uint64_t{1} << (i & 63));
        --liveCount_;
        index = i;
        break;
      }
      case TraceEventKind::resize:
      case TraceEventKind::move: {
        std::uint64_t i;
        if (!find(e.id, i) || !(live_[i >> 6] >> (i & 63) & 1)) return freeError(e, error);
        index = i;
        break;
      }
      case TraceEventKind::failed:
        break;
    }
    lastTime_ = e.time;
    ++events_;
    return true;
  }

  std::uint64_t events() const { return events_; }
  std::uint64_t objectCount() const { return allocations_; }  // indexes 0 .. objectCount()-1
  std::uint64_t liveCount() const { return liveCount_; }

 private:
  struct Run {
    std::uint64_t firstId, firstIndex;  // ids firstId, firstId+1, ... have indexes firstIndex, ...
  };

  // The index of object `id`, if it was ever allocated. The newest run (every id of
  // a gapless trace) is checked inline; older runs are searched out of line.
  bool find(std::uint64_t id, std::uint64_t& index) const {
    if (runs_.empty()) return false;
    const Run* run = &runs_.back();
    if (id < run->firstId && !(run = olderRunHolding(id))) return false;
    std::uint64_t end = run == &runs_.back() ? allocations_ : (run + 1)->firstIndex;
    if (id - run->firstId >= end - run->firstIndex) return false;
    index = run->firstIndex + (id - run->firstId);
    return true;
  }

  // The last run starting at or below `id`, or nullptr if `id` is below them all.
  const Run* olderRunHolding(std::uint64_t id) const;

  [[gnu::cold]] bool timeError(const TraceEvent& e, std::string& error) const;
  [[gnu::cold]] bool idError(const TraceEvent& e, std::string& error) const;
  [[gnu::cold]] bool freeError(const TraceEvent& e, std::string& error) const;

  std::uint64_t events_ = 0, allocations_ = 0, liveCount_ = 0;
  std::uint64_t lastTime_ = 0, lastId_ = 0;
  std::vector<Run> runs_;
  std::vector<std::uint64_t> live_;  // bit i: object index i is live
};

}  // namespace kith::heap
