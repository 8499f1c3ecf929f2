// HandleTable: the indirection between Values and heap objects, as in Sun's JDK 1.1.
// Every heap object has exactly one Handle; Values, fields, array elements and
// upvalues hold the Handle*, never the object's address. The handle holds the
// object's current address and its class (method table / type), so
//   - a moving heap (buddy defragmentation) relocates an object by updating one
//     word: handle->object (the relocation callback finds the handle through the
//     back-pointer in the object's header, object.h);
//   - method dispatch reads handle->klass without touching the object.
// Handle slots live in chunks from the system allocator, OUTSIDE the studied heap,
// so they do not disturb the allocation studies; their memory is reported
// separately (bytesReserved). Freed handles are recycled through a free list
// threaded through the `object` word. `gcBits` is room for the collector's mark
// state; the table itself never reads it.
#pragma once

#include <cstddef>
#include <cstdint>
#include <deque>
#include <vector>

namespace kith::vm {

struct ClassInfo;

struct Handle {
  void* object;      // current address of the object; next free handle when free
  ClassInfo* klass;  // class / method table; nullptr marks a free handle
  std::uint32_t gcBits;  // collector state (mark bits), zero when allocated
  // The handle's index in the table (chunk x kHandlesPerChunk + i), fixed when its
  // chunk is made and kept through every reuse: side tables indexed by it (a
  // trace's object ids) need no hash lookup.
  std::uint32_t slot;
};

class HandleTable {
 public:
  static constexpr std::size_t kHandlesPerChunk = 1024;

  HandleTable() = default;
  HandleTable(const HandleTable&) = delete;
  HandleTable& operator=(const HandleTable&) = delete;
  ~HandleTable();

  // A fresh handle for `object` of class `klass`; reuses a released one first.
  // Returns nullptr only when the system allocator fails.
  Handle* allocate(void* object, ClassInfo* klass);
  // Puts the handle on the free list; the object it named must be gone. With a
  // quarantine, the handle waits there first (see setQuarantine).
  void release(Handle* handle);

  // Makes use-after-free loud (debug and sanitizer builds, --gc-stress): released
  // handles wait through `count` later releases before reuse, and meanwhile name
  // `poisonedObject` (an inaccessible page: any read of the freed object faults
  // there) with klass nullptr, so a stale Value cannot reach another object.
  void setQuarantine(std::size_t count, void* poisonedObject);

  // Holds the table to `chunks` chunks: past them allocate returns nullptr, as when
  // the system allocator refuses (how tests exhaust handles).
  void setChunkLimit(std::size_t chunks) { chunkLimit_ = chunks; }

  // Calls fn(Handle*) for every handle in use, chunk by chunk.
  template <class Fn>
  void forEachLive(Fn&& fn) {
    for (Handle* chunk : chunks_)
      for (std::size_t i = 0; i < kHandlesPerChunk; ++i)
        if (chunk[i].klass) fn(&chunk[i]);
  }

  std::size_t liveCount() const { return live_; }
  std::size_t chunkCount() const { return chunks_.size(); }
  // The i-th chunk of kHandlesPerChunk slots (i < chunkCount()); free slots have
  // klass == nullptr. For an incremental sweep that walks the table with a cursor.
  Handle* chunk(std::size_t i) const { return chunks_[i]; }
  std::size_t capacity() const { return chunks_.size() * kHandlesPerChunk; }
  // System-allocator bytes held by handle chunks (reported apart from the heap).
  std::size_t bytesReserved() const { return chunks_.size() * kHandlesPerChunk * sizeof(Handle); }
  // True when `p` points at a handle slot of this table (for checks and tests).
  bool owns(const Handle* p) const;

 private:
  bool addChunk();

  void pushFree(Handle* handle);

  std::vector<Handle*> chunks_;
  Handle* freeList_ = nullptr;
  std::deque<Handle*> quarantine_;
  std::size_t quarantineCount_ = 0;
  void* poisonedObject_ = nullptr;
  std::size_t live_ = 0;
  std::size_t chunkLimit_ = SIZE_MAX;
};

}  // namespace kith::vm
