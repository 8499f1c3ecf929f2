// OrderedPartition<A, Nested, Pred>: the classes of A kept in key order — where
// the TR uses a red-black tree (Defero's rb_tree<kbit, list<void>, next>, TR07-003
// Fig. 9). Our keys are bounded (A::classes: a K-bit class of the fixed arena), so
// the ordered map is an array indexed by key with a bitmap of the non-empty keys,
// which gives what the tree gave — find O(1) instead of O(log n), next/first in key
// order O(classes / 64) word steps — with no per-node links in the chunks and no
// rebalancing. It is HashPartition with the identity hash and the sparse layer.
#pragma once

#include "heap/allotheque/allo_hash_partition.h"

namespace kith::heap::allotheque {

template <Attribute A, class Nested, class Pred>
using OrderedPartition = HashPartition<A, Nested, Pred, /*Sparse=*/true>;

}  // namespace kith::heap::allotheque
