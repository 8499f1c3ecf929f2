// Allotheque allocation predicates (TR07-003 §3.3.1, Tables 2-3): where a search
// of a partition's classes starts, what class it looks for and when it stops,
// independent of the container (its traversal). A class "yields" when its nested
// partition hands out a chunk for the request; the search stops at the first
// class that yields.
//
//   First           begin -> end, the first class that yields (the TR's 'any';
//                   with address keys it prefers low addresses: wilderness)
//   Match           only the target class ('match' / 'match_only')
//   MatchFirst      the target class, else First
//   MatchLastFirst  the target class, else the class last allocated from
//                   (temporal locality), else First  (Velox, Medius)
//   MatchNext       the target class, else next fit: from the class last
//                   allocated from to the end, then from the beginning (Defero)
//   Best            the class with the smallest key >= target that yields
//                   (best fit when keys are sizes)
//
// A container offers the navigation the predicates use (concept Navigable):
//   Cursor none(), find(Key, Context&) (a non-empty class or none), first(),
//   next(Cursor), last() (the class last allocated from, or none), resume() (the
//   first non-empty class at or after the one last allocated from, or none),
//   Key keyOf(Cursor, Context&), and
//   void* take(Cursor, const Request&, Context&), which allocates from that class
//   (nullptr if its nested partition has nothing for the request).
// Each predicate looks at each class at most twice, so a search is bounded by the
// number of non-empty classes (+ the container's cost to step between them).
#pragma once

#include <optional>

#include "heap/allotheque/allo_attributes.h"

namespace kith::heap::allotheque {

template <class T>
concept Navigable = requires(T t, typename T::Cursor c, Key k, const Request& r, Context& ctx) {
  { t.none() } -> std::same_as<typename T::Cursor>;
  { t.find(k, ctx) } -> std::same_as<typename T::Cursor>;
  { t.first() } -> std::same_as<typename T::Cursor>;
  { t.next(c) } -> std::same_as<typename T::Cursor>;
  { t.last() } -> std::same_as<typename T::Cursor>;
  { t.resume() } -> std::same_as<typename T::Cursor>;
  { t.keyOf(c, ctx) } -> std::same_as<Key>;
  { t.take(c, r, ctx) } -> std::same_as<void*>;
};

struct First {
  template <class T>
  static void* select(T& t, std::optional<Key>, const Request& r, Context& ctx) {
    for (auto c = t.first(); c != t.none(); c = t.next(c))
      if (void* p = t.take(c, r, ctx)) return p;
    return nullptr;
  }
};

struct Match {
  template <class T>
  static void* select(T& t, std::optional<Key> target, const Request& r, Context& ctx) {
    if (!target) return nullptr;
    auto c = t.find(*target, ctx);
    return c == t.none() ? nullptr : t.take(c, r, ctx);
  }
};

struct MatchFirst {
  template <class T>
  static void* select(T& t, std::optional<Key> target, const Request& r, Context& ctx) {
    if (void* p = Match::select(t, target, r, ctx)) return p;
    return First::select(t, target, r, ctx);
  }
};

struct MatchLastFirst {
  template <class T>
  static void* select(T& t, std::optional<Key> target, const Request& r, Context& ctx) {
    if (void* p = Match::select(t, target, r, ctx)) return p;
    auto last = t.last();
    if (last != t.none() && (!target || t.keyOf(last, ctx) != *target))
      if (void* p = t.take(last, r, ctx)) return p;
    return First::select(t, target, r, ctx);
  }
};

struct MatchNext {
  template <class T>
  static void* select(T& t, std::optional<Key> target, const Request& r, Context& ctx) {
    if (void* p = Match::select(t, target, r, ctx)) return p;
    auto start = t.resume();
    if (start == t.none()) return First::select(t, target, r, ctx);
    for (auto c = start; c != t.none(); c = t.next(c))
      if (void* p = t.take(c, r, ctx)) return p;
    for (auto c = t.first(); c != t.none() && c != start; c = t.next(c))
      if (void* p = t.take(c, r, ctx)) return p;
    return nullptr;
  }
};

struct Best {
  template <class T>
  static void* select(T& t, std::optional<Key> target, const Request& r, Context& ctx) {
    // Smallest key >= target first; a class that does not yield is skipped by
    // retrying with the next larger key.
    std::optional<Key> floor = target;
    for (;;) {
      auto best = t.none();
      for (auto c = t.first(); c != t.none(); c = t.next(c)) {
        Key k = t.keyOf(c, ctx);
        if (floor && k < *floor) continue;
        if (best == t.none() || k < t.keyOf(best, ctx)) best = c;
      }
      if (best == t.none()) return nullptr;
      if (void* p = t.take(best, r, ctx)) return p;
      floor = t.keyOf(best, ctx) + 1;
    }
  }
};

}  // namespace kith::heap::allotheque
