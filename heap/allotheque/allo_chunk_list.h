// Allotheque element containers (TR07-003 §3.2.1, §4.1): the innermost level of a
// partition, list<void>, holding chunks that are all equivalent (attribute void,
// predicate 'any'). The links live in the free chunks themselves.
//
//   ChunkList   singly linked, LIFO; 8 bytes of each chunk; O(1) push and pop
//   ChunkDList  doubly linked, LIFO; 16 bytes of each chunk; O(1) push, pop and
//               remove of any chunk (for a heap that must take chunks back out)
//
// Both have the partition interface every level shares:
//   void* allocate(const Request&, Context&)      a chunk, or nullptr when empty
//   void deallocate(void* chunk, const Request&, Context&)
//   bool empty() const;  std::size_t count() const
//   forEachChunk(fn)     visits every chunk held
//   std::string check(const Context&) const   "" when the links are consistent
#pragma once

#include <cstddef>
#include <string>

#include "heap/allotheque/allo_request.h"

namespace kith::heap::allotheque {

class ChunkList {
 public:
  static constexpr bool kZeroIsEmpty = true;  // no head, no count (allo_zero_table.h)
  ChunkList() = default;
  explicit ChunkList(const Context&) {}
  void* allocate(const Request&, Context&) {
    Link* n = head_;
    if (n) {
      head_ = n->next;
      --count_;
    }
    return n;
  }
  void deallocate(void* chunk, const Request&, Context&) {
    head_ = new (chunk) Link{head_};
    ++count_;
  }
  bool empty() const { return head_ == nullptr; }
  std::size_t count() const { return count_; }
  template <class F>
  void forEachChunk(F&& f) const {
    for (Link* n = head_; n; n = n->next) f(static_cast<void*>(n));
  }
  std::string check(const Context& c) const {
    std::size_t n = 0;
    for (Link* l = head_; l; l = l->next) {
      if (!c.contains(l)) return "ChunkList: a link leaves the arena";
      if (++n > count_) return "ChunkList: more chunks than counted (a cycle?)";
    }
    return n == count_ ? "" : "ChunkList: fewer chunks than counted";
  }

 private:
  struct Link {
    Link* next;
  };
  Link* head_ = nullptr;
  std::size_t count_ = 0;
};

class ChunkDList {
 public:
  static constexpr bool kZeroIsEmpty = true;
  ChunkDList() = default;
  explicit ChunkDList(const Context&) {}
  void* allocate(const Request&, Context&) {
    Link* n = head_;
    if (n) remove(n);
    return n;
  }
  void deallocate(void* chunk, const Request&, Context&) {
    Link* n = new (chunk) Link{nullptr, head_};
    if (head_) head_->prev = n;
    head_ = n;
    ++count_;
  }
  // Takes `chunk`, which this list holds, out of it.
  void remove(void* chunk) {
    auto* n = static_cast<Link*>(chunk);
    (n->prev ? n->prev->next : head_) = n->next;
    if (n->next) n->next->prev = n->prev;
    --count_;
  }
  bool empty() const { return head_ == nullptr; }
  std::size_t count() const { return count_; }
  template <class F>
  void forEachChunk(F&& f) const {
    for (Link* n = head_; n; n = n->next) f(static_cast<void*>(n));
  }
  std::string check(const Context& c) const {
    std::size_t n = 0;
    Link* prev = nullptr;
    for (Link* l = head_; l; prev = l, l = l->next) {
      if (!c.contains(l)) return "ChunkDList: a link leaves the arena";
      if (l->prev != prev) return "ChunkDList: prev does not mirror next";
      if (++n > count_) return "ChunkDList: more chunks than counted (a cycle?)";
    }
    return n == count_ ? "" : "ChunkDList: fewer chunks than counted";
  }

 private:
  struct Link {
    Link* prev;
    Link* next;
  };
  Link* head_ = nullptr;
  std::size_t count_ = 0;
};

}  // namespace kith::heap::allotheque
