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

#include "heap/allotheque/allo_attributes.h"
#include "heap/allotheque/allo_chunk_list.h"
#include "heap/allotheque/allo_hash_partition.h"
#include "heap/allotheque/allo_list_partition.h"
#include "heap/allotheque/allo_ordered_partition.h"
#include "heap/allotheque/allo_predicates.h"
#include "heap/allotheque/allotheque_heap.h"
#include "heap/adapters/boehm_heap.h"
#include "heap/buddy/buddy_defragmenter.h"
#include "heap/layers/coalesce_heap.h"
#include "heap/layers/coalesceable_heap.h"
#include "heap/buddy/estranged_buddy_heap.h"
#include "heap/layers/fixed_arena.h"
#include "heap/layers/freelist_heap.h"
#include "heap/buddy/knuth_buddy_heap.h"
#include "heap/classic/kingsley_bsd_heap.h"
#include "heap/classic/lea_bins_heap.h"
#include "heap/adapters/malloc_heap.h"
#if defined(KITH_HAVE_JEMALLOC)
#include "heap/adapters/jemalloc_heap.h"
#endif
#if defined(KITH_HAVE_MIMALLOC)
#include "heap/adapters/mimalloc_heap.h"
#endif
#include "heap/layers/nothing_heap.h"
#include "heap/layers/null_heap.h"
#include "heap/layers/quick_list_heap.h"
#include "heap/layers/segregated_list_heap.h"
#include "heap/layers/size_classes.h"
#include "heap/layers/size_class_heap.h"
#include "heap/layers/strict_seg_heap.h"
#include "heap/classic/tlsf_heap.h"
#include "heap/classic/unstructured_list_heap.h"

