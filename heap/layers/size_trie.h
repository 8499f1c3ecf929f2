// SizeTrie: free blocks ordered by size in a bitwise trie — dlmalloc 2.8's
// "treebin" — so that best fit is a walk down one path, never a scan of the blocks.
// Not a heap layer: LeaBinsHeap keeps one per ranged bin (lea_bins_heap.h).
//
// Every size the trie holds agrees above bit TopBit (a bin's sizes share their
// leading bits) and is a multiple of 16, so a size is keyed by its bits TopBit..4,
// most significant first. A node at depth d has the key bits of its path for its
// first d bits and any bits below: a node's left subtree holds only sizes smaller
// than its right subtree's, but the node itself can be anything its path allows.
// Blocks of the same size share one tree node: the first is in the tree, the rest
// hang on its ring (a circular doubly-linked list). So
//
//   path length   at most kPathNodes(TopBit) = TopBit - 2 nodes from the root to a
//                 leaf (one per key bit, plus the root), however many blocks it holds
//   insert        descend to the first empty child or to the node of equal size:
//                 <= path length nodes looked at, + 1 link
//   remove        a ring mate, or the last leaf below the node, takes its place:
//                 <= path length nodes looked at, + 1 unlink
//   bestFit(n)    walk n's path keeping the smallest size >= n seen, and the
//                 deepest right subtree not taken (all its sizes exceed n); then
//                 that subtree's leftmost path: <= 2 x path length nodes
//   smallest()    the leftmost path: <= path length
//   largest()     the rightmost path: <= path length
// Each operation adds the nodes it looked at and the links it changed to the
// caller's step counter.
//
// Metadata: the root and a count in this object; the node (ring links, two
// children, parent, size, a tree flag: 56 bytes) in each free block's payload, so
// only blocks with at least 56 usable bytes can be filed (Lea's ranged bins start
// at 528).
#pragma once

#include <cassert>
#include <cstddef>
#include <cstdint>
#include <new>
#include <string>
#include <vector>

#include "heap/layer.h"

namespace kith::heap {

class SizeTrie {
 public:
  struct Node {
    Node* prev;  // the ring of blocks of this size
    Node* next;
    Node* child[2];
    Node* parent;  // the tree node above; nullptr at the root and off the tree
    std::size_t size;
    bool inTree;  // the ring's one tree node
  };

  static constexpr unsigned kLowestKeyBit = 4;  // sizes are multiples of 16
  // Nodes on a root-to-leaf path of a trie keyed from bit `topBit` down to bit 4.
  static constexpr std::size_t pathNodes(unsigned topBit) { return topBit - kLowestKeyBit + 2; }

  constexpr SizeTrie() = default;
  constexpr explicit SizeTrie(unsigned topBit) : topBit_(topBit) {}

  unsigned topBit() const { return topBit_; }
  bool empty() const { return root_ == nullptr; }
  std::size_t count() const { return count_; }

  // Files `block` (at least sizeof(Node) bytes of payload) as a free block of `size`.
  void insert(void* block, std::size_t size, std::size_t& steps) {
    Node* x = ::new (block) Node{nullptr, nullptr, {nullptr, nullptr}, nullptr, size, true};
    ++count_;
    ++steps;  // the link
    x->prev = x->next = x;
    if (root_ == nullptr) {
      root_ = x;
      return;
    }
    Node* t = root_;
    std::size_t key = keyOf(size);
    for (;;) {
      ++steps;
      if (t->size == size) {  // join t's ring, off the tree
        Node* f = t->next;
        t->next = f->prev = x;
        x->next = f;
        x->prev = t;
        x->inTree = false;
        return;
      }
      Node*& c = t->child[key >> 63];
      key <<= 1;
      if (c == nullptr) {
        c = x;
        x->parent = t;
        return;
      }
      t = c;
    }
  }

