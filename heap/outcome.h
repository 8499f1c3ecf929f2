// How one allocation request was satisfied, reported by the policies that know.
// StatsHeap reads `lastOutcome()` after each malloc when the policy has it
// (CLI.md's `satisfied` block: immediate / split / glue / defrag / failed).
#pragma once

#include <cstddef>
#include <cstdint>

namespace kith::heap {

enum class Outcome : std::uint8_t {
  immediate,  // from the free list of the requested size class, no split or glue
  split,      // a larger block was bisected / carved
  glue,       // smaller free blocks were recombined
  defrag,     // blocks were relocated to make room
  failed,     // nullptr returned
};
inline constexpr int kOutcomeCount = 5;

constexpr const char* outcomeName(Outcome o) {
  constexpr const char* names[] = {"immediate", "split", "glue", "defrag", "failed"};
  return names[static_cast<int>(o)];
}

// The relocation callback a moving heap (buddy defragmentation) calls before it
// reuses `from`: the owner copies nothing (the heap has already copied `size`
// bytes to `to`) but must redirect its references, e.g. the VM's object handle.
using RelocateFn = void (*)(void* context, void* from, void* to, std::size_t size);

template <class H>
concept ReportsOutcome = requires(const H h) {
  { h.lastOutcome() } -> std::same_as<Outcome>;
};

}  // namespace kith::heap