namespace kith::heap {

// --- the compositions --------------------------------------------------------
// (kingsley, lea, list: building-block layers; knuth, estranged: buddy; tlsf)

using MallocPolicy = MallocHeap;  // the system allocator, for comparison
// Allocators users pick instead of glibc, for comparison, where the build found
// their library (heap/CMakeLists.txt; else `kith policies` notes them as left out).
#if defined(KITH_HAVE_JEMALLOC)
using JemallocPolicy = JemallocHeap;
#endif
#if defined(KITH_HAVE_MIMALLOC)
using MimallocPolicy = MimallocHeap;
#endif
// The JDK 1.1.8 baseline: one unstructured doubly-linked free list, first fit
// from the head, frees pushed at the head, neighbours coalesced on free.
using ListPolicy = CoalesceHeap<UnstructuredListHeap<CoalesceableHeap<FixedArena>>>;
// Kingsley (BSD 4.2, paper 6.1): power-of-two classes from 16 B, one LIFO free list
// each, fed by the arena; blocks are never split or coalesced. The header holds the
// class index, as BSD's does, so a free looks nothing up.
using KingsleyPolicy = StrictSegHeap<kPow2ClassCount, pow2SizeClass, pow2ClassMaxSize, FreelistHeap<NullHeap>,
                                     SizeClassHeap<kPow2ClassCount, pow2SizeClass, pow2ClassMaxSize, FixedArena>>;
// Kingsley with coalescing (paper 8: "we just add coalescing and splitting with the
// layers we developed for LeaHeap"): Kingsley's power-of-two classes become lists of
// free blocks of any size, searched upward from the request's class (coalesced blocks
// belong to no one class), under the CoalesceHeap that lea and list use, which splits
// the block found to the request and merges each freed block with its free neighbours.
using KingsleyCoalescingPolicy =
    CoalesceHeap<SegregatedListHeap<kPow2ClassCount, pow2SizeClass, pow2ClassMaxSize, CoalesceableHeap<FixedArena>>>;
// Lea (paper 6.2, after dlmalloc 2.7/2.8): requests up to 160 B (glibc's largest
// fastbin on 64-bit hosts) from exact-size quick lists (16, 32, ..., 160 B),
// cached without coalescing, at most 2^18 blocks in all, so a collector's sweep
// stays cached for the allocations that follow;
// the rest best fit from Lea's bins with coalescing (exact lists to 512 B blocks,
// then size-ordered tries, 4 bins per power of two to 128 KiB, one large bin
// above). Requests of 128 KiB and more, and any request that would fail, first
// return the quick lists' blocks to the bins. Every call is bounded (see
// lea_bins_heap.h, quick_list_heap.h), not linear in the free blocks.
using LeaPolicy = QuickListHeap<160, 262144, 128 * 1024, CoalesceHeap<LeaBinsHeap<CoalesceableHeap<FixedArena>>>>;
using TlsfPolicy = TlsfHeap<FixedArena>;  // two-level segregated fit over one arena
// The buddy systems of Donahue et al. over the whole arena, each with on-demand
// defragmentation (off until the owner installs a relocator with setRelocator).
using KnuthPolicy = BuddyDefragmenter<KnuthBuddyHeap<FixedArena>>;
using EstrangedPolicy = BuddyDefragmenter<EstrangedBuddyHeap<FixedArena>>;

// The locality allocators of Jula & Rauchwerger (Allotheque, TR07-003 §6), each
// its partition in the TR's own words, over the fixed arena a 4 KiB page at a time
// (allotheque_heap.h); they use the hint of malloc(size, near).
namespace allotheque {
// A K-class: 64 KiB of the arena (the TR's K = 16 of 32 address bits); Velox's
// and the locality measure's "K-close".
inline constexpr unsigned kVeloxShift = 16;
// Velox = R_K-bit ∘ R_size: K-classes in a sparse hash, sizes in a list, chunks in
// a list; the hint's K-class first, then the last used, then the lowest address.
using VeloxPartition = HashPartition<KBit<kVeloxShift>, ListPartition<Size, Match>, MatchLastFirst, /*Sparse=*/true>;
// Medius = R_SK-bit ∘ R_size: address bits 12..23 (a page, modulo 16 MiB), no sparse layer.
using MediusPartition = HashPartition<SKBit<12, 12>, ListPartition<Size, Match>, MatchLastFirst>;
// Defero = R_segregated-size ∘ R_K-bit: per size class, its pages in key order
// (the tree), the hint's page first, else next fit from the page last used. Its
// per-class page maps span the arena (2.2 GiB of a 16 GiB heap): reserved, resident
// only where used (allo_zero_table.h).
using DeferoPartition = HashPartition<SegregatedSize, OrderedPartition<Page, ChunkList, MatchNext>, Match>;
}  // namespace allotheque
using VeloxPolicy = allotheque::AllothequeHeap<allotheque::VeloxPartition, allotheque::ExactSizes, FixedArena>;
using MediusPolicy = allotheque::AllothequeHeap<allotheque::MediusPartition, allotheque::ExactSizes, FixedArena>;
using DeferoPolicy = allotheque::AllothequeHeap<allotheque::DeferoPartition, allotheque::SegregatedSizes, FixedArena>;

// --- the registry ------------------------------------------------------------
// Calls fn.template operator()<Policy>(name, description) for each policy, in
// the order `kith policies` lists them; stops early when fn returns true.
template <class Fn>
bool forEachPolicy(Fn&& fn) {
  return fn.template operator()<ListPolicy>(std::string_view("list"), std::string_view("one unstructured first-fit free list with coalescing (the JDK 1.1.8 baseline)")) ||
      fn.template operator()<KnuthPolicy>(std::string_view("knuth"), std::string_view("binary buddy system, eager recombination (Knuth)")) ||
      fn.template operator()<EstrangedPolicy>(std::string_view("estranged"), std::string_view("buddy system with delayed recombination (estranged buddy; the default)")) ||
      fn.template operator()<TlsfPolicy>(std::string_view("tlsf"), std::string_view("two-level segregated fit: constant-time malloc and free (Masmano et al. 2004)")) ||
      fn.template operator()<KingsleyPolicy>(std::string_view("kingsley"), std::string_view("power-of-two segregated fits, no coalescing (Kingsley/BSD)")) ||
      fn.template operator()<KingsleyCoalescingPolicy>(std::string_view("kingsley-coalescing"), std::string_view("Kingsley plus splitting and coalescing: power-of-two free lists searched upward (Berger et al. 2001, section 8)")) ||
      fn.template operator()<LeaPolicy>(std::string_view("lea"), std::string_view("Lea: exact-size quick lists for small, best-fit coalescing bins for medium and large (dlmalloc 2.7)")) ||
      fn.template operator()<VeloxPolicy>(std::string_view("velox"), std::string_view("Allotheque Velox: K-bit (64 KiB) classes ∘ exact sizes, hint's class first, then last used, then lowest (Jula & Rauchwerger 2007)")) ||
      fn.template operator()<MediusPolicy>(std::string_view("medius"), std::string_view("Allotheque Medius: SK-bit classes (page mod 16 MiB) ∘ exact sizes, hint's class first (Jula & Rauchwerger 2007)")) ||
      fn.template operator()<DeferoPolicy>(std::string_view("defero"), std::string_view("Allotheque Defero: segregated sizes ∘ pages in key order, hint's page first, else next fit (Jula & Rauchwerger 2007)")) ||
      fn.template operator()<MallocPolicy>(std::string_view("malloc"), std::string_view("the system allocator (glibc malloc), for comparison; not fixed-size"))
#if defined(KITH_HAVE_JEMALLOC)
      || fn.template operator()<JemallocPolicy>(std::string_view("jemalloc"), std::string_view("jemalloc 5 (mallocx/dallocx), for comparison; not fixed-size"))
#endif
#if defined(KITH_HAVE_MIMALLOC)
      || fn.template operator()<MimallocPolicy>(std::string_view("mimalloc"), std::string_view("mimalloc 2 (mi_malloc/mi_free), for comparison; not fixed-size"))
#endif
      ;
}

}  // namespace kith::heap

