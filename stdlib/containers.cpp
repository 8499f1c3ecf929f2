// List, Map and StringBuilder. Each is a small fixed-size object plus a backing
// storage object on the VM heap that is replaced (not resized) when it grows, so
// allocation studies see the growth. THE RULE (object.h) applies throughout: after
// any allocation, objects are re-read through their handles. Every overwrite of a
// reference slot goes through the write barrier (KITH_WRITE_BARRIER, vm/collector.h),
// storage replacement included; filling a just-allocated storage needs none.
#include <cmath>
#include <cstring>

#include "stdlib/arguments.h"
#include "stdlib/builtins.h"

namespace kith::stdlib {

using vm::ArrayObject;
using vm::ByteStorageObject;
using vm::Handle;
using vm::ListObject;
using vm::MapObject;
using vm::NativeFunction;
using vm::objectAt;
using vm::ObjectKind;
using vm::StringBuilderObject;
using vm::Value;
using vm::VM;

namespace {

[[noreturn]] void outOfBounds(VM& vm, std::int64_t index, std::int64_t length) {
  vm.throwError("index " + std::to_string(index) + " out of bounds for length " + std::to_string(length));
}

// --- List --------------------------------------------------------------------------------

std::int64_t listCapacity(Value list) {
  Value storage = objectAt<ListObject>(list)->storage;
  return storage.isNil() ? 0 : static_cast<std::int64_t>(objectAt<ArrayObject>(storage)->length);
}

Value list_new(VM& vm, Value*, int) { return vm.newList(); }

Value list_add(VM& vm, Value* args, int) {
  Value list = args[-1];
  std::int64_t size = objectAt<ListObject>(list)->size;
  std::int64_t capacity = listCapacity(list);
  if (size == capacity) {
    std::int64_t grown = capacity < 8 ? 8 : capacity * 2;
    Handle* storage = vm.newValueStorage(static_cast<std::size_t>(grown), list.asHandle());  // may move `list`
    auto* l = objectAt<ListObject>(list);
    if (size) std::memcpy(static_cast<void*>(objectAt<ArrayObject>(storage)->elements()),
                          objectAt<ArrayObject>(l->storage)->elements(), static_cast<std::size_t>(size) * sizeof(Value));
    KITH_WRITE_BARRIER(vm.collector(), l->storage, Value::object(storage));  // the old storage becomes garbage
  }
  auto* l = objectAt<ListObject>(list);
  KITH_WRITE_BARRIER(vm.collector(), objectAt<ArrayObject>(l->storage)->elements()[l->size], args[0]);
  ++l->size;
  return Value::nil();
}

std::int64_t listIndex(VM& vm, Value list, Value index) {
  std::int64_t i = intArgument(vm, index, "the index");
  std::int64_t size = objectAt<ListObject>(list)->size;
  if (i < 0 || i >= size) outOfBounds(vm, i, size);
  return i;
}

Value list_get(VM& vm, Value* args, int) {
  std::int64_t i = listIndex(vm, args[-1], args[0]);
  return objectAt<ArrayObject>(objectAt<ListObject>(args[-1])->storage)->elements()[i];
}

Value list_set(VM& vm, Value* args, int) {
  std::int64_t i = listIndex(vm, args[-1], args[0]);
  KITH_WRITE_BARRIER(vm.collector(), objectAt<ArrayObject>(objectAt<ListObject>(args[-1])->storage)->elements()[i],
                     args[1]);
  return Value::nil();
}

Value list_removeLast(VM& vm, Value* args, int) {
  auto* l = objectAt<ListObject>(args[-1]);
  if (l->size == 0) vm.throwError("removeLast() on an empty List");
  Value* slot = &objectAt<ArrayObject>(l->storage)->elements()[--l->size];
  Value v = *slot;
  vm.collector().writeBarrier(v);
  *slot = Value::nil();
  return v;
}

Value list_size(VM&, Value* args, int) { return Value::integer(objectAt<ListObject>(args[-1])->size); }
Value list_isEmpty(VM&, Value* args, int) { return Value::boolean(objectAt<ListObject>(args[-1])->size == 0); }

Value list_forEach(VM& vm, Value* args, int) {
  // The callback may add or remove elements: re-read the size every time.
  for (std::int64_t i = 0; i < objectAt<ListObject>(args[-1])->size; ++i) {
    Value element = objectAt<ArrayObject>(objectAt<ListObject>(args[-1])->storage)->elements()[i];
    vm.push(args[0]);
    vm.push(element);
    vm.call(1);
  }
  return Value::nil();
}

Value list_toArray(VM& vm, Value* args, int) {
  std::int64_t size = objectAt<ListObject>(args[-1])->size;
  Value array = vm.newArray(static_cast<std::size_t>(size), Value::nil());
  if (size) std::memcpy(static_cast<void*>(objectAt<ArrayObject>(array)->elements()),
                        objectAt<ArrayObject>(objectAt<ListObject>(args[-1])->storage)->elements(),
                        static_cast<std::size_t>(size) * sizeof(Value));
  return array;
}

// --- Map -----------------------------------------------------------------------------------
// Compact dict layout (object.h, MapObject): entries in insertion order, an index
// of int32 entry numbers with linear probing.

constexpr std::int32_t kEmpty = -1;
constexpr std::int32_t kRemoved = -2;

std::int32_t* indexSlots(Value map) {
  return reinterpret_cast<std::int32_t*>(objectAt<ByteStorageObject>(objectAt<MapObject>(map)->index)->bytes());
}
std::size_t indexCapacity(Value map) {
  Value index = objectAt<MapObject>(map)->index;
  return index.isNil() ? 0 : objectAt<ByteStorageObject>(index)->capacity / sizeof(std::int32_t);
}
Value* entrySlots(Value map) { return objectAt<ArrayObject>(objectAt<MapObject>(map)->entries)->elements(); }

// Map keys are equal as `==` says, except that NaN is one key (found, replaced and
// removed like any other, as in Java's and JavaScript's maps), though NaN != NaN.
bool sameKey(VM& vm, Value a, Value b) {
  if (vm.valuesEqual(a, b)) return true;
  return a.isFloat() && b.isFloat() && std::isnan(a.asFloat()) && std::isnan(b.asFloat());
}

// The entry number holding `key`, or -1. Allocates nothing.
std::int64_t findEntry(VM& vm, Value map, Value key, std::uint64_t hash) {
  std::size_t capacity = indexCapacity(map);
  if (capacity == 0) return -1;
  std::int32_t* index = indexSlots(map);
  Value* entries = entrySlots(map);
  for (std::size_t i = hash & (capacity - 1);; i = (i + 1) & (capacity - 1)) {
    std::int32_t e = index[i];
    if (e == kEmpty) return -1;
    if (e != kRemoved && sameKey(vm, entries[2 * e], key)) return e;
  }
}

void insertIndex(VM& vm, Value map, std::int32_t entry, std::uint64_t hash) {
  (void)vm;
  std::size_t capacity = indexCapacity(map);
  std::int32_t* index = indexSlots(map);
  std::size_t i = hash & (capacity - 1);
  while (index[i] >= 0) i = (i + 1) & (capacity - 1);
  index[i] = entry;
}

// Replaces entries and index with larger ones holding the live entries, compacted.
void growMap(VM& vm, Value map) {
  std::int64_t count = objectAt<MapObject>(map)->count;
  std::size_t capacity = 8;
  while (capacity * 2 / 3 < static_cast<std::size_t>(count + 1) * 2) capacity *= 2;
  std::size_t entryCapacity = capacity * 2 / 3;
  vm::RootScope roots(vm);  // `map` is rooted by the caller
  Handle* entries = roots.root(Value::object(vm.newValueStorage(2 * entryCapacity, map.asHandle()))).asHandle();
  Handle* index = vm.newByteStorage(capacity * sizeof(std::int32_t), map.asHandle());
  std::memset(objectAt<ByteStorageObject>(index)->bytes(), 0xff, capacity * sizeof(std::int32_t));  // all kEmpty
  // Copy the live entries in order.
  auto* m = objectAt<MapObject>(map);
  std::int64_t used = 0;
  Value* to = objectAt<ArrayObject>(entries)->elements();
  if (!m->entries.isNil()) {
    Value* from = objectAt<ArrayObject>(m->entries)->elements();
    for (std::int64_t e = 0; e < m->used; ++e) {
      if (from[2 * e].isUndefined()) continue;
      to[2 * used] = from[2 * e];
      to[2 * used + 1] = from[2 * e + 1];
      ++used;
    }
  }
  KITH_WRITE_BARRIER(vm.collector(), m->entries, Value::object(entries));
  KITH_WRITE_BARRIER(vm.collector(), m->index, Value::object(index));
  m->used = used;
  for (std::int64_t e = 0; e < used; ++e)
    insertIndex(vm, map, static_cast<std::int32_t>(e), vm.hashValue(to[2 * e]));
}

}  // namespace

Value mapGet(VM& vm, Value map, Value key, bool* found) {
  std::int64_t e = findEntry(vm, map, key, vm.hashValue(key));
  *found = e >= 0;
  return e >= 0 ? entrySlots(map)[2 * e + 1] : Value::nil();
}

void mapPut(VM& vm, Value map, Value key, Value value) {
  std::uint64_t hash = vm.hashValue(key);
  std::int64_t e = findEntry(vm, map, key, hash);
  if (e >= 0) {
    KITH_WRITE_BARRIER(vm.collector(), entrySlots(map)[2 * e + 1], value);
    return;
  }
  auto* m = objectAt<MapObject>(map);
  std::size_t entryCapacity = m->entries.isNil() ? 0 : objectAt<ArrayObject>(m->entries)->length / 2;
  if (static_cast<std::size_t>(m->used) == entryCapacity) {
    vm::RootScope roots(vm);  // key and value may live only in this C++ frame
    key = roots.root(key);
    value = roots.root(value);
    map = roots.root(map);
    growMap(vm, map);
  }
  m = objectAt<MapObject>(map);
  std::int64_t entry = m->used++;
  ++m->count;
  Value* entries = entrySlots(map);
  KITH_WRITE_BARRIER(vm.collector(), entries[2 * entry], key);
  KITH_WRITE_BARRIER(vm.collector(), entries[2 * entry + 1], value);
  insertIndex(vm, map, static_cast<std::int32_t>(entry), hash);
}

namespace {

void checkKey(VM& vm, Value key) {
  if (key.isNil() || key.isUndefined()) vm.throwError("a Map key must not be nil");
}

Value map_new(VM& vm, Value*, int) { return vm.newMap(); }

Value map_put(VM& vm, Value* args, int) {
  checkKey(vm, args[0]);
  mapPut(vm, args[-1], args[0], args[1]);
  return Value::nil();
}

Value map_get(VM& vm, Value* args, int) {
  bool found;
  return mapGet(vm, args[-1], args[0], &found);
}

Value map_has(VM& vm, Value* args, int) {
  bool found;
  mapGet(vm, args[-1], args[0], &found);
  return Value::boolean(found);
}

Value map_remove(VM& vm, Value* args, int) {
  Value map = args[-1];
  std::uint64_t hash = vm.hashValue(args[0]);
  std::int64_t e = findEntry(vm, map, args[0], hash);
  if (e < 0) return Value::nil();
  std::size_t capacity = indexCapacity(map);
  std::int32_t* index = indexSlots(map);
  for (std::size_t i = hash & (capacity - 1);; i = (i + 1) & (capacity - 1))
    if (index[i] == e) {
      index[i] = kRemoved;
      break;
    }
  Value* entries = entrySlots(map);
  Value removed = entries[2 * e + 1];
  KITH_WRITE_BARRIER(vm.collector(), entries[2 * e], Value::undefined());
  KITH_WRITE_BARRIER(vm.collector(), entries[2 * e + 1], Value::nil());
  --objectAt<MapObject>(map)->count;
  return removed;
}

Value map_size(VM&, Value* args, int) { return Value::integer(objectAt<MapObject>(args[-1])->count); }

Value map_keys(VM& vm, Value* args, int) {
  Value array = vm.newArray(static_cast<std::size_t>(objectAt<MapObject>(args[-1])->count), Value::nil());
  auto* m = objectAt<MapObject>(args[-1]);
  if (m->count == 0) return array;
  Value* entries = objectAt<ArrayObject>(m->entries)->elements();
  Value* out = objectAt<ArrayObject>(array)->elements();
  for (std::int64_t e = 0, n = 0; e < m->used; ++e)
    if (!entries[2 * e].isUndefined()) out[n++] = entries[2 * e];
  return array;
}

// --- StringBuilder ------------------------------------------------------------------------------

Value builder_new(VM& vm, Value*, int) { return vm.newStringBuilder(); }

Value builder_append(VM& vm, Value* args, int) {
  Value builder = args[-1];
  std::string text = vm.toDisplayString(args[0]);  // may run toString()
  auto* b = objectAt<StringBuilderObject>(builder);
  std::size_t length = static_cast<std::size_t>(b->length);
  std::size_t capacity = b->buffer.isNil() ? 0 : objectAt<ByteStorageObject>(b->buffer)->capacity;
  if (length + text.size() > capacity) {
    std::size_t grown = capacity < 16 ? 16 : capacity * 2;
    while (grown < length + text.size()) grown *= 2;
    Handle* buffer = vm.newByteStorage(grown, builder.asHandle());  // near the builder; may move it
    b = objectAt<StringBuilderObject>(builder);
    if (length) std::memcpy(objectAt<ByteStorageObject>(buffer)->bytes(), objectAt<ByteStorageObject>(b->buffer)->bytes(), length);
    KITH_WRITE_BARRIER(vm.collector(), b->buffer, Value::object(buffer));
  }
  if (!text.empty()) std::memcpy(objectAt<ByteStorageObject>(b->buffer)->bytes() + length, text.data(), text.size());
  b->length = static_cast<std::int64_t>(length + text.size());
  return builder;
}

Value builder_toString(VM& vm, Value* args, int) {
  auto length = static_cast<std::size_t>(objectAt<StringBuilderObject>(args[-1])->length);
  Handle* s = vm.newStringUninitialized(length);
  if (length)
    std::memcpy(objectAt<vm::StringObject>(s)->bytes(),
                objectAt<ByteStorageObject>(objectAt<StringBuilderObject>(args[-1])->buffer)->bytes(), length);
  vm.finishString(s);
  return Value::object(s);
}

Value builder_length(VM&, Value* args, int) { return Value::integer(objectAt<StringBuilderObject>(args[-1])->length); }

const NativeFunction kListNew{"List", list_new, 0, 0};
const NativeFunction kListMethods[] = {
    {"add", list_add, 1, 1},         {"get", list_get, 1, 1},     {"set", list_set, 2, 2},
    {"removeLast", list_removeLast, 0, 0}, {"size", list_size, 0, 0}, {"isEmpty", list_isEmpty, 0, 0},
    {"forEach", list_forEach, 1, 1}, {"toArray", list_toArray, 0, 0},
};
const NativeFunction kMapNew{"Map", map_new, 0, 0};
const NativeFunction kMapMethods[] = {
    {"put", map_put, 2, 2}, {"get", map_get, 1, 1},   {"has", map_has, 1, 1},
    {"remove", map_remove, 1, 1}, {"size", map_size, 0, 0}, {"keys", map_keys, 0, 0},
};
const NativeFunction kBuilderNew{"StringBuilder", builder_new, 0, 0};
const NativeFunction kBuilderMethods[] = {
    {"append", builder_append, 1, 1}, {"toString", builder_toString, 0, 0}, {"length", builder_length, 0, 0},
};

template <std::size_t N>
void defineClass(VM& vm, ObjectKind kind, const NativeFunction& constructor, const NativeFunction (&methods)[N]) {
  vm::ClassInfo* klass = vm.builtinClass(kind);
  klass->constructor = &constructor;
  for (const NativeFunction& f : methods) vm.defineNative(klass, &f);
  vm.defineGlobal(klass->name, Value::klassValue(klass));
}

}  // namespace

void installContainers(VM& vm) {
  defineClass(vm, ObjectKind::list, kListNew, kListMethods);
  defineClass(vm, ObjectKind::map, kMapNew, kMapMethods);
  defineClass(vm, ObjectKind::stringBuilder, kBuilderNew, kBuilderMethods);
}

}  // namespace kith::stdlib
