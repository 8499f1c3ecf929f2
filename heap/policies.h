// Every heap policy Kith ships, each a composition of layers in a few lines.
// Adding a policy: one alias here plus one row in `forEachPolicy` below.
//
// A policy type is constructible from the arena size in bytes and offers
// malloc/free/getSize; where it can, also lastOutcome() (outcome.h),
// checkInvariants() -> std::string, setRelocator(fn, ctx), freeBytes() and
// largestFreeBlock(). Policies over the fixed arena inherit arenaBase()/arenaSize().
#pragma once

#include <cstddef>
#include <string_view>

#include "heap/fixed_arena.h"
#include "heap/malloc_heap.h"

namespace kith::heap {

// --- the compositions --------------------------------------------------------
// (kingsley, lea, list: building-block layers; knuth, estranged: buddy; tlsf)

using MallocPolicy = MallocHeap;  // the system allocator, for comparison

// --- the registry ------------------------------------------------------------
// Calls fn.template operator()<Policy>(name, description) for each policy, in
// the order `kith policies` lists them; stops early when fn returns true.
template <class Fn>
bool forEachPolicy(Fn&& fn) {
  return fn.template operator()<MallocPolicy>(std::string_view("malloc"),
                                              std::string_view("the system allocator (glibc malloc), for comparison; not fixed-size"));
}

}  // namespace kith::heap