namespace kith::heap {

// --- baselines that collect garbage themselves --------------------------------
// Listed apart (heap.h, baselineList): the explicit-free harnesses and the VM's
// collectors do not apply to them. Same calling convention as forEachPolicy.
using BoehmPolicy = BoehmHeap;

template <class Fn>
bool forEachBaseline(Fn&& fn) {
  return fn.template operator()<BoehmPolicy>(std::string_view("boehm"), std::string_view("Boehm-Demers-Weiser conservative GC allocates and collects (baseline only)"));
}

// --- the replay baseline --------------------------------------------------------
// Listed apart (heap.h, replayBaselineList): only `kith replay` takes it; its
// blocks are addresses with no memory behind them (nothing_heap.h).
using NothingPolicy = NothingHeap;

template <class Fn>
bool forEachReplayBaseline(Fn&& fn) {
  return fn.template operator()<NothingPolicy>(std::string_view("nothing"), std::string_view("replay baseline only (kith replay): returns addresses with no memory, frees nothing; its cost is replay's own"));
}

// --- hand-written originals a composition is measured against ----------------
// Listed apart (heap.h, referenceList): makeHeap builds them for explicit frees
// (kith replay, the preloaded malloc), but the VM's collector tests and the script
// suite do not run over them; the heap tests' shadow model does.
using KingsleyBsdPolicy = KingsleyBsdHeap;

template <class Fn>
bool forEachReference(Fn&& fn) {
  return fn.template operator()<KingsleyBsdPolicy>(std::string_view("kingsley-bsd"), std::string_view("the hand-written Kingsley allocator (BSD 4.2 malloc) that `kingsley` is measured against (Berger et al. 2001, section 6.1)"));
}

}  // namespace kith::heap
