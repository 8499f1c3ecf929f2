// The heap verifier: walks everything reachable from the mutator's roots and checks
// that the object graph and the heap agree. Run after a collection in debug
// builds (OccasionalCollector's `verify` option) and by the tests.
//
// Checks, for every handle reachable from the roots:
//   - it is a slot of the space's handle table and not on its free list (klass set);
//   - its object lies inside the heap's arena (Heap::arenaBase/arenaSize; skipped
//     for `malloc`, which has no arena), whole;
//   - the object's header names it back (header.handle) and carries its class id;
//   - the object is big enough for its kind (an array's elements fit its size);
//   - (requireClearMarks) its gcBits are 0 (but for allowedBits), as after a sweep;
// and then that the heap's own checkInvariants() is "" and (requireNoGarbage) that
// no live handle is unreachable — true right after a full stop-the-world cycle.
// Uses its own visited set, never gcBits, so it can run at any safe point.
#pragma once

#include <cstdint>
#include <string>

#include "vm/collected_space.h"

namespace kith::gc {

struct VerifyOptions {
  bool requireClearMarks = true;
  // gcBits a handle may keep between cycles (the continuous collector's whites,
  // ContinuousCollector::kWhite0 | kWhite1); every other bit must be clear.
  std::uint32_t allowedBits = 0;
  bool requireNoGarbage = false;
  bool checkHeapInvariants = true;
};

// "" when every check holds; otherwise a description of the first failure.
std::string verifyHeap(vm::CollectedSpace& space, VerifyOptions options = {});

}  // namespace kith::gc
