// forEachReference: the references one heap object holds, by kind, read from the
// layouts in vm/object.h. This is the only place the collectors know what a
// string, an array or a closure looks like; a new object kind with references must
// be added here (the switch has no default, so -Wswitch names the missing case).
//
// fn receives a Value& for each slot that may hold a reference (non-object Values
// are passed too; the caller tests isObject()). Reads the object's current address
// from its handle: call it only while nothing allocates (the collectors do).
#pragma once

#include <cstddef>

#include "vm/object.h"

namespace kith::gc {

template <class Fn>
void forEachReference(vm::Handle* handle, Fn&& fn) {
  using vm::ObjectKind;
  void* object = handle->object;
  switch (handle->klass->kind) {
    case ObjectKind::string:
    case ObjectKind::byteStorage:
      return;  // bytes only
    case ObjectKind::array:
    case ObjectKind::valueStorage: {
      auto* array = static_cast<vm::ArrayObject*>(object);
      vm::Value* elements = array->elements();
      for (std::uint64_t i = 0; i < array->length; ++i) fn(elements[i]);
      return;
    }
    case ObjectKind::instance: {
      // The field count comes from the object's own size, not its class: the size
      // is what was allocated, so this never reads past the object.
      auto* instance = static_cast<vm::InstanceObject*>(object);
      std::size_t fields = (instance->header.size - sizeof(vm::ObjectHeader)) / sizeof(vm::Value);
      for (std::size_t i = 0; i < fields; ++i) fn(instance->fields()[i]);
      return;
    }
    case ObjectKind::closure: {
      // The prototype lives in the method area; its constants are VM roots.
      auto* closure = static_cast<vm::ClosureObject*>(object);
      for (std::uint64_t i = 0; i < closure->upvalueCount; ++i) fn(closure->upvalues()[i]);
      return;
    }
    case ObjectKind::boundMethod: {
      auto* bound = static_cast<vm::BoundMethodObject*>(object);
      fn(bound->receiver);
      fn(bound->method);
      return;
    }
    case ObjectKind::upvalue:
      // While open, the variable lives on the VM stack (a root); `closed` is nil
      // until the upvalue closes, so visiting it is always right.
      fn(static_cast<vm::UpvalueObject*>(object)->closed);
      return;
    case ObjectKind::list:
      fn(static_cast<vm::ListObject*>(object)->storage);
      return;
    case ObjectKind::map: {
      auto* map = static_cast<vm::MapObject*>(object);
      fn(map->entries);
      fn(map->index);
      return;
    }
    case ObjectKind::stringBuilder:
      fn(static_cast<vm::StringBuilderObject*>(object)->buffer);
      return;
    case ObjectKind::boxedInt:  // a leaf with no object: the markers never scan one
    case ObjectKind::count:
      return;  // not a kind: no object has it
  }
}

// Arrays and value storage (the kinds whose size the program chooses) can be scanned
// a range at a time, so an incremental marker's slice stays bounded however long
// the array is. Their element count; 0 for every other kind.
inline std::size_t elementCount(const vm::Handle* handle) {
  using vm::ObjectKind;
  ObjectKind kind = handle->klass->kind;
  if (kind != ObjectKind::array && kind != ObjectKind::valueStorage) return 0;
  return static_cast<std::size_t>(static_cast<const vm::ArrayObject*>(handle->object)->length);
}

// fn for the elements [from, to) of an array or value storage, clamped to its length
// (read now: the object may have moved since the range was chosen).
template <class Fn>
void forEachElement(vm::Handle* handle, std::size_t from, std::size_t to, Fn&& fn) {
  auto* array = static_cast<vm::ArrayObject*>(handle->object);
  std::size_t end = to < array->length ? to : static_cast<std::size_t>(array->length);
  vm::Value* elements = array->elements();
  for (std::size_t i = from; i < end; ++i) fn(elements[i]);
}

}  // namespace kith::gc
