// Which heap holds the compiler's scratch data (an experiment knob, `kith run
// --compiler-heap`): the ZoneHeap region it has always used, a reap
// (heap/layers/reap.h), the `lea` composition, or the system allocator. The last
// three take back each piece the compiler is done with; the region only all at once.
#pragma once

#include <optional>
#include <string_view>

namespace kith::vm {

enum class CompilerHeap { zone, reap, lea, malloc };

inline constexpr std::string_view kCompilerHeapNames = "zone, reap, lea, malloc";

constexpr std::string_view compilerHeapName(CompilerHeap heap) {
  switch (heap) {
    case CompilerHeap::zone: return "zone";
    case CompilerHeap::reap: return "reap";
    case CompilerHeap::lea: return "lea";
    case CompilerHeap::malloc: return "malloc";
  }
  return "zone";
}

constexpr std::optional<CompilerHeap> compilerHeapNamed(std::string_view name) {
  for (CompilerHeap h : {CompilerHeap::zone, CompilerHeap::reap, CompilerHeap::lea, CompilerHeap::malloc})
    if (compilerHeapName(h) == name) return h;
  return std::nullopt;
}

}  // namespace kith::vm
