// The type-erased registry: the only place a policy is chosen by name.
#include <array>
#include <memory>
#include <utility>
#include <string>

#include "heap/heap.h"
#include "heap/policies.h"
#include "heap/statistics/stats_heap.h"

namespace kith::heap {
namespace {

// Adapts a concrete policy (wrapped in StatsHeap) to the Heap interface.
template <class Policy>
class PolicyHeap final : public Heap {
 public:
  PolicyHeap(std::string_view name, std::size_t bytes, StatisticsMode mode) : name_(name), heap_(bytes) {
    heap_.setMode(mode);
  }
  void* malloc(std::size_t size) override { return heap_.malloc(size); }
  void* malloc(std::size_t size, const void* near) override { return heap_.malloc(size, near); }
  void free(void* ptr) override { heap_.free(ptr); }
  std::size_t getSize(void* ptr) override { return heap_.getSize(ptr); }
  std::size_t freeAndGetSize(void* ptr) override { return heap_.freeAndGetSize(ptr); }
  FreeFootprint freeFootprint() const override {
    if constexpr (requires { heap_.freeFootprint(); }) return heap_.freeFootprint();
    else return {};
  }
  HeapStatistics statistics() const override {
    HeapStatistics s = heap_.statistics();
    if constexpr (kBoehm) heap_.boehmStatistics(s);
    return s;
  }
  std::size_t bytesInUse() const override {
    if constexpr (kBoehm) return statistics().bytes_in_use;  // Boehm's own count
    else return heap_.bytesInUse();
  }
  void skipImmediateSources() override {
    if constexpr (requires { heap_.skipImmediateSources(); }) heap_.skipImmediateSources();
  }
  bool setRelocator(RelocateFn fn, void* context) override {
    if constexpr (requires { heap_.setRelocator(fn, context); }) {
      heap_.setRelocator(fn, context);
      return true;
    } else {
      return false;
    }
  }
  std::string checkInvariants() override {
    if constexpr (requires { heap_.checkInvariants(); }) return heap_.checkInvariants();
    else return {};
  }
  std::string_view name() const override { return name_; }
  std::byte* arenaBase() const override {
    if constexpr (requires { heap_.arenaBase(); }) return heap_.arenaBase();
    else return nullptr;
  }
  std::size_t arenaSize() const override {
    if constexpr (requires { heap_.arenaSize(); }) return heap_.arenaSize();
    else return 0;
  }
  std::optional<FreeSpace> freeSpace() const override {
    FreeSpace census;
    if constexpr (requires { heap_.forEachFreeSize([](std::size_t, std::size_t) {}); }) {
      heap_.forEachFreeSize([&](std::size_t bytes, std::size_t count) { census.add(bytes, count); });
      census.byClass = true;
      return census;
    } else if constexpr (requires { heap_.freeBytes(); heap_.largestFreeBlock(); }) {
      census.freeBytes = heap_.freeBytes();
      census.largestFreeBlock = heap_.largestFreeBlock();
      return census;
    } else {
      return std::nullopt;
    }
  }
  bool collectsGarbage() const override { return kBoehm; }
  bool setRootScanner(RootScanFn fn, void* context) override {
    if constexpr (requires { heap_.setRootScanner(fn, context); }) return heap_.setRootScanner(fn, context);
    else return false;
  }
  void collect() override {
    if constexpr (requires { heap_.collect(); }) heap_.collect();
  }
  std::uint64_t collections() const override {
    if constexpr (requires { heap_.collections(); }) return heap_.collections();
    else return 0;
  }

 private:
  std::string_view name_;
  // `boehm`: the heap that collects garbage itself and keeps its own counts.
  static constexpr bool kBoehm = requires(const StatsHeap<Policy>& h, HeapStatistics& s) { h.boehmStatistics(s); };
  StatsHeap<Policy> heap_;
};

// The names and descriptions one of policies.h's registries (forEachPolicy, ...) visits,
// listed once: each registry's lambda is its own type, so each has its own list.
template <class ForEach>
const std::vector<PolicyInfo>& listed(ForEach forEach) {
  static const std::vector<PolicyInfo> list = [&] {
    std::vector<PolicyInfo> v;
    forEach([&]<class P>(std::string_view n, std::string_view d) {
      v.push_back({n, d});
      return false;
    });
    return v;
  }();
  return list;
}

}  // namespace

const std::vector<PolicyInfo>& policyList() { return listed([](auto&& fn) { return forEachPolicy(fn); }); }
const std::vector<PolicyInfo>& baselineList() { return listed([](auto&& fn) { return forEachBaseline(fn); }); }
const std::vector<PolicyInfo>& replayBaselineList() {
  return listed([](auto&& fn) { return forEachReplayBaseline(fn); });
}
const std::vector<PolicyInfo>& referenceList() { return listed([](auto&& fn) { return forEachReference(fn); }); }

bool isReplayBaseline(std::string_view name) {
  for (const auto& p : replayBaselineList())
    if (p.name == name) return true;
  return false;
}

const std::vector<PolicyInfo>& leftOutPolicyList() {
  static const std::vector<PolicyInfo> list = {
#if !defined(KITH_HAVE_JEMALLOC)
      {"jemalloc", "libjemalloc-dev (pkg-config jemalloc) was not found at build time"},
#endif
#if !defined(KITH_HAVE_MIMALLOC)
      {"mimalloc", "libmimalloc-dev (CMake package mimalloc) was not found at build time"},
#endif
  };
  return list;
}

namespace {
// The policies `--heap` names: policies, baselines and references (not replay baselines).
std::array<const std::vector<PolicyInfo>*, 3> selectable() {
  return {&policyList(), &baselineList(), &referenceList()};
}
}  // namespace

bool isPolicy(std::string_view name) {
  for (const auto* list : selectable())
    for (const auto& p : *list)
      if (p.name == name) return true;
  return false;
}

std::string policyNames() {
  std::string out;
  for (const auto* list : selectable())
    for (const auto& p : *list) {
      if (!out.empty()) out += ", ";
      out += p.name;
    }
  return out;
}

std::unique_ptr<Heap> makeHeap(std::string_view name, std::size_t heapBytes, StatisticsMode mode) {
  std::unique_ptr<Heap> made;
  auto make = [&]<class P>(std::string_view n, std::string_view) {
    if (n != name) return false;
    made = std::make_unique<PolicyHeap<P>>(n, heapBytes, mode);
    return true;
  };
  forEachPolicy(make) || forEachBaseline(make) || forEachReference(make) || forEachReplayBaseline(make);
  return made;
}

}  // namespace kith::heap
