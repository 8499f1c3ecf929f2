// The collector hook the allocation gate calls when the heap cannot satisfy a
// request (and System.gc() calls on demand). Today only NoCollector exists;
// gc/ will add collectors behind this interface. A collector finds the live
// objects from VM::forEachRoot (vm.h) and frees the rest with VM::freeObject.
#pragma once

#include <cstdint>
#include <string_view>

namespace kith::vm {

class VM;

struct CollectorStatistics {
  std::uint64_t cycles = 0;
  std::uint64_t objectsFreed = 0;
  std::uint64_t bytesFreed = 0;
  double pauseTotalMs = 0, pauseMeanMs = 0, pauseP99Ms = 0, pauseMaxMs = 0;
};

class Collector {
 public:
  virtual ~Collector() = default;
  // A full collection. Must not throw; may free objects (never move them itself —
  // moving is the heap's defragmenter's business).
  virtual void collect(VM& vm) = 0;
  virtual std::string_view name() const = 0;
  virtual CollectorStatistics statistics() const { return {}; }
};

// Frees nothing: every object lives until the run ends.
class NoCollector final : public Collector {
 public:
  explicit NoCollector(std::string_view name = "none") : name_(name) {}
  void collect(VM&) override {}
  std::string_view name() const override { return name_; }

 private:
  std::string_view name_;  // `occasional`/`continuous` run as `none` until gc/ lands
};

}  // namespace kith::vm
