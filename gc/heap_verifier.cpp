#include "gc/heap_verifier.h"

#include <cstddef>
#include <cstdint>
#include <sstream>
#include <unordered_set>
#include <vector>

#include "gc/object_references.h"

namespace kith::gc {

namespace {

std::size_t minimumSize(vm::ObjectKind kind) {
  using vm::ObjectKind;
  switch (kind) {
    case ObjectKind::string: return sizeof(vm::StringObject) + 1;  // NUL
    case ObjectKind::array:
    case ObjectKind::valueStorage: return sizeof(vm::ArrayObject);
    case ObjectKind::instance: return sizeof(vm::ObjectHeader);
    case ObjectKind::closure: return sizeof(vm::ClosureObject);
    case ObjectKind::boundMethod: return sizeof(vm::BoundMethodObject);
    case ObjectKind::upvalue: return sizeof(vm::UpvalueObject);
    case ObjectKind::list: return sizeof(vm::ListObject);
    case ObjectKind::map: return sizeof(vm::MapObject);
    case ObjectKind::stringBuilder: return sizeof(vm::StringBuilderObject);
    case ObjectKind::byteStorage: return sizeof(vm::ByteStorageObject);
    case ObjectKind::boxedInt:
    case ObjectKind::count: break;
  }
  return sizeof(vm::ObjectHeader);
}

// The size the object's own length fields imply, for the kinds that have one.
std::size_t impliedSize(vm::Handle* handle) {
  using vm::ObjectKind;
  switch (handle->klass->kind) {
    case ObjectKind::string:
      return sizeof(vm::StringObject) + static_cast<vm::StringObject*>(handle->object)->length + 1;
    case ObjectKind::array:
    case ObjectKind::valueStorage:
      return sizeof(vm::ArrayObject) + static_cast<vm::ArrayObject*>(handle->object)->length * sizeof(vm::Value);
    case ObjectKind::closure:
      return sizeof(vm::ClosureObject) +
             static_cast<vm::ClosureObject*>(handle->object)->upvalueCount * sizeof(vm::Value);
    case ObjectKind::byteStorage:
      return sizeof(vm::ByteStorageObject) + static_cast<vm::ByteStorageObject*>(handle->object)->capacity;
    default:
      return minimumSize(handle->klass->kind);
  }
}

class Verifier {
 public:
  Verifier(vm::HandleTableSpace& space, VerifyOptions options) : space_(space), options_(options) {}

  std::string run() {
    space_.forEachRoot([&](const vm::Value& root) { visit(root, "a root"); });
    while (!pending_.empty() && error_.empty()) {
      vm::Handle* handle = pending_.back();
      pending_.pop_back();
      forEachReference(handle, [&](vm::Value& field) { visit(field, "a field"); });
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
    auto* object = static_cast<std::byte*>(handle->object);
    if (object == nullptr) return "handle names no object";
    auto* header = reinterpret_cast<vm::ObjectHeader*>(object);
    std::byte* base = space_.heap().arenaBase();
    std::size_t arenaSize = space_.heap().arenaSize();
    if (base != nullptr) {
      if (object < base || object + sizeof(vm::ObjectHeader) > base + arenaSize)
        return "object address outside the heap arena";
      if (object + header->size > base + arenaSize) return "object runs past the end of the arena";
    }
    if (header->handle != handle) return "object header names another handle (stale or moved object)";
    if (header->classId != handle->klass->id) return "object header's class id differs from the handle's class";
    if (handle->klass->kind >= vm::ObjectKind::count) return "handle's class has no valid kind";
    if (header->size < minimumSize(handle->klass->kind)) return "object smaller than its kind's layout";
    if (impliedSize(handle) > header->size) return "object's length fields run past its size";
    return {};
  }

  vm::HandleTableSpace& space_;
  VerifyOptions options_;
  std::unordered_set<vm::Handle*> visited_;
  std::vector<vm::Handle*> pending_;
  std::string error_;
};

}  // namespace

std::string verifyHeap(vm::HandleTableSpace& space, VerifyOptions options) { return Verifier(space, options).run(); }

}  // namespace kith::gc
