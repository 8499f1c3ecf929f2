// CoalesceableHeap: the block representation that coalescing needs (paper §3.2,
// "object representation"). It carves chunks of raw memory from Super into blocks
// with boundary tags, so that a block can find its address-neighbours and tell
// whether they are free. It keeps no free structure and makes no decisions: it
// hands out a whole fresh chunk as one block (malloc), and offers the primitives
// CoalesceHeap builds on — split, merge, markFree/markInUse, blockAfter,
// freeBlockBefore — as static functions of a block's payload pointer.
//
// Block layout (the dlmalloc boundary-tag scheme). A block of S bytes (S a
// multiple of 16, at least 32) starts at a 16-aligned address h:
//
//     h      [ prevSize  8 B ]  size of the block below; meaningful only while
//                               that block is free (then it is that block's footer)
//     h + 8  [ size|flags 8 B]  S | kFree (this block is free)
//                                 | kPreviousFree (the block below is free)
//     h + 16 [ payload ...   ]  16-aligned; S - 8 usable bytes (getSize), because
//                               an in-use block also owns the next block's
//                               prevSize word
//
// A free block's size lives in two places: its own header and the prevSize word of
// the block after it, which also carries kPreviousFree. So freeBlockBefore(p) is
// O(1), and a request of n bytes needs a block of max(32, alignUp(n + 8)) bytes.
//
// Chunk layout and sentinels. Each chunk taken from Super is
//
//     [ chunk record 16 B: next chunk, chunk bytes ][ block ]...[ block ][ end 16 B ]
//
// The end sentinel is a header of size 0 that is never free: blockAfter() stops
// there and the last block's footer lands in its prevSize word. The first block's
// kPreviousFree bit is never set (no block lies below it), which is the sentinel
// at the low end. So coalescing never walks out of a chunk. The chunk records
// form a list (its head lives in this object) that forEachBlock walks.
//
// Chunk size. Over a fixed region (Super has remaining(), as FixedArena) the
// first chunk is everything that remains, so the whole arena is one block
// between two sentinels — the heap is fixed-size and one coalescing domain; any
// later request for a chunk fails. Over a growable top heap (MallocHeap,
// MmapHeap) each chunk is just large enough for the request.
#pragma once

#include <cassert>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <new>
#include <string>

#include "heap/layer.h"

namespace kith::heap {

// A top heap whose size is fixed: it can say how much it has left.
template <class H>
concept FixedRegion = requires(const H h) {
  { h.remaining() } -> std::convertible_to<std::size_t>;
};

// What CoalesceHeap and the free structures need from a block representation.
template <class R>
concept CoalescingRepresentation = HeapLayer<R> && requires(const R r, void* p, std::size_t n) {
  { R::getSize(p) } -> std::same_as<std::size_t>;
  { R::blockBytes(p) } -> std::same_as<std::size_t>;
  { R::blockBytesFor(n) } -> std::same_as<std::size_t>;
  { R::usableBytes(n) } -> std::same_as<std::size_t>;
  { R::isFree(p) } -> std::same_as<bool>;
  { R::markFree(p) } -> std::same_as<void>;
  { R::markInUse(p) } -> std::same_as<void>;
  { R::blockAfter(p) } -> std::same_as<void*>;
  { R::freeBlockBefore(p) } -> std::same_as<void*>;
  { R::split(p, n) } -> std::same_as<void*>;
  { R::carve(p, n) } -> std::same_as<void*>;
  { R::coalesce(p, p) } -> std::same_as<void*>;
  { R::merge(p, p) } -> std::same_as<void*>;
  { r.checkBlocks() } -> std::same_as<std::string>;
  R::kMaxRequest;
};

template <class Super>
class CoalesceableHeap : public Super {
  static_assert(HeapLayer<Super>, "CoalesceableHeap takes its chunks from Super::malloc");

 public:
  using Super::Super;
  CoalesceableHeap() = default;
  CoalesceableHeap(const CoalesceableHeap&) = delete;  // the chunks would be owned twice
  CoalesceableHeap& operator=(const CoalesceableHeap&) = delete;
  // Every chunk goes back to Super (a no-op for FixedArena, which unmaps at once).
  ~CoalesceableHeap() {
    releaseList(chunks_, [this](Chunk* c) { Super::free(c); });
  }

  static constexpr std::size_t kHeaderBytes = 16;
  static constexpr std::size_t kMinBlockBytes = 32;  // header + two list links
  static constexpr std::size_t kChunkOverhead = 32;  // chunk record + end sentinel
  // Larger requests fail at once, before any size arithmetic could overflow.
  static constexpr std::size_t kMaxRequest = std::numeric_limits<std::size_t>::max() / 4;

