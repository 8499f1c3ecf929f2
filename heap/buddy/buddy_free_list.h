// BuddyFreeList: one doubly-linked list of free buddy blocks of one size, as in
// Knuth's list display. The links live inside the free blocks themselves (two
// pointers, exactly the 16-byte minimum block), so the list costs one head
// pointer outside the arena. Push, pop and unlinking any member are O(1): a
// buddy heap must be able to pull a block's buddy off its list without a search.
#pragma once

#include <cstddef>
#include <new>

namespace kith::heap {

class BuddyFreeList {
 public:
  // Written into the first 16 bytes of a free block.
  struct Node {
    Node* prev;
    Node* next;
  };
  static_assert(sizeof(Node) <= 16, "a free-list node must fit the 16-byte minimum block");

  bool empty() const { return head_ == nullptr; }
  Node* front() const { return head_; }

  void push(void* block) {
    Node* n = ::new (block) Node{nullptr, head_};
    if (head_) head_->prev = n;
    head_ = n;
  }

  // push() onto a list the caller knows is empty: no old head to link back.
  void pushOnEmpty(void* block) { head_ = ::new (block) Node{nullptr, nullptr}; }

  void remove(void* block) {
    Node* n = static_cast<Node*>(block);
    (n->prev ? n->prev->next : head_) = n->next;
    if (n->next) n->next->prev = n->prev;
  }

  // The first block, unlinked; nullptr when the list is empty.
  void* pop() {
    Node* n = head_;
    if (n) {
      head_ = n->next;
      if (head_) head_->prev = nullptr;
    }
    return n;
  }

 private:
  Node* head_ = nullptr;
};

}  // namespace kith::heap
