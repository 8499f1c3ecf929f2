// FreeBlockList: an intrusive doubly-linked list of free blocks (the DLList of
// Heap Layers). The two links live in the first 16 bytes of each block's payload,
// which every block has (kMinBlock), so the list costs nothing but its head and
// count, which live wherever the list object does. Push at the head, removal from
// anywhere in O(1) — what coalescing needs to pull a neighbour out of whatever
// list holds it. Not a heap layer; the free structures under CoalesceHeap
// (UnstructuredListHeap, LeaBinsHeap) are built from it.
#pragma once

#include <cstddef>
#include <new>
#include <string>

#include "heap/layer.h"

namespace kith::heap {

class FreeBlockList {
 public:
  struct Node {
    Node* prev;
    Node* next;
  };
  static_assert(sizeof(Node) <= kMinBlock, "the links must fit in the smallest payload");

  Node* head() const { return head_; }
  bool empty() const { return head_ == nullptr; }
  std::size_t count() const { return count_; }

  void pushFront(void* block) {
    Node* n = ::new (block) Node{nullptr, head_};
    if (head_) head_->prev = n;
    head_ = n;
    ++count_;
  }

  // `block` must be on this list.
  void remove(void* block) {
    auto* n = static_cast<Node*>(block);
    if (n->prev) n->prev->next = n->next;
    else head_ = n->next;
    if (n->next) n->next->prev = n->prev;
    --count_;
  }

  // Walks the list checking that prev and next agree and that it ends after
  // exactly count() nodes (so a loop is caught). "" when they hold.
  std::string checkLinks() const {
    const Node* prev = nullptr;
    std::size_t seen = 0;
    for (const Node* n = head_; n; prev = n, n = n->next) {
      if (n->prev != prev) return "node " + std::to_string(seen) + "'s back link is wrong";
      if (++seen > count_) return "more than the " + std::to_string(count_) + " nodes counted (a loop?)";
    }
    if (seen != count_)
      return std::to_string(seen) + " nodes but " + std::to_string(count_) + " counted";
    return "";
  }

 private:
  Node* head_ = nullptr;
  std::size_t count_ = 0;
};

}  // namespace kith::heap
