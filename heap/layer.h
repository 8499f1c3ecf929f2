// The heap-layer contract every layer and policy in heap/ follows.
//
// A heap layer is a mixin `template <class Super> class X : public Super` with
//   void* malloc(std::size_t size);   // nullptr when out of memory, never throws
//   void  free(void* ptr);            // ptr came from this heap's malloc
// and optionally the hinted  void* malloc(std::size_t size, const void* near)
// (see mallocNear below: layers without one ignore hints),
// and, where it can answer, std::size_t getSize(void* ptr) (the usable size).
// Out of memory propagates as nullptr through every layer. No layer inside a
// composition uses virtual calls; only the type-erased `Heap` (heap.h) does, once,
// at the boundary to the rest of the program.
#pragma once

#include <bit>
#include <concepts>
#include <cstddef>
#include <cstdint>

namespace kith::heap {

// Every block is 16-byte aligned and at least 16 bytes, as in the JDK the study used.
inline constexpr std::size_t kAlignment = 16;
inline constexpr std::size_t kMinBlock = 16;

constexpr std::size_t alignUp(std::size_t n, std::size_t a = kAlignment) {
  return (n + a - 1) & ~(a - 1);
}

inline bool isAligned(const void* p, std::size_t a = kAlignment) {
  return (reinterpret_cast<std::uintptr_t>(p) & (a - 1)) == 0;
}

// Smallest k with 2^k >= n (n >= 1).
constexpr unsigned ceilLog2(std::size_t n) {
  return n <= 1 ? 0u : static_cast<unsigned>(std::bit_width(n - 1));
}

template <class H>
concept HeapLayer = requires(H h, std::size_t n, void* p) {
  { h.malloc(n) } -> std::same_as<void*>;
  { h.free(p) } -> std::same_as<void>;
};

template <class H>
concept SizedHeap = HeapLayer<H> && requires(H h, void* p) {
  { h.getSize(p) } -> std::convertible_to<std::size_t>;
};

// The hinted entry point (Allotheque's request with a hint address, TR07-003
// §3.3): allocate `size` bytes near `near` where the heap has a notion of
// locality (a member malloc(size, near)); every other heap ignores the hint and
// this is its plain malloc(size). So every layer and policy takes hints unchanged.
template <class H>
void* mallocNear(H& h, std::size_t size, const void* near) {
  if constexpr (requires { { h.malloc(size, near) } -> std::same_as<void*>; }) return h.malloc(size, near);
  else return h.malloc(size);
}

// Hands every node of an intrusive singly-linked list (a `next` field) to `release`,
// emptying the list: a layer's destructor giving back to Super what it took.
template <class Node, class Release>
void releaseList(Node*& head, Release release) {
  while (Node* node = head) {
    head = node->next;
    release(node);
  }
}

}  // namespace kith::heap
