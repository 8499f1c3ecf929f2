// The object factories: each object kind's constructor, over the allocation gate of
// the object space (VM::allocateObject, vm/object_space.h).
#include "vm/vm.h"

#include <cstring>
#include <limits>

namespace kith::vm {

namespace {

std::uint64_t fnv1a(std::string_view s) {
  std::uint64_t h = 0xcbf29ce484222325ULL;
  for (unsigned char c : s) {
    h ^= c;
    h *= 0x100000001b3ULL;
  }
  return h;
}

}  // namespace

Handle* VM::newStringUninitialized(std::size_t length) {
  if (length > std::numeric_limits<std::uint32_t>::max()) space_->throwOutOfMemory(length);
  Handle* h = allocateObject(builtinClass(ObjectKind::string), sizeof(StringObject) + length + 1);
  auto* s = objectAt<StringObject>(h);
  s->length = length;
  s->hash = 0;
  s->bytes()[length] = '\0';
  return h;
}

void VM::finishString(Handle* string) {
  auto* s = objectAt<StringObject>(string);
  s->hash = fnv1a(s->view());
}

Value VM::newString(std::string_view text) {
  Handle* h = newStringUninitialized(text.size());
  auto* s = objectAt<StringObject>(h);
  if (!text.empty()) std::memcpy(s->bytes(), text.data(), text.size());
  s->hash = fnv1a(text);
  return Value::object(h);
}

Value VM::newArray(std::size_t length, Value fill, Handle* near) {
  constexpr std::size_t maxLength = (std::numeric_limits<std::uint32_t>::max() - sizeof(ArrayObject)) / sizeof(Value);
  if (length > maxLength) {
    // The request in bytes, even when it does not fit in 64 bits.
    __extension__ typedef unsigned __int128 Wide;
    Wide bytes = static_cast<Wide>(length) * sizeof(Value) + sizeof(ArrayObject);
    std::string digits;
    do {
      digits.insert(digits.begin(), static_cast<char>('0' + static_cast<int>(bytes % 10)));
      bytes /= 10;
    } while (bytes != 0);
    throwError("out of memory: requested " + digits + " bytes");
  }
  Handle* h = allocateObject(builtinClass(ObjectKind::array), sizeof(ArrayObject) + length * sizeof(Value), near);
  auto* a = objectAt<ArrayObject>(h);
  a->length = length;
  for (std::size_t i = 0; i < length; ++i) a->elements()[i] = fill;
  return Value::object(h);
}

Handle* VM::newValueStorage(std::size_t length, Handle* owner) {
  Value v = newArray(length, Value::nil(), owner);  // same layout, its own class for the studies
  v.asHandle()->klass = builtinClass(ObjectKind::valueStorage);
  objectAt<ObjectHeader>(v)->classId = static_cast<std::uint32_t>(ObjectKind::valueStorage);
  return v.asHandle();
}

Handle* VM::newByteStorage(std::size_t capacity, Handle* owner) {
  if (capacity > std::numeric_limits<std::uint32_t>::max()) space_->throwOutOfMemory(capacity);
  Handle* h = allocateObject(builtinClass(ObjectKind::byteStorage), sizeof(ByteStorageObject) + capacity, owner);
  objectAt<ByteStorageObject>(h)->capacity = capacity;
  return h;
}

Value VM::newInstance(ClassInfo* klass, Handle* near) {
  Handle* h = allocateObject(klass, klass->instanceBytes(), near);
  auto* o = objectAt<InstanceObject>(h);
  for (std::size_t i = 0; i < klass->fieldSymbols.size(); ++i) o->fields()[i] = Value::nil();
  return Value::object(h);
}

Value VM::newBoundMethod(Value receiver, Value method) {
  RootScope roots(*this);
  Value& r = roots.root(receiver);
  Value& m = roots.root(method);
  Handle* h = allocateObject(builtinClass(ObjectKind::boundMethod), sizeof(BoundMethodObject));
  auto* b = objectAt<BoundMethodObject>(h);
  b->receiver = r;
  b->method = m;
  return Value::object(h);
}

Value VM::newList() {
  Handle* h = allocateObject(builtinClass(ObjectKind::list), sizeof(ListObject));
  auto* l = objectAt<ListObject>(h);
  l->storage = Value::nil();
  l->size = 0;
  return Value::object(h);
}

Value VM::newMap() {
  Handle* h = allocateObject(builtinClass(ObjectKind::map), sizeof(MapObject));
  auto* m = objectAt<MapObject>(h);
  m->entries = Value::nil();
  m->index = Value::nil();
  m->count = 0;
  m->used = 0;
  return Value::object(h);
}

Value VM::newStringBuilder() {
  Handle* h = allocateObject(builtinClass(ObjectKind::stringBuilder), sizeof(StringBuilderObject));
  auto* b = objectAt<StringBuilderObject>(h);
  b->buffer = Value::nil();
  b->length = 0;
  return Value::object(h);
}

}  // namespace kith::vm
