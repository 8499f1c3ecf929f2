// PauseStamp: a moment read on the two clocks a pause is measured by.
//
// The wall clock (steady_clock, CLOCK_MONOTONIC) is what the mutator waits. But on a
// shared host the wall clock also counts the time the host took the CPU away: on a
// 2-core guest a bare clock loop sees gaps of up to ~1 ms, so the longest pause by
// wall time is the host's longest stall, not the collector's. The thread's own CPU
// clock (CLOCK_THREAD_CPUTIME_ID) runs only while the thread runs, so a pause's CPU
// time is the collector's work alone, and wall - CPU over a pause is the time the
// host took from the thread during it (docs/COLLECTORS.md, "Pauses the host cannot
// distort"). Reading the CPU clock is a system call (a few hundred ns): twice a pause.
#pragma once

#include <chrono>
#include <cstdint>

#include "gc/thread_cpu_clock.h"

namespace kith::gc {

struct PauseStamp {
  using Clock = std::chrono::steady_clock;
  Clock::time_point wall{};
  std::uint64_t cpuNs = 0;  // the thread's CPU time (threadCpuNs)

  // Now, on both clocks; with `cpu` false the CPU clock is not read (cpuNs 0).
  static PauseStamp now(bool cpu = true) { return {Clock::now(), cpu ? threadCpuNs() : 0}; }
};

}  // namespace kith::gc
