// ZoneHeap: a region (zone, arena, obstack). malloc bump-allocates inside chunks
// of ChunkSize bytes taken from Super; freeing a single object does nothing;
// release() hands every chunk back to Super in one step, and so does the
// destructor. For data that dies together — the Kith compiler's temporary data for
// one compilation — this is the cheapest heap there is: a pointer bump per object
// and one Super::free per chunk at the end. Chunks go back newest first, and to a
// Super that takes back only its newest block (FixedArena::takeBack) each goes back
// with its size, so a zone over a fixed arena can be released and refilled forever.
//
// A request too big for a chunk gets a chunk of its own; so does any request
// when Super cannot give a whole chunk any more (so a fixed arena's tail is still
// used). The current chunk stays current either way; its unused tail is wasted
// only when a request does not fit and a new chunk is started.
// Metadata: a 16-byte header at the start of each chunk (link and size); the chunk
// list head and the bump pointer live in this object. Objects carry no header, so ZoneHeap has no
// getSize (it hides Super's, which would answer for chunks, not objects).
#pragma once

#include <concepts>
#include <cstddef>
#include <cstdint>
#include <new>

#include "heap/layer.h"

namespace kith::heap {

// A heap that frees only its newest block, and needs its size to do it (FixedArena).
template <class H>
concept TakesBackNewest = requires(H h, void* p, std::size_t n) {
  { h.takeBack(p, n) } -> std::same_as<bool>;
};

template <class Super, std::size_t ChunkSize = 64 * 1024>
class ZoneHeap : public Super {
  static_assert(HeapLayer<Super>, "ZoneHeap needs Super::malloc and Super::free");

  struct alignas(kAlignment) Chunk {
    Chunk* next;
    std::size_t bytes;  // what Super::malloc was asked for
  };
  static constexpr std::size_t kChunkHeader = sizeof(Chunk);
  static_assert(ChunkSize % kAlignment == 0 && ChunkSize >= kChunkHeader + kMinBlock,
                "a chunk must be 16-byte aligned in size and hold at least one block");

 public:
  // Larger requests fail: the chunk header plus rounding would not fit in a size_t.
  static constexpr std::size_t kLargestRequest = SIZE_MAX - kChunkHeader - kAlignment;

  using Super::Super;
  ZoneHeap() = default;
  ZoneHeap(const ZoneHeap&) = delete;
  ZoneHeap& operator=(const ZoneHeap&) = delete;
  ~ZoneHeap() { release(); }

  void* malloc(std::size_t size) {
    if (size > kLargestRequest) return nullptr;
    std::size_t need = alignUp(size < kMinBlock ? kMinBlock : size);
    if (need <= static_cast<std::size_t>(limit_ - bump_)) {
      void* p = bump_;
      bump_ += need;
      return p;
    }
    return mallocInNewChunk(need);
  }

  void free(void*) {}  // objects die with the zone

  std::size_t getSize(void*) = delete;

  // Returns every chunk to Super, newest first. Every object of the zone dies; the
  // zone is empty and ready for reuse.
  void release() {
    while (Chunk* c = chunks_) {
      chunks_ = c->next;
      if constexpr (TakesBackNewest<Super>)
        Super::takeBack(c, c->bytes);
      else
        Super::free(c);
    }
    bump_ = limit_ = nullptr;
  }

 private:
  void* mallocInNewChunk(std::size_t need) {
    if (need <= ChunkSize - kChunkHeader) {
      if (std::byte* start = newChunk(ChunkSize)) {
        bump_ = start + need;
        limit_ = start + (ChunkSize - kChunkHeader);
        return start;
      }
    }
    return newChunk(kChunkHeader + need);  // a chunk of its own; bump_ stays where it is
  }

  // Takes a chunk of `bytes` from Super, links it in, and returns its first
  // usable byte (nullptr when Super is out of memory).
  std::byte* newChunk(std::size_t bytes) {
    void* raw = Super::malloc(bytes);
    if (!raw) return nullptr;
    chunks_ = ::new (raw) Chunk{chunks_, bytes};
    return static_cast<std::byte*>(raw) + kChunkHeader;
  }

  Chunk* chunks_ = nullptr;
  std::byte* bump_ = nullptr;   // next free byte of the current chunk
  std::byte* limit_ = nullptr;  // end of the current chunk
};

}  // namespace kith::heap
