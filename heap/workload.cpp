// The synthetic workloads of workload.h.
#include "heap/workload.h"

#include <vector>

namespace kith::heap {

std::size_t drawSize(SeededRandom& rng, SizeMix mix, std::size_t opIndex) {
  if (mix == SizeMix::fragmenting) return (opIndex & 1) ? rng.between(1, 32) : rng.between(200, 3000);
  std::size_t r = rng.below(1000);
  if (r < 600) return rng.between(16, 32);
  if (r < 850) return rng.between(33, 64);
  if (r < 950) return rng.between(65, 512);
  if (r < 990) return rng.between(513, 4096);
  return rng.between(4097, 65536);
}

std::vector<WorkloadStep> makeWorkload(SizeMix mix, std::uint64_t seed, std::size_t allocations,
                                       std::size_t maxLive) {
  SeededRandom rng(seed);
  std::vector<WorkloadStep> steps;
  steps.reserve(allocations * 2);
  std::vector<std::uint32_t> live, freeSlots;
  for (std::uint32_t s = static_cast<std::uint32_t>(maxLive); s > 0; --s) freeSlots.push_back(s - 1);
  bool growing = true;
  std::size_t target = rng.between(1, maxLive), made = 0;
  while (made < allocations) {
    if (growing && live.size() >= target) {
      growing = false;
      target = rng.below(live.size() + 1);
    } else if (!growing && live.size() <= target) {
      growing = true;
      target = rng.between(live.size() + 1, maxLive);
    }
    if (!freeSlots.empty() && (live.empty() || rng.chance(growing ? 75 : 25))) {
      std::uint32_t slot = freeSlots.back();
      freeSlots.pop_back();
      auto size = static_cast<std::uint32_t>(drawSize(rng, mix, made++));
      steps.push_back({slot, size});
      live.push_back(slot);
    } else {
      std::size_t i = rng.below(live.size());
      steps.push_back({live[i], 0});
      freeSlots.push_back(live[i]);
      live[i] = live.back();
      live.pop_back();
    }
  }
  for (std::uint32_t slot : live) steps.push_back({slot, 0});
  return steps;
}

}  // namespace kith::heap
