// Value: what the interpreter pushes, stores in locals, fields and array elements.
// 8 bytes, as in a JVM: a 64-bit word whose ranges encode the type (pointer tagging
// with offset doubles, after JavaScriptCore's JSValue):
//   0x0000_0000_0000_0000          nil (so zeroed memory and Value{} are nil)
//   0x0000_pppp_pppp_ppp0|tag      a pointer, 8-aligned, tag in the low 3 bits:
//                                    0 object Handle*, 1 boxed-int Handle*,
//                                    2 ClassInfo*, 3 NativeFunction*
//   0x0000_0000_0000_00{04,0C,14}  false, true, undefined (tag 4)
//   0x0001_xxxx_xxxx_xxxx          an int in 48 bits (-2^47 .. 2^47-1)
//   0x0002_... to 0xFFF2_...        a double: its bits + 2^49 (every double but the
//                                    NaNs with a high payload, which become the
//                                    canonical NaN)
// Doubles are everything from 2^49 up, so "is a float" is one compare: the float
// loops (mandelbrot, nbody) test it twice per operation.
// An int outside 48 bits is boxed: a Handle of class "boxed int" whose `object`
// word holds the 64 bits (ObjectSpace::boxInteger); it is an int to every reader, and the
// collectors mark and free boxes like objects (they live outside the studied heap,
// in the handle table, like Java's method area: see docs/ARCHITECTURE.md "8-byte values").
// Object references are raw Handle* (top bits zero), so Boehm's conservative
// scan of an object still finds them. A Value that refers to a heap object holds
// its Handle*, never the object's address, so the heap may move the object
// (defragmentation) without touching any Value. Classes and native functions live
// outside the studied heap (the "method area") and are referred to by pointers.
#pragma once

#include <bit>
#include <cstdint>
#include <string>

#include "vm/handle_table.h"

namespace kith::vm {

struct ClassInfo;
struct NativeFunction;

enum class ValueType : std::uint8_t {
  nil,
  boolean,
  integer,   // 48 bits inline, or boxed
  floating,
  object,     // asHandle(): a heap object (string, array, instance, closure, ...)
  klass,      // asClass(): a class (method area)
  native,     // asNative(): a built-in function (method area)
  undefined,  // internal: a global whose declaration has not run; a deleted map entry
};

// Makes the box for an int outside 48 bits (the running VM's handle table; boxed_int.cpp).
Handle* boxInteger(std::int64_t i);

struct Value {
  std::uint64_t bits;

  static constexpr std::uint64_t kPointerTagMask = 7;
  static constexpr std::uint64_t kTopMask = 0xFFFF000000000000ULL;
  static constexpr std::uint64_t kObjectTag = 0, kBoxedIntTag = 1, kClassTag = 2, kNativeTag = 3, kSpecialTag = 4;
  static constexpr std::uint64_t kFalse = kSpecialTag, kTrue = kSpecialTag + 8, kUndefined = kSpecialTag + 16;
  static constexpr std::uint64_t kIntTag = 0x0001000000000000ULL;
  static constexpr std::uint64_t kIntPayload = kIntTag - 1;
  static constexpr std::uint64_t kDoubleOffset = 0x0002000000000000ULL;
  static constexpr std::int64_t kSmallIntMin = -(std::int64_t{1} << 47), kSmallIntMax = (std::int64_t{1} << 47) - 1;
  static constexpr std::uint64_t kCanonicalNaN = 0x7FF8000000000000ULL;

  // Trivially default-constructible on purpose: the VM stack is a large block
  // that should not be touched (committed) before it is used.
  static Value fromBits(std::uint64_t b) { Value v; v.bits = b; return v; }
  static Value nil() { return fromBits(0); }
  static Value undefined() { return fromBits(kUndefined); }
  static Value boolean(bool b) { return fromBits(b ? kTrue : kFalse); }
  static bool fitsSmallInt(std::int64_t i) { return (static_cast<std::int64_t>(static_cast<std::uint64_t>(i) << 16) >> 16) == i; }
  // i must fit 48 bits (fitsSmallInt): the interpreter's fast paths.
  static Value smallInt(std::int64_t i) { return fromBits((static_cast<std::uint64_t>(i) & kIntPayload) | kIntTag); }
  static Value integer(std::int64_t i) {
    if (fitsSmallInt(i)) [[likely]] return smallInt(i);
    return fromBits(reinterpret_cast<std::uintptr_t>(boxInteger(i)) | kBoxedIntTag);
  }
  // NaNs whose payload would leave the double range become the canonical NaN;
  // arithmetic on doubles already in range cannot make such a NaN (x86's default
  // NaN is 0xFFF8...), so the interpreter's fast paths use rawFloat.
  static Value floating(double d) {
    if (d != d) return fromBits(kCanonicalNaN + kDoubleOffset);
    return rawFloat(d);
  }
  static Value rawFloat(double d) { return fromBits(std::bit_cast<std::uint64_t>(d) + kDoubleOffset); }
  static Value object(Handle* h) { return fromBits(reinterpret_cast<std::uintptr_t>(h)); }
  static Value klassValue(ClassInfo* c) { return fromBits(reinterpret_cast<std::uintptr_t>(c) | kClassTag); }
  static Value nativeValue(const NativeFunction* n) { return fromBits(reinterpret_cast<std::uintptr_t>(n) | kNativeTag); }