  // Bytes of the block that serves a request of `n` bytes (n <= kMaxRequest).
  static constexpr std::size_t blockBytesFor(std::size_t n) {
    std::size_t bytes = alignUp(n + kFooterBytes);
    return bytes < kMinBlockBytes ? kMinBlockBytes : bytes;
  }

  // A fresh chunk from Super holding one in-use block of at least `size` usable
  // bytes (over a fixed region: all that remains). nullptr when Super has no room.
  void* malloc(std::size_t size) {
    if (size > kMaxRequest) return nullptr;
    std::size_t need = blockBytesFor(size) + kChunkOverhead;
    std::size_t bytes = need;
    if constexpr (FixedRegion<Super>) {
      bytes = Super::remaining() & ~(kAlignment - 1);
      if (bytes < need) return nullptr;
    }
    auto* base = static_cast<std::byte*>(Super::malloc(bytes));
    if (base == nullptr) return nullptr;
    assert(isAligned(base));
    chunks_ = ::new (base) Chunk{chunks_, bytes};
    chunkBytes_ += bytes;
    std::byte* first = base + sizeof(Chunk);
    std::size_t blockBytes = bytes - kChunkOverhead;
    sizeWord(first) = blockBytes;                // in use; nothing below it
    sizeWord(first + blockBytes) = 0;            // end sentinel: size 0, never free
    return first + kHeaderBytes;
  }

  // Gives a whole chunk back to Super. `ptr` must be a block that spans its chunk,
  // as malloc returned it (after splits and merges have made it whole again).
  void free(void* ptr) {
    if (ptr == nullptr) return;
    std::byte* base = static_cast<std::byte*>(ptr) - kHeaderBytes - sizeof(Chunk);
    for (Chunk** link = &chunks_; *link; link = &(*link)->next) {
      if (reinterpret_cast<std::byte*>(*link) != base) continue;
      assert(blockAfter(ptr) == nullptr && "CoalesceableHeap::free: block does not span its chunk");
      chunkBytes_ -= (*link)->bytes;
      *link = (*link)->next;
      Super::free(base);
      return;
    }
    assert(false && "CoalesceableHeap::free: not the first block of a chunk");
  }

  // Usable bytes of a block: its size less the size word (the prevSize word of the
  // next block is usable while this one is in use).
  static std::size_t getSize(void* ptr) { return usableBytes(blockBytes(ptr)); }
  // getSize of a block of `blockBytes` bytes.
  static constexpr std::size_t usableBytes(std::size_t blockBytes) { return blockBytes - kFooterBytes; }
  static std::size_t blockBytes(void* ptr) { return sizeWord(headerOf(ptr)) & ~kFlagMask; }
  static bool isFree(void* ptr) { return (sizeWord(headerOf(ptr)) & kFree) != 0; }

  // Sets the free bit and writes the footer (the next block's prevSize and
  // kPreviousFree), so the block above can find this one.
  static void markFree(void* ptr) {
    std::byte* h = headerOf(ptr);
    std::size_t bytes = sizeWord(h) & ~kFlagMask;
    sizeWord(h) |= kFree;
    prevSizeWord(h + bytes) = bytes;
    sizeWord(h + bytes) |= kPreviousFree;
  }
  static void markInUse(void* ptr) {
    std::byte* h = headerOf(ptr);
    sizeWord(h) &= ~kFree;
    sizeWord(h + (sizeWord(h) & ~kFlagMask)) &= ~kPreviousFree;
  }

  // The block just above `ptr`, or nullptr at the chunk's end sentinel.
  static void* blockAfter(void* ptr) {
    std::byte* next = headerOf(ptr) + blockBytes(ptr);
    return (sizeWord(next) & ~kFlagMask) == 0 ? nullptr : next + kHeaderBytes;
  }
  // The block just below `ptr` if it is free (only then is its size recorded),
  // else nullptr; also nullptr for the first block of a chunk.
  static void* freeBlockBefore(void* ptr) {
    std::byte* h = headerOf(ptr);
    if ((sizeWord(h) & kPreviousFree) == 0) return nullptr;
    return h - prevSizeWord(h) + kHeaderBytes;
  }