  // Unlinks `block`, which this trie holds.
  void remove(void* block, std::size_t& steps) {
    Node* x = static_cast<Node*>(block);
    Node* r = nullptr;  // what takes x's place in the tree
    ++steps;            // the unlink
    --count_;
    if (x->next != x) {  // a ring mate: it inherits x's place if x had one
      r = x->prev;
      x->next->prev = r;
      r->next = x->next;
    } else if (Node** rp = x->child[1] ? &x->child[1] : x->child[0] ? &x->child[0] : nullptr) {
      // The last leaf below x (rightmost first): any of them keeps x's path.
      r = *rp;
      for (;;) {
        ++steps;
        Node** cp = r->child[1] ? &r->child[1] : r->child[0] ? &r->child[0] : nullptr;
        if (cp == nullptr) break;
        rp = cp;
        r = *cp;
      }
      *rp = nullptr;
    }
    if (!x->inTree) return;
    if (x == root_) {
      root_ = r;
    } else {
      Node* p = x->parent;
      p->child[p->child[0] == x ? 0 : 1] = r;
    }
    if (r != nullptr) {
      r->inTree = true;
      r->parent = x->parent;
      r->child[0] = x->child[0];
      r->child[1] = x->child[1];
      if (r->child[0]) r->child[0]->parent = r;
      if (r->child[1]) r->child[1]->parent = r;
    }
  }

  // The smallest block of at least `need` bytes, or nullptr; it stays filed. Of
  // equal sizes, the tree node (the one filed first). `need` must agree with the
  // trie's sizes above bit TopBit (a request in the trie's bin).
  void* bestFit(std::size_t need, std::size_t& steps) const {
    Node* best = nullptr;
    std::size_t bestExcess = SIZE_MAX;
    Node* rightNotTaken = nullptr;  // deepest right subtree passed over: every size in it > need
    std::size_t key = keyOf(need);
    for (Node* t = root_; t != nullptr;) {
      ++steps;
      if (t->size >= need && t->size - need < bestExcess) {
        best = t;
        bestExcess = t->size - need;
        if (bestExcess == 0) return best;
      }
      Node* right = t->child[1];
      t = t->child[key >> 63];
      key <<= 1;
      if (right != nullptr && right != t) rightNotTaken = right;
    }
    for (Node* t = rightNotTaken; t != nullptr; t = t->child[0] ? t->child[0] : t->child[1]) {
      ++steps;
      if (t->size - need < bestExcess) {
        best = t;
        bestExcess = t->size - need;
      }
    }
    return best;
  }

  void* smallest(std::size_t& steps) const {
    Node* best = nullptr;
    for (Node* t = root_; t != nullptr; t = t->child[0] ? t->child[0] : t->child[1]) {
      ++steps;
      if (best == nullptr || t->size < best->size) best = t;
    }
    return best;
  }

  // A block of the largest size held, or nullptr (not counted: a statistic).
  void* largest() const {
    Node* best = nullptr;
    for (Node* t = root_; t != nullptr; t = t->child[1] ? t->child[1] : t->child[0])
      if (best == nullptr || t->size > best->size) best = t;
    return best;
  }

  // Calls fn(block) for every block: tree nodes in depth-first order, each
  // followed by its ring. Uses a small stack of its own (at most path-length deep
  // per level), so it is for checks and statistics, not the allocation path.
  template <class Fn>
  void forEach(Fn&& fn) const {
    std::vector<Node*> stack;
    if (root_) stack.push_back(root_);
    while (!stack.empty()) {
      Node* t = stack.back();
      stack.pop_back();
      Node* n = t;
      do {
        fn(static_cast<void*>(n));
        n = n->next;
      } while (n != t);
      if (t->child[0]) stack.push_back(t->child[0]);
      if (t->child[1]) stack.push_back(t->child[1]);
    }
  }

  // The trie's shape: parents and children agree; each tree node's size follows
  // its path's key bits and agrees with the root above bit TopBit; no path is
  // longer than pathNodes; rings are consistent and hold one size, with exactly
  // one tree node; the blocks number count(). "" when all hold.
  std::string checkStructure() const;

 private:
  // The key bits of `size`, bit TopBit moved to the top of the word.
  std::size_t keyOf(std::size_t size) const { return size << (63 - topBit_); }

  Node* root_ = nullptr;
  std::size_t count_ = 0;
  unsigned topBit_ = kLowestKeyBit;
};

}  // namespace kith::heap
