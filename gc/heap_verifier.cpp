#include "gc/heap_verifier.h"

#include <cstddef>
#include <cstdint>
#include <sstream>
#include <unordered_set>
#include <vector>

#include "vm/object_scanning.h"

namespace kith::gc {

namespace {

class Verifier {
 public:
  Verifier(vm::CollectedSpace& space, VerifyOptions options) : space_(space), options_(options) {}

  std::string run() {
    space_.forEachRoot([&](const vm::Value& root) { visit(root, "a root"); });
    while (!pending_.empty() && error_.empty()) {
      vm::Handle* handle = pending_.back();
      pending_.pop_back();
      vm::forEachReference(handle, [&](vm::Value& field) { visit(field, "a field"); });
    }
    if (!error_.empty()) return error_;
    if (options_.checkHeapInvariants) {
      std::string heapError = space_.heap().checkInvariants();
      if (!heapError.empty()) return "heap invariants: " + heapError;
    }
    if (options_.requireNoGarbage && space_.handles().liveCount() != visited_.size()) {
      std::ostringstream out;
      out << space_.handles().liveCount() << " live handles but only " << visited_.size()
          << " reachable: garbage survived the collection";
      return out.str();
    }
    return {};
  }

 private:
  void visit(const vm::Value& value, const char* where) {
    if (!error_.empty() || !value.holdsHandle()) return;
    vm::Handle* handle = value.handle();
    if (!visited_.insert(handle).second) return;
    std::string problem = value.isBoxedInt() ? checkBox(handle) : check(handle);
    if (!problem.empty()) {
      std::ostringstream out;
      out << "handle " << static_cast<const void*>(handle) << " (reached from " << where << "): " << problem;
      error_ = out.str();
      return;
    }
    if (value.isObject()) pending_.push_back(handle);
  }

  std::string checkBox(vm::Handle* box) {
    if (!space_.handles().owns(box)) return "boxed int: not a slot of the handle table";
    if (box->klass == nullptr) return "a freed boxed int is reachable";
    if (!space_.isBox(box)) return "a boxed-int Value names a handle of another class";
    return {};
  }

  std::string check(vm::Handle* handle) {
    if (handle == nullptr) return "null handle in an object Value";
    if (!space_.handles().owns(handle)) return "not a slot of the handle table";
    if (handle->klass == nullptr) return "a freed handle is reachable";
    if (options_.requireClearMarks && (handle->gcBits & ~options_.allowedBits) != 0) return "mark bits left set after the sweep";
    return vm::objectLayoutProblem(handle, space_.heap().arenaBase(), space_.heap().arenaSize());
  }

  vm::CollectedSpace& space_;
  VerifyOptions options_;
  std::unordered_set<vm::Handle*> visited_;
  std::vector<vm::Handle*> pending_;
  std::string error_;
};

}  // namespace

std::string verifyHeap(vm::CollectedSpace& space, VerifyOptions options) { return Verifier(space, options).run(); }

}  // namespace kith::gc
