// LockedHeap: makes a heap safe to share between threads by holding one lock
// around each malloc, free and getSize ("code locking", as in the Heap Layers
// paper). Super's other methods (statistics, checkInvariants, ...) are not
// locked: call them when no other thread is using the heap. Mutex is anything
// with lock()/unlock(); the lock lives in this object.
#pragma once

#include <cstddef>
#include <mutex>

#include "heap/layer.h"

namespace kith::heap {

template <class Super, class Mutex = std::mutex>
class LockedHeap : public Super {
  static_assert(HeapLayer<Super>, "LockedHeap needs Super::malloc and Super::free");

 public:
  using Super::Super;

  void* malloc(std::size_t size) {
    std::lock_guard<Mutex> hold(mutex_);
    return Super::malloc(size);
  }
  void free(void* ptr) {
    std::lock_guard<Mutex> hold(mutex_);
    Super::free(ptr);
  }
  std::size_t getSize(void* ptr)
    requires SizedHeap<Super>
  {
    std::lock_guard<Mutex> hold(mutex_);
    return Super::getSize(ptr);
  }

 private:
  Mutex mutex_;
};

}  // namespace kith::heap