  // Shrinks in-use block `ptr` to blockBytesFor(size) bytes and makes the rest a
  // new in-use block, which it returns; nullptr (and no change) when the rest
  // would be smaller than kMinBlockBytes.
  static void* split(void* ptr, std::size_t size) {
    assert(!isFree(ptr) && size <= getSize(ptr));
    std::byte* h = headerOf(ptr);
    std::size_t bytes = blockBytes(ptr);
    std::size_t keep = blockBytesFor(size);
    if (bytes - keep < kMinBlockBytes) return nullptr;
    std::size_t restBytes = bytes - keep;
    sizeWord(h) = keep | (sizeWord(h) & kPreviousFree);
    sizeWord(h + keep) = restBytes;  // its prevSize word is ptr's usable tail: untouched
    return h + keep + kHeaderBytes;
  }

  // markInUse, split and markFree of the rest in one pass over the tags: takes
  // block `ptr` (free, or a fresh chunk's) into use for a request of `size` bytes
  // and returns the rest as a free block, or nullptr (the whole block in use)
  // when the rest would be smaller than kMinBlockBytes.
  static void* carve(void* ptr, std::size_t size) {
    std::byte* h = headerOf(ptr);
    std::size_t word = sizeWord(h);
    assert(size <= (word & ~kFlagMask) - kFooterBytes);
    std::size_t bytes = word & ~kFlagMask;
    std::size_t keep = blockBytesFor(size);
    std::byte* next = h + bytes;
    if (bytes - keep < kMinBlockBytes) {
      sizeWord(h) = word & ~kFree;
      sizeWord(next) &= ~kPreviousFree;
      return nullptr;
    }
    std::size_t restBytes = bytes - keep;
    sizeWord(h) = keep | (word & kPreviousFree);
    sizeWord(h + keep) = restBytes | kFree;  // its block below, ptr, is in use
    prevSizeWord(next) = restBytes;
    sizeWord(next) |= kPreviousFree;
    return h + keep + kHeaderBytes;
  }

  // carve of a free block of `bytes` bytes whose rest is big enough to split off
  // (bytes - keep >= kMinBlockBytes), for a caller that knows both sizes: the first
  // `keep` bytes go into use and the rest, returned, stays free. Nothing is read: a
  // free block has no free block below it (coalescing joins them), so its
  // kPreviousFree bit is clear, and the block above already records a free
  // neighbour; only its size changes.
  static void* carveFree(void* ptr, std::size_t bytes, std::size_t keep) {
    std::byte* h = headerOf(ptr);
    assert(sizeWord(h) == (bytes | kFree) && keep % kAlignment == 0 && bytes - keep >= kMinBlockBytes);
    const std::size_t restBytes = bytes - keep;
    sizeWord(h) = keep;
    sizeWord(h + keep) = restBytes | kFree;  // its block below, ptr, is in use
    prevSizeWord(h + bytes) = restBytes;
    assert(sizeWord(h + bytes) & kPreviousFree);
    return h + keep + kHeaderBytes;
  }
  // Joins `right`, which must lie just above `left`, into `left` and returns it.
  // The result keeps left's flags; the block above is told its new neighbour.
  static void* merge(void* left, void* right) {
    std::byte* h = headerOf(left);
    assert(blockAfter(left) == right);
    std::size_t bytes = blockBytes(left) + blockBytes(right);
    sizeWord(h) = bytes | (sizeWord(h) & kFlagMask);
    if (sizeWord(h) & kFree) {
      markFree(left);
    } else {
      sizeWord(h + bytes) &= ~kPreviousFree;
    }
    return left;
  }

  // merge and markFree in one pass: makes the adjacent blocks from `first` up to
  // and including `last` one free block, writing its tags once, and returns it.
  // first keeps its kPreviousFree bit.
  static void* coalesce(void* first, void* last) {
    std::byte* h = headerOf(first);
    std::byte* next = headerOf(last) + blockBytes(last);
    std::size_t bytes = static_cast<std::size_t>(next - h);
    sizeWord(h) = bytes | (sizeWord(h) & kPreviousFree) | kFree;
    prevSizeWord(next) = bytes;
    sizeWord(next) |= kPreviousFree;
    return first;
  }

  // Calls fn(payload) for every block of every chunk, in address order per chunk.
  template <class Fn>
  void forEachBlock(Fn&& fn) const {
    for (const Chunk* c = chunks_; c; c = c->next) {
      std::byte* h = firstHeader(c);
      while (std::size_t bytes = sizeWord(h) & ~kFlagMask) {
        fn(static_cast<void*>(h + kHeaderBytes));
        h += bytes;
      }
    }
  }

  // Bytes taken from Super in chunks (chunk records and sentinels included).
  std::size_t chunkBytes() const { return chunkBytes_; }

