// The compiler's region: its temporary data (scopes, locals, jump lists, code blocks)
// lives in a ZoneHeap over the system allocator, released in one step when
// compilation ends; std containers reach it through ZoneAllocator.
#pragma once

#include <cstddef>
#include <functional>
#include <limits>
#include <new>
#include <string>
#include <string_view>
#include <unordered_set>
#include <vector>

#include "heap/adapters/malloc_heap.h"
#include "heap/layers/zone_heap.h"

namespace kith::vm {

// The system allocator, counting the bytes the zone takes (its chunks).
class CountingMallocHeap : public heap::MallocHeap {
 public:
  void* malloc(std::size_t size) {
    bytes_ += size;
    return heap::MallocHeap::malloc(size);
  }
  std::size_t bytes() const { return bytes_; }

 private:
  std::size_t bytes_ = 0;
};
using CompilerZone = heap::ZoneHeap<CountingMallocHeap, 16 * 1024>;

// A std allocator over the zone: deallocate does nothing; the zone frees all at once.
template <class T>
struct ZoneAllocator {
  using value_type = T;
  CompilerZone* zone;
  explicit ZoneAllocator(CompilerZone* z) : zone(z) {}
  template <class U>
  ZoneAllocator(const ZoneAllocator<U>& other) : zone(other.zone) {}
  T* allocate(std::size_t n) {
    if (n > std::numeric_limits<std::size_t>::max() / sizeof(T)) throw std::bad_alloc();
    void* p = zone->malloc(n * sizeof(T));
    if (!p) throw std::bad_alloc();
    return static_cast<T*>(p);
  }
  void deallocate(T*, std::size_t) {}
  template <class U>
  bool operator==(const ZoneAllocator<U>& o) const { return zone == o.zone; }
};

template <class T>
using ZoneVector = std::vector<T, ZoneAllocator<T>>;
using ZoneString = std::basic_string<char, std::char_traits<char>, ZoneAllocator<char>>;
using ZoneNameSet = std::unordered_set<std::string_view, std::hash<std::string_view>,
                                       std::equal_to<std::string_view>, ZoneAllocator<std::string_view>>;

}  // namespace kith::vm
