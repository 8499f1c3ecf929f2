// TraceIdMap's growth: a rehash into twice the slots, once per doubling of the
// live objects (trace_id_map.h has the lookups a recorder makes per event).
#include "heap/trace/trace_id_map.h"

#include <memory>
#include <utility>

namespace kith::heap {

void TraceIdMap::grow() {
  std::size_t oldCapacity = capacity_;
  std::unique_ptr<Slot[]> old = std::move(slots_);
  capacity_ = oldCapacity ? oldCapacity * 2 : 1024;
  mask_ = capacity_ - 1;
  shift_ = 64;
  for (std::size_t c = capacity_; c > 1; c >>= 1) --shift_;
  slots_.reset(new Slot[capacity_]);
  size_ = 0;
  for (std::size_t i = 0; i < oldCapacity; ++i)
    if (old[i].first) (*this)[old[i].first] = old[i].second;
}

}  // namespace kith::heap
