// Heap: the one type-erased face of a heap policy. Everything outside heap/ (the
// program's allocation path, replay, the studies) holds a policy as a Heap, built
// by name at start-up (makeHeap, heap_registry.cpp). Each concrete policy sits
// behind it whole, so its own malloc/free chain stays fully inlined; a request
// pays one virtual call, at this boundary, and no other.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "heap/free_footprint.h"
#include "heap/free_space.h"
#include "heap/outcome.h"
#include "heap/statistics/statistics.h"
#include "heap/statistics/statistics_mode.h"

namespace kith::heap {

// For a heap that finds garbage itself (`boehm`): at each collection it calls the
// owner's RootScanFn, which reports every range of root words it keeps outside
// the collected heap with push(begin, end). The ranges must stay valid until the
// collection ends.
using PushRootsFn = void (*)(void* begin, void* end);
using RootScanFn = void (*)(void* context, PushRootsFn push);

class Heap {
 public:
  virtual ~Heap() = default;
  virtual void* malloc(std::size_t size) = 0;
  // The hinted entry point: `size` bytes near `near` (an address in this heap, or
  // nullptr). Policies without a notion of locality ignore the hint (the default).
  virtual void* malloc(std::size_t size, const void* near) { (void)near; return malloc(size); }
  virtual void free(void* ptr) = 0;
  virtual std::size_t getSize(void* ptr) = 0;
  // Frees `ptr` (not nullptr) and returns the bytes of the block it freed (getSize
  // before the free): a collector's sweep counts the bytes it frees, and asking here
  // costs one call per object where getSize then free cost two. The registry's
  // adapter (heap_registry.cpp) implements it over the statistics layer, which
  // reads the size once for both. Pure, with no default: a default visible to the
  // caller makes GCC guess it is the target and test for it before every call.
  virtual std::size_t freeAndGetSize(void* ptr) = 0;
  // What a free touches outside the block, for a sweep that brings it in ahead
  // (gc/sweep_prefetch.h) without a call per object.
  virtual FreeFootprint freeFootprint() const { return {}; }
  virtual HeapStatistics statistics() const = 0;
  // statistics().bytes_in_use without building the rest (collectors ask at every cycle).
  virtual std::size_t bytesInUse() const { return statistics().bytes_in_use; }
  // Before the first malloc: the statistics leave where immediate blocks came from
  // unknown (`--stats-sources=off`), so counting costs what it did without it
  // (stats_heap.h). For good: marks not kept cannot be trusted again.
  virtual void skipImmediateSources() {}
  // Installs the callback moving heaps need; false if the policy never moves blocks.
  // While one is installed, every malloc that finds no block defragments.
  virtual bool setRelocator(RelocateFn fn, void* context) = 0;
  // A malloc that may move live blocks to make room (the policy's defragmenter, on
  // for this one request), calling fn(context, from, to, size) after each move;
  // nullptr when it still finds no block, or when the policy never moves blocks.
  // The VM's allocation gate calls it only after a collection has freed what it
  // could (moving garbage is wasted work); every other request is a plain malloc.
  void* mallocDefragmenting(std::size_t size, const void* near, RelocateFn fn, void* context) {
    if (!setRelocator(fn, context)) return nullptr;
    void* block = malloc(size, near);
    setRelocator(nullptr, nullptr);
    return block;
  }
  // Walks the policy's structures; empty string when they are consistent.
  virtual std::string checkInvariants() = 0;
  virtual std::string_view name() const = 0;
  // The fixed region the policy manages; nullptr / 0 for `malloc`, which has none.
  virtual std::byte* arenaBase() const = 0;
  virtual std::size_t arenaSize() const = 0;
  // A census of the free memory now (free_space.h): byClass when the policy can
  // enumerate its free blocks (forEachFreeSize); only free bytes and the largest
  // block when it can tell those; nullopt — the default — when it can tell neither.
  virtual std::optional<FreeSpace> freeSpace() const { return std::nullopt; }

  // --- a heap that collects garbage itself (only `boehm`; the defaults: none) ----
  // True when the heap reclaims unreachable blocks without free(): its owner must
  // install a root scanner and never free, and no other collector may run.
  virtual bool collectsGarbage() const { return false; }
  // Installs (fn != nullptr) or removes the owner's roots; false if not accepted.
  virtual bool setRootScanner(RootScanFn, void*) { return false; }
  virtual void collect() {}                               // a full collection
  virtual std::uint64_t collections() const { return 0; }  // so far
};

struct PolicyInfo {
  std::string_view name;
  std::string_view description;
};

// Every policy this build has, in the order `kith policies` lists them: the
// studied allocators, which their owner frees into explicitly (heap and collector
// tests run over each of them).
const std::vector<PolicyInfo>& policyList();
// Baselines that collect garbage themselves (`boehm`), apart from policyList
// because explicit-free harnesses and the VM's collectors do not apply to them.
// makeHeap, isPolicy and policyNames accept them too.
const std::vector<PolicyInfo>& baselineList();
// Hand-written originals a composition is measured against (`kingsley-bsd`, the
// BSD Kingsley that `kingsley` models), apart from policyList so that the VM's
// collector tests and the script suite do not run over them; `kith policies` notes
// them. makeHeap, isPolicy and policyNames accept them too (kith replay, the
// preloaded malloc).
const std::vector<PolicyInfo>& referenceList();
// Policies this build left out because their library was missing at build time
// (jemalloc, mimalloc); the description says which package. `kith policies` notes them.
const std::vector<PolicyInfo>& leftOutPolicyList();
// The replay baseline (`nothing`): makeHeap builds it, but isPolicy and
// policyNames leave it out, as only `kith replay` takes it.
const std::vector<PolicyInfo>& replayBaselineList();
bool isReplayBaseline(std::string_view name);
bool isPolicy(std::string_view name);
// "list, knuth, ..." for error messages.
std::string policyNames();

// A policy over a fixed heap of `heapBytes`, wrapped in StatsHeap keeping what `mode`
// says (statistics_mode.h). nullptr for an unknown name.
std::unique_ptr<Heap> makeHeap(std::string_view name, std::size_t heapBytes,
                               StatisticsMode mode = StatisticsMode::countsAndTimes);

}  // namespace kith::heap
