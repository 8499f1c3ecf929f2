// Object scanning: all a collector (gc/) may know of a heap object — the references
// it holds, its size, whether its layout is sound — read from the layouts in
// vm/object.h, which gc/ never includes (the architecture.layers test checks). The
// VM's side of the collector binding, as in MMTk, where the VM binding implements
// the Scanning trait (scan_object: the binding visits an object's reference slots
// for the collector) and the ObjectModel trait (get_current_size), and mmtk-core
// calls them through the binding's types, resolved at compile time (mmtk-core,
// src/vm/scanning.rs, src/vm/object_model.rs). Here too they are templates and
// inline functions, not virtual calls: the markers call them per object and per
// reference slot. The roots are the other half of the binding (vm/vm_binding.h).
//
// A new object kind with references must be added to forEachReference (the switch
// has no default, so -Wswitch names the missing case) and to the layout checks.
#pragma once

#include <cstddef>
#include <cstdint>

#include "vm/object.h"

namespace kith::vm {

// fn receives a Value& for each slot of the object that may hold a reference
// (non-object Values are passed too; the caller tests isObject()). Reads the
// object's current address from its handle: call it only while nothing allocates
// (the collectors do).
template <class Fn>
void forEachReference(Handle* handle, Fn&& fn) {
  void* object = handle->object;
  switch (handle->klass->kind) {
    case ObjectKind::string:
    case ObjectKind::byteStorage:
      return;  // bytes only
    case ObjectKind::array:
    case ObjectKind::valueStorage: {
      auto* array = static_cast<ArrayObject*>(object);
      Value* elements = array->elements();
      for (std::uint64_t i = 0; i < array->length; ++i) fn(elements[i]);
      return;
    }
    case ObjectKind::instance: {
      // The field count comes from the object's own size, not its class: the size
      // is what was allocated, so this never reads past the object.
      auto* instance = static_cast<InstanceObject*>(object);
      std::size_t fields = (instance->header.size - sizeof(ObjectHeader)) / sizeof(Value);
      for (std::size_t i = 0; i < fields; ++i) fn(instance->fields()[i]);
      return;
    }
    case ObjectKind::closure: {
      // The prototype lives in the method area; its constants are VM roots.
      auto* closure = static_cast<ClosureObject*>(object);
      for (std::uint64_t i = 0; i < closure->upvalueCount; ++i) fn(closure->upvalues()[i]);
      return;
    }
    case ObjectKind::boundMethod: {
      auto* bound = static_cast<BoundMethodObject*>(object);
      fn(bound->receiver);
      fn(bound->method);
      return;
    }
    case ObjectKind::upvalue:
      // While open, the variable lives on the VM stack (a root); `closed` is nil
      // until the upvalue closes, so visiting it is always right.
      fn(static_cast<UpvalueObject*>(object)->closed);
      return;
    case ObjectKind::list:
      fn(static_cast<ListObject*>(object)->storage);
      return;
    case ObjectKind::map: {
      auto* map = static_cast<MapObject*>(object);
      fn(map->entries);
      fn(map->index);
      return;
    }
    case ObjectKind::stringBuilder:
      fn(static_cast<StringBuilderObject*>(object)->buffer);
      return;
    case ObjectKind::boxedInt:  // a leaf with no object: the markers never scan one
    case ObjectKind::count:
      return;  // not a kind: no object has it
  }
}

// Arrays and value storage (the kinds whose size the program chooses) can be scanned
// a range at a time, so an incremental marker's slice stays bounded however long
// the array is. Their element count; 0 for every other kind.
inline std::size_t elementCount(const Handle* handle) {
  ObjectKind kind = handle->klass->kind;
  if (kind != ObjectKind::array && kind != ObjectKind::valueStorage) return 0;
  return static_cast<std::size_t>(static_cast<const ArrayObject*>(handle->object)->length);
}

// fn for the elements [from, to) of an array or value storage, clamped to its length
// (read now: the object may have moved since the range was chosen).
template <class Fn>
void forEachElement(Handle* handle, std::size_t from, std::size_t to, Fn&& fn) {
  auto* array = static_cast<ArrayObject*>(handle->object);
  std::size_t end = to < array->length ? to : static_cast<std::size_t>(array->length);
  Value* elements = array->elements();
  for (std::size_t i = from; i < end; ++i) fn(elements[i]);
}

// The object's size as requested from the heap (its header's), which the markers
// add up as the live bytes (MMTk's ObjectModel::get_current_size).
inline std::uint32_t objectBytes(const Handle* handle) {
  return static_cast<const ObjectHeader*>(handle->object)->size;
}

// The name of the object's kind, for a collector's diagnostics ("freed" when the
// handle is free).
inline const char* kindNameOf(const Handle* handle) {
  return handle->klass ? kindName(handle->klass->kind) : "freed";
}

namespace object_layout {

// The least size an object of `kind` can have: its fixed fields.
inline std::size_t minimumSize(ObjectKind kind) {
  switch (kind) {
    case ObjectKind::string: return sizeof(StringObject) + 1;  // NUL
    case ObjectKind::array:
    case ObjectKind::valueStorage: return sizeof(ArrayObject);
    case ObjectKind::instance: return sizeof(ObjectHeader);
    case ObjectKind::closure: return sizeof(ClosureObject);
    case ObjectKind::boundMethod: return sizeof(BoundMethodObject);
    case ObjectKind::upvalue: return sizeof(UpvalueObject);
    case ObjectKind::list: return sizeof(ListObject);
    case ObjectKind::map: return sizeof(MapObject);
    case ObjectKind::stringBuilder: return sizeof(StringBuilderObject);
    case ObjectKind::byteStorage: return sizeof(ByteStorageObject);
    case ObjectKind::boxedInt:
    case ObjectKind::count: break;
  }
  return sizeof(ObjectHeader);
}

// The size the object's own length fields imply, for the kinds that have one.
inline std::size_t impliedSize(const Handle* handle) {
  const void* object = handle->object;
  switch (handle->klass->kind) {
    case ObjectKind::string: return sizeof(StringObject) + static_cast<const StringObject*>(object)->length + 1;
    case ObjectKind::array:
    case ObjectKind::valueStorage:
      return sizeof(ArrayObject) + static_cast<const ArrayObject*>(object)->length * sizeof(Value);
    case ObjectKind::closure:
      return sizeof(ClosureObject) + static_cast<const ClosureObject*>(object)->upvalueCount * sizeof(Value);
    case ObjectKind::byteStorage:
      return sizeof(ByteStorageObject) + static_cast<const ByteStorageObject*>(object)->capacity;
    default: return minimumSize(handle->klass->kind);
  }
}

}  // namespace object_layout

// Whether the object of a handle in use (klass set) is sound: "" or the first
// problem found — it has an address, lies whole inside [arenaBase, arenaBase +
// arenaSize) when the heap has an arena (arenaBase not nullptr), its header names
// the handle back and carries its class id, and it is big enough for its kind's
// layout and its own length fields. For the heap verifier (gc/heap_verifier.h).
inline const char* objectLayoutProblem(const Handle* handle, const std::byte* arenaBase, std::size_t arenaSize) {
  const auto* object = static_cast<const std::byte*>(handle->object);
  if (object == nullptr) return "handle names no object";
  const auto* header = reinterpret_cast<const ObjectHeader*>(object);
  if (arenaBase != nullptr) {
    if (object < arenaBase || object + sizeof(ObjectHeader) > arenaBase + arenaSize)
      return "object address outside the heap arena";
    if (object + header->size > arenaBase + arenaSize) return "object runs past the end of the arena";
  }
  if (header->handle != handle) return "object header names another handle (stale or moved object)";
  if (header->classId != handle->klass->id) return "object header's class id differs from the handle's class";
  if (handle->klass->kind >= ObjectKind::count) return "handle's class has no valid kind";
  if (header->size < object_layout::minimumSize(handle->klass->kind)) return "object smaller than its kind's layout";
  if (object_layout::impliedSize(handle) > header->size) return "object's length fields run past its size";
  return "";
}

}  // namespace kith::vm