  // Walks every chunk: block sizes are multiples of 16, at least kMinBlockBytes,
  // inside the chunk and tile it exactly up to the end sentinel; each block's
  // kPreviousFree bit matches the block below, and when set the footer holds that
  // block's size; the chunks add up to chunkBytes() and, over a fixed region,
  // chunkBytes() + remaining() is the arena. "" when all hold.
  std::string checkBlocks() const {
    std::size_t total = 0, chunkIndex = 0;
    for (const Chunk* c = chunks_; c; c = c->next, ++chunkIndex) {
      auto* base = reinterpret_cast<const std::byte*>(c);
      const std::byte* end = base + c->bytes - kHeaderBytes;  // the end sentinel
      auto where = [&](const std::byte* h) {
        return "chunk " + std::to_string(chunkIndex) + ", block at offset " +
               std::to_string(h - base) + ": ";
      };
      if (c->bytes % kAlignment != 0 || c->bytes < kChunkOverhead + kMinBlockBytes)
        return "chunk " + std::to_string(chunkIndex) + ": bad size " + std::to_string(c->bytes);
      std::byte* h = firstHeader(c);
      if (sizeWord(h) & kPreviousFree) return where(h) + "first block claims a free block below it";
      std::size_t below = 0;
      bool belowFree = false;
      while (h != end) {
        std::size_t bytes = sizeWord(h) & ~kFlagMask;
        if (bytes < kMinBlockBytes || bytes % kAlignment != 0 ||
            bytes > static_cast<std::size_t>(end - h))
          return where(h) + "bad size " + std::to_string(bytes);
        if (below != 0 && ((sizeWord(h) & kPreviousFree) != 0) != belowFree)
          return where(h) + "previous-free bit disagrees with the block below";
        if (belowFree && prevSizeWord(h) != below)
          return where(h) + "footer says " + std::to_string(prevSizeWord(h)) +
                 " but the free block below has " + std::to_string(below);
        below = bytes;
        belowFree = (sizeWord(h) & kFree) != 0;
        h += bytes;
      }
      if ((sizeWord(h) & ~kPreviousFree) != 0) return where(h) + "end sentinel damaged";
      if (((sizeWord(h) & kPreviousFree) != 0) != belowFree)
        return where(h) + "end sentinel's previous-free bit disagrees with the last block";
      if (belowFree && prevSizeWord(h) != below) return where(h) + "last block's footer is wrong";
      total += c->bytes;
    }
    if (total != chunkBytes_)
      return "chunks hold " + std::to_string(total) + " bytes but " + std::to_string(chunkBytes_) +
             " were taken from Super";
    if constexpr (FixedRegion<Super> && requires(const Super s) { s.arenaSize(); }) {
      if (chunkBytes_ + Super::remaining() != Super::arenaSize())
        return "chunks (" + std::to_string(chunkBytes_) + " B) and the untaken rest (" +
               std::to_string(Super::remaining()) + " B) do not add up to the arena (" +
               std::to_string(Super::arenaSize()) + " B)";
    }
    return "";
  }

 private:
  static constexpr std::size_t kFooterBytes = 8;  // the size word; the rest of the header is usable
  static constexpr std::size_t kFree = 1;
  static constexpr std::size_t kPreviousFree = 2;
  static constexpr std::size_t kFlagMask = kAlignment - 1;

  struct alignas(kAlignment) Chunk {
    Chunk* next;
    std::size_t bytes;
  };
  static_assert(sizeof(Chunk) == kHeaderBytes);

  static std::byte* headerOf(void* ptr) { return static_cast<std::byte*>(ptr) - kHeaderBytes; }
  static std::byte* firstHeader(const Chunk* c) {
    return const_cast<std::byte*>(reinterpret_cast<const std::byte*>(c)) + sizeof(Chunk);
  }
  static std::size_t& prevSizeWord(std::byte* h) { return *reinterpret_cast<std::size_t*>(h); }
  static std::size_t& sizeWord(std::byte* h) {
    return *reinterpret_cast<std::size_t*>(h + sizeof(std::size_t));
  }
  static const std::size_t& prevSizeWord(const std::byte* h) {
    return *reinterpret_cast<const std::size_t*>(h);
  }
  static const std::size_t& sizeWord(const std::byte* h) {
    return *reinterpret_cast<const std::size_t*>(h + sizeof(std::size_t));
  }

  Chunk* chunks_ = nullptr;  // in this object; the records themselves are in the chunks
  std::size_t chunkBytes_ = 0;
};

}  // namespace kith::heap
