// Allotheque (Jula & Rauchwerger, TR07-003 §3.3): a request carries the chunk's
// attributes — its size, and optionally a hint address the chunk should be near —
// and every partition reads the attribute it is keyed by from the request. A
// deallocation is a request too: the chunk's address and its size (TR Fig. 2).
//
// The Context is what attributes may read besides the address: the arena's base
// (implicit attributes are computed relative to it, so class numbers start at 0)
// and the per-page size table that stores the one explicit attribute, size, once
// per page rather than once per chunk (TR footnote 3: "once ... for all chunks in
// the bucket as in the segregated approaches"). The table is reserved, not filled
// (allo_zero_table.h): a page's entry costs memory once the page is handed out.
#pragma once

#include <cstddef>
#include <cstdint>

#include "heap/allotheque/allo_zero_table.h"

namespace kith::heap::allotheque {

inline constexpr unsigned kPageShift = 12;  // the TR's allocators take 4 KiB pages
inline constexpr std::size_t kPageBytes = std::size_t{1} << kPageShift;

struct Request {
  std::size_t size = 0;          // mandatory attribute, already rounded by the heap
  const void* hint = nullptr;    // optional: allocate near this address
};

// One entry per arena page: the size of the chunks carved from it, or of the
// large chunk starting there; 0 for a page not handed out yet (or the tail of a
// large chunk).
class Context {
 public:
  Context(std::byte* base, std::size_t bytes)
      : base_(base), bytes_(bytes), sizes_(bytes >> kPageShift) {}
  std::byte* base() const { return base_; }
  std::size_t bytes() const { return bytes_; }
  std::size_t pages() const { return sizes_.size(); }
  bool contains(const void* p) const {
    auto* b = static_cast<const std::byte*>(p);
    return b >= base_ && b < base_ + bytes_;
  }
  std::size_t offset(const void* p) const {
    return static_cast<std::size_t>(static_cast<const std::byte*>(p) - base_);
  }
  std::size_t pageOf(const void* p) const { return offset(p) >> kPageShift; }
  std::size_t sizeOf(const void* chunk) const { return sizes_[pageOf(chunk)]; }
  void setPageSize(std::size_t page, std::size_t size) { sizes_[page] = static_cast<std::uint32_t>(size); }

 private:
  std::byte* base_;
  std::size_t bytes_;
  ZeroTable<std::uint32_t> sizes_;
};

}  // namespace kith::heap::allotheque
