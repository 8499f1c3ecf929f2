// HashPartition<A, Nested, Pred, Sparse>: the TR's hash_table<A, Nested, Pred, hf>
// (TR07-003 §4.1, §6.1): a bucket per class of attribute A, the hash the identity
// on the class key (A::classes() bounds the keys: K-bit and SK-bit classes of the
// arena, segregated size classes), each bucket a Nested partition — recursion
// R_A ∘ R_Nested. The bucket array is side memory, as Velox's 2^K-pointer table:
// classes x sizeof(Nested) bytes, reserved and filled as buckets are first used
// (allo_zero_table.h) when a Nested of zero bytes is empty, as the lists are; so
// Defero's per-page buckets of a 16 GiB arena cost what the program touches, not
// 2.2 GiB at start-up. Other Nested (a partition of tables) are built one by one.
//
// Sparse = true adds the TR's sparse layer: a bitmap of the non-empty buckets, so
// first/next skip 64 empty buckets per word instead of visiting each (Velox: a
// program's classes are few and scattered). Without it (Medius) first/next scan
// the buckets. find() is O(1) either way; `last` is the class last allocated from.
//
// Because the bitmap keeps the classes in key order with O(classes/64) next and
// O(1) find, HashPartition<A, Nested, Pred, true> is also this library's ordered
// map: OrderedPartition (allo_ordered_partition.h) stands where the TR has a
// red-black tree.
#pragma once

#include <bit>
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "heap/allotheque/allo_predicates.h"
#include "heap/allotheque/allo_zero_table.h"

namespace kith::heap::allotheque {

template <Attribute A, class Nested, class Pred, bool Sparse = false>
class HashPartition {
 public:
  using Cursor = std::size_t;
  static constexpr Cursor kNone = ~std::size_t{0};

  explicit HashPartition(const Context& c) : buckets_(makeBuckets(c)), bits_(Sparse ? (buckets_.size() + 63) / 64 : 0) {}

  void* allocate(const Request& r, Context& c) { return Pred::select(*this, A::target(r, c), r, c); }
  void deallocate(void* chunk, const Request& r, Context& c) {
    Key k = A::read(chunk, c);
    buckets_[k].deallocate(chunk, r, c);
    mark(k, true);
    ++count_;
  }
  bool empty() const { return count_ == 0; }
  const Nested& bucket(Key k) const { return buckets_[k]; }
  std::size_t count() const { return count_; }
  template <class F>
  void forEachChunk(F&& f) const {
    for (const Nested& b : buckets_) b.forEachChunk(f);
  }
  std::string check(const Context& c) const {
    std::size_t total = 0;
    for (std::size_t k = 0; k < buckets_.size(); ++k) {
      const Nested& b = buckets_[k];
      if (Sparse && marked(k) == b.empty()) return "HashPartition: sparse bitmap disagrees with bucket " + std::to_string(k);
      std::string bad;
      b.forEachChunk([&](void* p) {
        ++total;
        if (bad.empty() && A::read(p, c) != k) bad = "HashPartition: a chunk in the wrong class " + std::to_string(k);
      });
      if (!bad.empty()) return bad;
      if (std::string e = b.check(c); !e.empty()) return e;
    }
    return total == count_ ? "" : "HashPartition: chunk count disagrees";
  }

  // --- navigation for the predicates (allo_predicates.h) ---
  Cursor none() const { return kNone; }
  Cursor find(Key k, const Context&) const { return k < buckets_.size() && nonEmpty(k) ? k : kNone; }
  Cursor first() const { return from(0); }
  Cursor next(Cursor k) const { return from(k + 1); }
  Cursor last() const { return last_ < buckets_.size() && nonEmpty(last_) ? last_ : kNone; }
  Cursor resume() const { return last_ < buckets_.size() ? from(last_) : kNone; }
  Key keyOf(Cursor k, const Context&) const { return k; }
  void* take(Cursor k, const Request& r, Context& c) {
    void* p = buckets_[k].allocate(r, c);
    if (p) {
      --count_;
      last_ = k;
      if (buckets_[k].empty()) mark(k, false);
    }
    return p;
  }

 private:
  template <class N>
  struct BucketsOf {
    using type = std::vector<N>;
  };
  template <ZeroIsEmpty N>
  struct BucketsOf<N> {
    using type = ZeroTable<N>;
  };
  using Buckets = typename BucketsOf<Nested>::type;
  static Buckets makeBuckets(const Context& c) {
    if constexpr (ZeroIsEmpty<Nested>) {
      return Buckets(A::classes(c));
    } else {
      Buckets b;
      b.reserve(A::classes(c));
      for (std::size_t k = 0; k < A::classes(c); ++k) b.emplace_back(c);
      return b;
    }
  }

  bool nonEmpty(std::size_t k) const { return Sparse ? marked(k) : !buckets_[k].empty(); }
  bool marked(std::size_t k) const { return (bits_[k >> 6] >> (k & 63)) & 1; }
  void mark(std::size_t k, bool on) {
    if constexpr (Sparse) {
      if (on) bits_[k >> 6] |= std::uint64_t{1} << (k & 63);
      else bits_[k >> 6] &= ~(std::uint64_t{1} << (k & 63));
    }
  }
  // The first non-empty class >= k, or kNone.
  Cursor from(std::size_t k) const {
    if constexpr (Sparse) {
      std::size_t w = k >> 6;
      if (w >= bits_.size()) return kNone;
      std::uint64_t word = bits_[w] & (~std::uint64_t{0} << (k & 63));
      while (!word) {
        if (++w == bits_.size()) return kNone;
        word = bits_[w];
      }
      return (w << 6) + static_cast<std::size_t>(std::countr_zero(word));
    } else {
      for (; k < buckets_.size(); ++k)
        if (!buckets_[k].empty()) return k;
      return kNone;
    }
  }

  Buckets buckets_;
  ZeroTable<std::uint64_t> bits_;  // the sparse layer: one bit per non-empty bucket
  std::size_t count_ = 0;
  std::size_t last_ = kNone;
};

}  // namespace kith::heap::allotheque
