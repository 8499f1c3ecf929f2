// Value: what the interpreter pushes, stores in locals, fields and array elements.
// 16 bytes: a type tag and an 8-byte payload. A Value that refers to a heap object
// holds the object's Handle* (handle_table.h), never the object's address, so the
// heap may move the object (defragmentation) without touching any Value.
// Classes and native functions live outside the studied heap (the "method area")
// and are referred to by plain pointers.
#pragma once

#include <bit>
#include <cstdint>
#include <string>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

namespace kith::vm {

struct Handle;
struct ClassInfo;
struct NativeFunction;

enum class ValueType : std::uint8_t {
  nil,
  boolean,
  integer,
  floating,
  object,     // as.handle: a heap object (string, array, instance, closure, ...)
  klass,      // as.klass: a class (method area)
  native,     // as.native: a built-in function (method area)
  undefined,  // internal: a global whose declaration has not run; a deleted map entry
};

struct Value {
  ValueType type;
  union {
    bool boolean;
    std::int64_t integer;
    double floating;
    Handle* handle;
    ClassInfo* klass;
    const NativeFunction* native;
  } as;

  // Trivially default-constructible on purpose: the VM stack is a large block
  // that should not be touched (committed) before it is used.
  static Value nil() { Value v; v.type = ValueType::nil; v.as.integer = 0; return v; }
  static Value undefined() { Value v; v.type = ValueType::undefined; v.as.integer = 0; return v; }
  static Value boolean(bool b) { Value v; v.type = ValueType::boolean; v.as.integer = 0; v.as.boolean = b; return v; }
  static Value integer(std::int64_t i) { Value v; v.type = ValueType::integer; v.as.integer = i; return v; }
  static Value floating(double d) { Value v; v.type = ValueType::floating; v.as.floating = d; return v; }
  static Value object(Handle* h) { Value v; v.type = ValueType::object; v.as.handle = h; return v; }
  static Value klassValue(ClassInfo* c) { Value v; v.type = ValueType::klass; v.as.klass = c; return v; }
  static Value nativeValue(const NativeFunction* n) { Value v; v.type = ValueType::native; v.as.native = n; return v; }

  bool isNil() const { return type == ValueType::nil; }
  bool isBool() const { return type == ValueType::boolean; }
  bool isInt() const { return type == ValueType::integer; }
  bool isFloat() const { return type == ValueType::floating; }
  bool isNumber() const { return type == ValueType::integer || type == ValueType::floating; }
  bool isObject() const { return type == ValueType::object; }
  bool isClass() const { return type == ValueType::klass; }
  bool isNative() const { return type == ValueType::native; }
  bool isUndefined() const { return type == ValueType::undefined; }
  bool isFalsy() const { return type == ValueType::nil || (type == ValueType::boolean && !as.boolean); }
  double toDouble() const { return isInt() ? static_cast<double>(as.integer) : as.floating; }
};
static_assert(sizeof(Value) == 16, "Values are 16 bytes: tag + payload");

// Writes a whole Value, tag and payload, with one 16-byte store. The interpreter copies
// Values with 16-byte loads, and a load that spans narrower stores still in the store
// buffer cannot be forwarded from them: a stall of a dozen cycles or more, most of
// sieve's time in `perf annotate` when the arithmetic opcodes wrote only the payload.
// For the interpreter's hottest writes; elsewhere Value's factories do.
inline void storeValue(Value* slot, ValueType type, std::uint64_t payload) {
#if defined(__SSE2__)
  __m128i whole = _mm_set_epi64x(static_cast<long long>(payload), static_cast<long long>(type));
  _mm_storeu_si128(reinterpret_cast<__m128i*>(slot), whole);
#else
  *slot = Value::integer(static_cast<std::int64_t>(payload));
  slot->type = type;
#endif
}
inline void storeInt(Value* slot, std::int64_t i) { storeValue(slot, ValueType::integer, static_cast<std::uint64_t>(i)); }
inline void storeFloat(Value* slot, double d) { storeValue(slot, ValueType::floating, std::bit_cast<std::uint64_t>(d)); }
inline void storeBool(Value* slot, bool b) { storeValue(slot, ValueType::boolean, b ? 1 : 0); }

// Python's repr of a double: shortest round-trip digits, exponent form when the
// decimal exponent is below -4 or at least 16 ("1e-05", "1e+16", "0.1", "2.0").
std::string formatFloat(double d);

// 1 == 1.0; 2^53 + 1 != 2^53 as a double (compared exactly, not through double).
bool numbersEqual(Value a, Value b);
// a < b for two numbers, exactly (mixed int/float compared without rounding).
bool numberLess(Value a, Value b);

}  // namespace kith::vm
