// GcTimeWindow: how much of the last stretch of the thread's CPU time the
// collector's pauses took — what the continuous collector's governor reads before a
// slice, so that no window of kLength holds more than a set share of GC time (the
// minimum mutator utilization at that window, MMU: Cheng and Blelloch, PLDI 2001).
// CPU time, not wall time (thread_cpu_clock.h): a host stall inside a slice made it
// look longer and the governor defer the next ones, a stall between slices looked
// like mutator time; either way the window was the host's, not the program's.
//
// The last slice's length alone cannot bound it: when slices grow (a sweep's cheap
// slices give way to marking's dearer ones) a rule "the mutator runs 1.5 times the
// last slice" lets a run of them fill a millisecond nearly half with GC, and a rule
// that trusts the pauses' lengths outright lets a slice the OS preempted stall the
// cycle for as long as it was preempted. A window does both: it sees every pause in
// it, and it forgets one kLength after its end.
//
// The pauses are kept exactly (begin and end), oldest first; one leaves when it
// ends kLength before the newest, so the queue holds at most a window's pauses.
#pragma once

#include <algorithm>
#include <chrono>
#include <deque>

#include "gc/thread_cpu_clock.h"

namespace kith::gc {

class GcTimeWindow {
 public:
  using Clock = ThreadCpuClock;
  static constexpr Clock::duration kLength = std::chrono::milliseconds(1);

  // A pause from `begin` to `end` (after every pause recorded so far).
  void record(Clock::time_point begin, Clock::time_point end) {
    while (!pauses_.empty() && pauses_.front().end <= end - kLength) {
      total_ -= pauses_.front().end - pauses_.front().begin;
      pauses_.pop_front();
    }
    pauses_.push_back({begin, end});
    total_ += end - begin;
  }

  // Whether a pause of `length` starting at `now` (not before the newest pause's
  // end) keeps the GC time of every window of kLength that ends during it at most
  // shareNum / shareDen of kLength: a window ending in it holds at most the GC time
  // from now - kLength + length on, plus the pause.
  bool hasRoomFor(Clock::duration length, Clock::time_point now, int shareNum, int shareDen) const {
    return (since(now - kLength + length) + length) * shareDen <= kLength * shareNum;
  }

  // The GC time recorded from `from` on (for `from` at most kLength before the
  // newest pause's end; earlier pauses are forgotten).
  Clock::duration since(Clock::time_point from) const {
    Clock::duration before{};
    for (const Pause& p : pauses_) {
      if (p.begin >= from) break;
      before += std::min(p.end, from) - p.begin;
    }
    return total_ - before;
  }

 private:
  struct Pause {
    Clock::time_point begin, end;
  };
  std::deque<Pause> pauses_;
  Clock::duration total_{};  // the lengths of the pauses kept
};

}  // namespace kith::gc
