// ListPartition<A, Pred>: the TR's list<A, list<void>, Pred> (TR07-003 §6.1, Fig. 8
// line 1): the classes of attribute A as a singly linked list, each class's chunks
// on a list hanging from it. As in Allotheque the structure lives in the free
// chunks: a class node is the class's first chunk, {next class, next chunk of the
// class} = 16 bytes, so any chunk can be a node; the other chunks use 8 bytes.
// The key of a node is read from the node (A::read), so nothing else is stored.
//
// Cost: finding a class walks the list, O(classes held); Velox relies on few sizes
// per K-class (the TR measured a list faster than a tree there). Taking from a
// class and returning to one are O(1) once it is found. An emptied class's node
// is unlinked at once, so every listed class is non-empty. No 'last' is cached
// (a cursor into a list that unlinks would dangle): MatchLastFirst degrades to
// MatchFirst here.
#pragma once

#include <cstddef>
#include <string>

#include "heap/allotheque/allo_predicates.h"

namespace kith::heap::allotheque {

template <Attribute A, class Pred>
class ListPartition {
  struct Node {
    Node* nextClass;
    Node* nextChunk;  // the class's other chunks; on them only this field is used
  };

 public:
  static constexpr bool kZeroIsEmpty = true;  // no class listed (allo_zero_table.h)
  using Cursor = Node**;  // the link that points at the class's node

  ListPartition() = default;
  explicit ListPartition(const Context&) {}

  void* allocate(const Request& r, Context& c) { return Pred::select(*this, A::target(r, c), r, c); }
  void deallocate(void* chunk, const Request&, Context& c) {
    Key k = A::read(chunk, c);
    Cursor at = find(k, c);
    auto* n = static_cast<Node*>(chunk);
    if (at != none()) {
      n->nextClass = nullptr;
      n->nextChunk = (*at)->nextChunk;
      (*at)->nextChunk = n;
    } else {
      *n = Node{head_, nullptr};
      head_ = n;
    }
  }
  bool empty() const { return head_ == nullptr; }
  std::size_t count() const {
    std::size_t n = 0;
    forEachChunk([&](void*) { ++n; });
    return n;
  }
  template <class F>
  void forEachChunk(F&& f) const {
    for (Node* n = head_; n; n = n->nextClass)
      for (Node* m = n; m; m = m->nextChunk) f(static_cast<void*>(m));
  }
  std::string check(const Context& c) const {
    for (Node* n = head_; n; n = n->nextClass) {
      if (!c.contains(n)) return "ListPartition: a class node leaves the arena";
      Key k = A::read(n, c);
      for (Node* o = n->nextClass; o; o = o->nextClass)
        if (A::read(o, c) == k) return "ListPartition: two nodes for one class";
      for (Node* m = n->nextChunk; m; m = m->nextChunk)
        if (!c.contains(m) || A::read(m, c) != k) return "ListPartition: a chunk in the wrong class";
    }
    return "";
  }

  // --- navigation for the predicates (allo_predicates.h) ---
  Cursor none() const { return nullptr; }
  Cursor first() { return head_ ? &head_ : nullptr; }
  Cursor next(Cursor at) { return (*at)->nextClass ? &(*at)->nextClass : nullptr; }
  Cursor last() { return nullptr; }
  Cursor resume() { return nullptr; }
  Cursor find(Key k, const Context& c) {
    for (Node** at = &head_; *at; at = &(*at)->nextClass)
      if (A::read(*at, c) == k) return at;
    return nullptr;
  }
  Key keyOf(Cursor at, const Context& c) const { return A::read(*at, c); }
  void* take(Cursor at, const Request&, Context&) {
    Node* n = *at;
    if (Node* m = n->nextChunk) {
      n->nextChunk = m->nextChunk;
      return m;
    }
    *at = n->nextClass;  // the class empties: unlink its node
    return n;
  }

 private:
  Node* head_ = nullptr;
};

}  // namespace kith::heap::allotheque
