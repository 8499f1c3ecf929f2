// String methods: byteAt substring indexOf split hash (`length` is a property the
// VM answers itself). Strings are immutable byte strings; every result is new.
#include <cstring>
#include <vector>

#include "stdlib/arguments.h"
#include "stdlib/builtins.h"

namespace kith::stdlib {

using vm::Handle;
using vm::NativeFunction;
using vm::objectAt;
using vm::StringObject;
using vm::Value;
using vm::VM;

namespace {

[[noreturn]] void outOfBounds(VM& vm, std::int64_t index, std::uint64_t length) {
  vm.throwError("index " + std::to_string(index) + " out of bounds for length " + std::to_string(length));
}

// A new string holding bytes [from, from + length) of `source`, copied after the
// allocation through the handle (the allocation may move `source`).
Value substringOf(VM& vm, Handle* source, std::size_t from, std::size_t length) {
  Handle* result = vm.newStringUninitialized(length);
  std::memcpy(objectAt<StringObject>(result)->bytes(), objectAt<StringObject>(source)->bytes() + from, length);
  vm.finishString(result);
  return Value::object(result);
}

Value byteAt(VM& vm, Value* args, int) {
  auto* s = objectAt<StringObject>(args[-1]);
  std::int64_t i = intArgument(vm, args[0], "the index");
  if (i < 0 || static_cast<std::uint64_t>(i) >= s->length) outOfBounds(vm, i, s->length);
  return Value::integer(static_cast<unsigned char>(s->bytes()[i]));
}

Value substring(VM& vm, Value* args, int) {
  std::int64_t from = intArgument(vm, args[0], "substring's start");
  std::int64_t to = intArgument(vm, args[1], "substring's end");
  std::uint64_t length = objectAt<StringObject>(args[-1])->length;
  if (from < 0 || to < from || static_cast<std::uint64_t>(to) > length)
    vm.throwError("substring(" + std::to_string(from) + ", " + std::to_string(to) + ") out of bounds for length " +
                  std::to_string(length));
  return substringOf(vm, args[-1].asHandle(), static_cast<std::size_t>(from), static_cast<std::size_t>(to - from));
}

Value indexOf(VM& vm, Value* args, int) {
  stringArgument(vm, args[0], "indexOf's argument");
  std::string_view s = vm.stringView(args[-1]);
  std::size_t at = s.find(vm.stringView(args[0]));
  return Value::integer(at == std::string_view::npos ? -1 : static_cast<std::int64_t>(at));
}

Value split(VM& vm, Value* args, int) {
  stringArgument(vm, args[0], "split's separator");
  std::string separator(vm.stringView(args[0]));
  if (separator.empty()) vm.throwError("split: the separator must not be empty");
  // Offsets first (no allocation), then the array, then each piece.
  std::vector<std::pair<std::size_t, std::size_t>> pieces;
  std::string_view s = vm.stringView(args[-1]);
  for (std::size_t start = 0;;) {
    std::size_t at = s.find(separator, start);
    if (at == std::string_view::npos) {
      pieces.emplace_back(start, s.size() - start);
      break;
    }
    pieces.emplace_back(start, at - start);
    start = at + separator.size();
  }
  vm::RootScope roots(vm);
  Value& array = roots.root(vm.newArray(pieces.size(), Value::nil()));
  for (std::size_t i = 0; i < pieces.size(); ++i) {
    Value piece = substringOf(vm, args[-1].asHandle(), pieces[i].first, pieces[i].second);
    objectAt<vm::ArrayObject>(array)->elements()[i] = piece;
  }
  return array;
}

Value hash(VM&, Value* args, int) {
  return Value::integer(static_cast<std::int64_t>(objectAt<StringObject>(args[-1])->hash));
}

const NativeFunction kStringMethods[] = {
    {"byteAt", byteAt, 1, 1},   {"substring", substring, 2, 2}, {"indexOf", indexOf, 1, 1},
    {"split", split, 1, 1},     {"hash", hash, 0, 0},
};

}  // namespace

void installStringMethods(VM& vm) {
  for (const NativeFunction& f : kStringMethods) vm.defineNative(vm.builtinClass(vm::ObjectKind::string), &f);
}

}  // namespace kith::stdlib
