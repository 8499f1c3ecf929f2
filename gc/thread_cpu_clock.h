// ThreadCpuClock: the calling thread's CPU time (CLOCK_THREAD_CPUTIME_ID) as a
// std::chrono clock. It runs only while the thread runs, so the time the host takes
// the CPU away — on a shared 2-core guest, stalls of up to ~1 ms — is not in it: the
// clock pauses are measured by beside the wall clock (pause_stamp.h), and the clock
// the continuous collector's governor paces by (continuous_collector.h), whose
// target is a mutator utilization of the thread's own time.
// Reading it is a system call (a few hundred ns; the wall clock's vDSO read is ~20).
#pragma once

#include <time.h>

#include <chrono>
#include <cstdint>

namespace kith::gc {

// The calling thread's CPU time in ns.
inline std::uint64_t threadCpuNs() {
  timespec t{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
  return static_cast<std::uint64_t>(t.tv_sec) * 1'000'000'000u + static_cast<std::uint64_t>(t.tv_nsec);
}

struct ThreadCpuClock {
  using duration = std::chrono::nanoseconds;
  using rep = duration::rep;
  using period = duration::period;
  using time_point = std::chrono::time_point<ThreadCpuClock>;
  static constexpr bool is_steady = true;  // never goes back, for the one thread that reads it
  static time_point now() { return time_point(duration(threadCpuNs())); }
  static time_point fromNs(std::uint64_t ns) { return time_point(duration(ns)); }
};

}  // namespace kith::gc
