#include "vm/collected_space.h"

#include <cstring>

#include "vm/freed_object_guard.h"
#include "vm/object.h"

namespace kith::vm {

void CollectedSpace::poisonFreed(void* object) {
  std::memset(object, kFreedObjectByte, static_cast<ObjectHeader*>(object)->size);
}

}  // namespace kith::vm