  bool isNil() const { return bits == 0; }
  bool isBool() const { return bits == kFalse || bits == kTrue; }
  bool isSmallInt() const { return (bits >> 48) == 1; }
  // Both inline ints, with one branch: a small int's top 16 bits are exactly kIntTag's.
  static bool bothSmallInts(Value a, Value b) { return (((a.bits ^ kIntTag) | (b.bits ^ kIntTag)) >> 48) == 0; }
  // An inline int's payload shifted to the top: compares as its int does (no sign extension).
  std::int64_t smallIntShifted() const { return static_cast<std::int64_t>(bits << 16); }
  bool isFloat() const { return bits >= kDoubleOffset; }
  bool isObject() const { return bits != 0 && isPointerWithTag(kObjectTag); }
  bool isBoxedInt() const { return isPointerWithTag(kBoxedIntTag); }
  // An object or a boxed int: a Handle the collectors mark (handle()).
  bool holdsHandle() const { return bits != 0 && (bits & (kTopMask | (kPointerTagMask - 1))) == 0; }
  bool isInt() const { return isSmallInt() || isBoxedInt(); }
  bool isNumber() const { return isFloat() || isInt(); }
  bool isClass() const { return isPointerWithTag(kClassTag); }
  bool isNative() const { return isPointerWithTag(kNativeTag); }
  // A pointer (top 16 bits zero) with this tag in its low 3 bits.
  bool isPointerWithTag(std::uint64_t tag) const { return (bits & (kTopMask | kPointerTagMask)) == tag; }
  bool isUndefined() const { return bits == kUndefined; }
  bool isFalsy() const { return (bits | kFalse) == kFalse; }  // nil or false

  ValueType type() const {
    if (bits >= kDoubleOffset) return ValueType::floating;
    if (bits >= kIntTag) return ValueType::integer;
    if (bits == 0) return ValueType::nil;
    switch (bits & kPointerTagMask) {
      case kObjectTag: return ValueType::object;
      case kBoxedIntTag: return ValueType::integer;
      case kClassTag: return ValueType::klass;
      case kNativeTag: return ValueType::native;
      default: return bits == kUndefined ? ValueType::undefined : ValueType::boolean;
    }
  }

  bool asBool() const { return bits == kTrue; }
  std::int64_t asSmallInt() const { return static_cast<std::int64_t>(bits << 16) >> 16; }
  inline std::int64_t asInt() const;  // after Handle's definition (handle_table.h)
  double asFloat() const { return std::bit_cast<double>(bits - kDoubleOffset); }
  // isFloat and asFloat's bits in one: the subtraction's borrow is the type test, so a
  // float operand costs one sub and one branch (the interpreter's float fast paths).
  bool floatBits(std::uint64_t& raw) const {
#if defined(__GNUC__)
    return !__builtin_sub_overflow(bits, kDoubleOffset, &raw);  // gcc tests the sub's carry
#else
    raw = bits - kDoubleOffset;
    return bits >= kDoubleOffset;
#endif
  }
  Handle* asHandle() const { return reinterpret_cast<Handle*>(bits); }
  Handle* handle() const { return reinterpret_cast<Handle*>(bits & ~kPointerTagMask); }
  ClassInfo* asClass() const { return reinterpret_cast<ClassInfo*>(bits & ~kPointerTagMask); }
  const NativeFunction* asNative() const { return reinterpret_cast<const NativeFunction*>(bits & ~kPointerTagMask); }
  double toDouble() const { return isSmallInt() ? static_cast<double>(asSmallInt()) : isFloat() ? asFloat() : static_cast<double>(asInt()); }
  // The same Value: same bits (identity; numbers compare with numbersEqual).
  bool sameAs(Value other) const { return bits == other.bits; }
};
static_assert(sizeof(Value) == 8, "Values are 8 bytes");

// A boxed int's 64 bits are its handle's `object` word.
inline std::int64_t Value::asInt() const {
  if (isSmallInt()) [[likely]] return asSmallInt();
  return static_cast<std::int64_t>(reinterpret_cast<std::uintptr_t>(handle()->object));
}

// The interpreter's hottest writes: one 8-byte store each.
inline void storeSmallInt(Value* slot, std::int64_t i) { *slot = Value::smallInt(i); }
inline void storeFloat(Value* slot, double d) { *slot = Value::rawFloat(d); }
inline void storeBool(Value* slot, bool b) { *slot = Value::boolean(b); }

// Python's repr of a double: shortest round-trip digits, exponent form when the
// decimal exponent is below -4 or at least 16 ("1e-05", "1e+16", "0.1", "2.0").
std::string formatFloat(double d);

// 1 == 1.0; 2^53 + 1 != 2^53 as a double (compared exactly, not through double).
bool numbersEqual(Value a, Value b);
// a < b for two numbers, exactly (mixed int/float compared without rounding).
bool numberLess(Value a, Value b);

}  // namespace kith::vm
