// Allotheque chunk attributes (TR07-003 §3.1, §4.3). An attribute maps a chunk to
// an integral class key, so that a partition by it is an equivalence relation
// (same key = same class) and keys are ordered. Implicit attributes are computed
// from the chunk's address and never stored (page, cache line, K-bit, SK-bit);
// the explicit one, size, is stored — here once per page (allo_request.h).
//
// Each attribute offers
//   static Key read(const void* chunk, const Context&)        the chunk's class
//   static std::optional<Key> target(const Request&, const Context&)
//                                       the class a request asks for, if any
//   static std::size_t classes(const Context&)   an upper bound on keys + 1, for
//                                       tables indexed by key (0 = unbounded)
// Implicit attributes are relative to the arena base, so class 0 is its first.
#pragma once

#include <bit>
#include <cstddef>
#include <cstdint>
#include <optional>

#include "heap/allotheque/allo_request.h"

namespace kith::heap::allotheque {

using Key = std::size_t;

template <class A>
concept Attribute = requires(const void* p, const Request& r, const Context& c) {
  { A::read(p, c) } -> std::same_as<Key>;
  { A::target(r, c) } -> std::same_as<std::optional<Key>>;
  { A::classes(c) } -> std::same_as<std::size_t>;
  { A::kImplicit } -> std::convertible_to<bool>;
};

// Address bits above `Shift`: the TR's K-bit relation ("two addresses are
// equivalent iff their K higher-order bits are the same"), with the class width
// 2^Shift given directly instead of 32 - K. Two chunks of one class are K-close:
// less than 2^Shift bytes apart. A hint outside the arena asks for no class.
template <unsigned Shift>
struct KBit {
  static constexpr bool kImplicit = true;
  static constexpr unsigned kShift = Shift;
  static Key read(const void* p, const Context& c) { return c.offset(p) >> Shift; }
  static std::optional<Key> target(const Request& r, const Context& c) {
    if (!r.hint || !c.contains(r.hint)) return std::nullopt;
    return read(r.hint, c);
  }
  static std::size_t classes(const Context& c) { return (c.bytes() + (std::size_t{1} << Shift) - 1) >> Shift; }
};

template <unsigned Shift>
inline bool kClose(const void* a, const void* b) {
  return (reinterpret_cast<std::uintptr_t>(a) >> Shift) == (reinterpret_cast<std::uintptr_t>(b) >> Shift);
}

using Page = KBit<kPageShift>;  // same virtual page
using CacheLine = KBit<6>;      // same 64-byte cache line

// Medius' SK-bit relation: address bits Shift .. Shift+Bits-1 only, ignoring the
// bits above. 2^Bits classes; two chunks of one class are either less than
// 2^Shift apart or at least 2^(Shift+Bits) apart (TR §6.2).
template <unsigned Shift, unsigned Bits>
struct SKBit {
  static constexpr bool kImplicit = true;
  static Key read(const void* p, const Context& c) { return (c.offset(p) >> Shift) & ((Key{1} << Bits) - 1); }
  static std::optional<Key> target(const Request& r, const Context& c) {
    if (!r.hint || !c.contains(r.hint)) return std::nullopt;
    return read(r.hint, c);
  }
  static std::size_t classes(const Context&) { return std::size_t{1} << Bits; }
};

// The explicit attribute: the chunk's size in bytes (its page's entry).
struct Size {
  static constexpr bool kImplicit = false;
  static Key read(const void* p, const Context& c) { return c.sizeOf(p); }
  static std::optional<Key> target(const Request& r, const Context&) { return r.size; }
  static std::size_t classes(const Context&) { return 0; }  // unbounded: lists only
};

// Segregated size (TR §6): sizes 16..128 in steps of 16 are one class each, then
// powers of two to one page, then powers of two of pages. A heap using it rounds
// every request up to its class's size (segregatedRound), so all chunks of a class
// have the same size and any of them fits.
struct SegregatedSize {
  static constexpr bool kImplicit = false;
  static constexpr std::size_t kSmallClasses = 8;  // 16, 32, ..., 128
  static constexpr Key classOf(std::size_t size) {
    if (size <= 128) return size <= 16 ? 0 : (size + 15) / 16 - 1;
    return kSmallClasses + (std::bit_width(size - 1) - 8);  // 256 -> 8, 512 -> 9, ...
  }
  static constexpr std::size_t classSize(Key k) {
    return k < kSmallClasses ? (k + 1) * 16 : std::size_t{256} << (k - kSmallClasses);
  }
  static Key read(const void* p, const Context& c) { return classOf(c.sizeOf(p)); }
  static std::optional<Key> target(const Request& r, const Context&) { return classOf(r.size); }
  static std::size_t classes(const Context& c) { return classOf(c.bytes() < 256 ? 256 : c.bytes()) + 1; }
};

}  // namespace kith::heap::allotheque
