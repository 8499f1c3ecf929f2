// GranuleBits: one bit per 16-byte granule of an arena, by byte offset from its
// base, kept outside the arena. The statistics layer's marks on free blocks (where a
// block came from: the buddy table's leftovers, split_leftovers.h) are these. The
// words are a ZeroedArray: reserved zero, so a large arena's bits cost memory only
// where bits are set or cleared (a range clear writes only the words that hold a bit).
// Off (default-constructed, or released) it holds nothing; callers ask on().
#pragma once

#include <cstddef>
#include <cstdint>

#include "heap/layer.h"
#include "heap/layers/zeroed_array.h"

namespace kith::heap {

class GranuleBits {
 public:
  GranuleBits() = default;
  // On, every bit clear, for an arena of `arenaBytes`.
  explicit GranuleBits(std::size_t arenaBytes)
      : words_(makeZeroedArray<std::uint64_t>(wordsFor(arenaBytes))), wordCount_(wordsFor(arenaBytes)) {}

  bool on() const { return words_ != nullptr; }
  void release() {
    words_.reset();
    wordCount_ = 0;
  }
  // The memory the bits take while on.
  std::size_t bytes() const { return wordCount_ * sizeof(std::uint64_t); }

  // The bit of the granule at byte offset `off` (a multiple of 16); on() only.
  void set(std::size_t off) { word(off) |= bit(off); }
  void reset(std::size_t off) { word(off) &= ~bit(off); }
  bool test(std::size_t off) const { return (words_[off / kMinBlock / 64] & bit(off)) != 0; }
  // test, then reset.
  bool take(std::size_t off) {
    std::uint64_t& w = word(off);
    const bool was = (w & bit(off)) != 0;
    w &= ~bit(off);
    return was;
  }

  // Whether any granule that starts in [from, to) has its bit set.
  bool anyIn(std::size_t from, std::size_t to) const {
    bool any = false;
    forEachWordIn(words_.get(), from, to, [&](std::uint64_t& w, std::uint64_t mask) { any = any || (w & mask) != 0; });
    return any;
  }
  // Clears the bits of the granules that start in [from, to).
  void clearIn(std::size_t from, std::size_t to) {
    forEachWordIn(words_.get(), from, to, [](std::uint64_t& w, std::uint64_t mask) {
      if (w & mask) w &= ~mask;
    });
  }

 private:
  static std::size_t wordsFor(std::size_t arenaBytes) { return arenaBytes / kMinBlock / 64 + 1; }
  static std::uint64_t bit(std::size_t off) { return std::uint64_t{1} << (off / kMinBlock % 64); }
  std::uint64_t& word(std::size_t off) { return words_[off / kMinBlock / 64]; }

  // fn(word, mask of its granules in the range) for each word the range touches.
  template <class Fn>
  static void forEachWordIn(std::uint64_t* words, std::size_t from, std::size_t to, Fn&& fn) {
    const std::size_t first = (from + kMinBlock - 1) / kMinBlock;  // granules starting at or after from
    const std::size_t end = (to + kMinBlock - 1) / kMinBlock;       // ... and before to
    for (std::size_t g = first; g < end;) {
      const std::size_t inWord = g % 64;
      const std::size_t n = end - g < 64 - inWord ? end - g : 64 - inWord;
      const std::uint64_t mask = (n == 64 ? ~std::uint64_t{0} : ((std::uint64_t{1} << n) - 1)) << inWord;
      fn(words[g / 64], mask);
      g += n;
    }
  }

  ZeroedArray<std::uint64_t> words_;
  std::size_t wordCount_ = 0;
};

}  // namespace kith::heap
