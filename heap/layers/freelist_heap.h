// FreelistHeap: caches freed blocks for reuse on a LIFO singly-linked list
// threaded through the blocks themselves. malloc pops the most recently freed
// block, else asks Super; free pushes. Both O(1).
//
// It hands out whatever block it has cached, whatever size is asked, so every
// request it sees must be for one size class: StrictSegHeap and SegHeap give each
// class its own FreelistHeap and always ask it for the class's full size.
// Metadata: the link is the first word of each free block (blocks are >= 16 bytes);
// only the list head lives in this object. The destructor returns the cached
// blocks to Super, unless Super's free does nothing (then it reads none of them).
#pragma once

#include <cstddef>
#include <new>

#include "heap/layer.h"

namespace kith::heap {

template <class Super>
class FreelistHeap : public Super {
  static_assert(HeapLayer<Super>, "FreelistHeap needs Super::malloc and Super::free");
  static constexpr bool kDropsBlocks = requires { requires Super::kFreeDoesNothing; };

 public:
  using Super::Super;
  FreelistHeap() = default;
  FreelistHeap(const FreelistHeap&) = delete;  // the list would be owned twice
  FreelistHeap& operator=(const FreelistHeap&) = delete;
  ~FreelistHeap()
    requires(!kDropsBlocks)
  {
    releaseList(head_, [this](Node* n) { Super::free(n); });
  }
  // Over a heap whose free does nothing (NullHeap), the cached blocks are dropped
  // unread: the destructor is trivial, and may run after their memory is gone.
  ~FreelistHeap() = default;

  void* malloc(std::size_t size) {
    if (Node* n = head_) {
      head_ = n->next;
      return n;
    }
    return Super::malloc(size);  // nullptr propagates upward on exhaustion
  }

  void free(void* ptr) {
    if (ptr) head_ = ::new (ptr) Node{head_};
  }

  // Calls fn(block) for each cached block, most recently freed first. Returns
  // false if the list loops back on itself (a block freed twice); Brent's cycle
  // check, so a loop is caught within about twice its length.
  template <class Fn>
  bool forEachFree(Fn&& fn) const {
    const Node* mark = head_;
    std::size_t sinceMark = 0, stride = 1;
    for (const Node* n = head_; n; n = n->next) {
      fn(static_cast<void*>(const_cast<Node*>(n)));
      if (n->next == mark) return false;
      if (++sinceMark == stride) {
        mark = n->next;
        sinceMark = 0;
        stride *= 2;
      }
    }
    return true;
  }

 private:
  struct Node {
    Node* next;
  };
  Node* head_ = nullptr;
};

}  // namespace kith::heap
