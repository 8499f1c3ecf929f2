// Synthetic allocation workloads shared by the randomized tests, the heap
// benchmark and `kith bench defrag`: a seeded generator that gives the same sequence everywhere, and
// request sizes shaped like the JVM study's (estranged-buddy paper §3.4).
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

namespace kith::heap {

// splitmix64: tiny, and its sequence is the same on every platform and library.
class SeededRandom {
 public:
  explicit SeededRandom(std::uint64_t seed) : state_(seed) {}
  std::uint64_t next() {
    std::uint64_t z = (state_ += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
  }
  std::size_t below(std::size_t n) { return n ? next() % n : 0; }
  std::size_t between(std::size_t lo, std::size_t hi) { return lo + below(hi - lo + 1); }
  bool chance(unsigned percent) { return below(100) < percent; }

 private:
  std::uint64_t state_;
};

enum class SizeMix {
  jvmLike,      // 60% 16-32 B, 25% 33-64 B, 10% to 512 B, 4% to 4 KiB, 1% to 64 KiB
  fragmenting,  // alternating tiny and mid-size blocks, freed out of order
};

std::size_t drawSize(SeededRandom& rng, SizeMix mix, std::size_t opIndex);

// One step of a replayable workload: allocate `size` bytes into `slot`, or free `slot`.
struct WorkloadStep {
  std::uint32_t slot;
  std::uint32_t size;  // 0 marks a free
};

// A sequence of `allocations` mallocs, each freed later (all by the end), with the
// live count swinging between 0 and maxLive in phases, like a program between
// collections. Slots index a table of at most maxLive pointers.
std::vector<WorkloadStep> makeWorkload(SizeMix mix, std::uint64_t seed, std::size_t allocations,
                                       std::size_t maxLive);

}  // namespace kith::heap
