#include "vm/handle_table.h"

#include <cstdlib>

namespace kith::vm {

HandleTable::~HandleTable() {
  for (Handle* chunk : chunks_) std::free(chunk);
}

bool HandleTable::addChunk() {
  if (chunks_.size() >= chunkLimit_) return false;
  auto* chunk = static_cast<Handle*>(std::malloc(kHandlesPerChunk * sizeof(Handle)));
  if (!chunk) return false;
  chunks_.push_back(chunk);
  // Thread the new slots onto the free list so the lowest address is handed out first.
  std::uint32_t first = static_cast<std::uint32_t>((chunks_.size() - 1) * kHandlesPerChunk);
  for (std::size_t i = kHandlesPerChunk; i-- > 0;) {
    chunk[i] = Handle{freeList_, nullptr, 0, first + static_cast<std::uint32_t>(i)};
    freeList_ = &chunk[i];
  }
  return true;
}

Handle* HandleTable::allocate(void* object, ClassInfo* klass) {
  if (!freeList_ && !addChunk()) return nullptr;
  Handle* h = freeList_;
  freeList_ = static_cast<Handle*>(h->object);
  *h = Handle{object, klass, 0, h->slot};
  ++live_;
  return h;
}

void HandleTable::pushFree(Handle* handle) {
  *handle = Handle{freeList_, nullptr, 0, handle->slot};
  freeList_ = handle;
}

void HandleTable::release(Handle* handle) {
  --live_;
  if (quarantineCount_ == 0) {
    pushFree(handle);
    return;
  }
  *handle = Handle{poisonedObject_, nullptr, 0, handle->slot};
  quarantine_.push_back(handle);
  if (quarantine_.size() > quarantineCount_) {
    pushFree(quarantine_.front());
    quarantine_.pop_front();
  }
}

void HandleTable::setQuarantine(std::size_t count, void* poisonedObject) {
  quarantineCount_ = count;
  poisonedObject_ = poisonedObject;
}

bool HandleTable::owns(const Handle* p) const {
  for (const Handle* chunk : chunks_)
    if (p >= chunk && p < chunk + kHandlesPerChunk) return true;
  return false;
}

}  // namespace kith::vm
