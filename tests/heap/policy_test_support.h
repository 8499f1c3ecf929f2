// Helpers shared by the tests of registered policies (list, lea, and the buddy
// heaps): the registry lookup, the shadow model with the heap's own invariant
// check, a script that checks invariants after every operation, and the edge-size
// and tiny-arena checks the coalescing policies share.
#pragma once

#include <gtest/gtest.h>

#include <cstddef>
#include <cstdint>
#include <initializer_list>
#include <string>
#include <string_view>
#include <type_traits>
#include <vector>

#include "heap/outcome.h"
#include "heap/policies.h"
#include "tests/heap/shadow_model.h"

namespace kith::heap::testing {

// A coalescing policy's overhead on a whole arena: chunk record + header + end
// sentinel's size word.
constexpr std::size_t kWholeOverhead = 40;

// Whether forEachPolicy lists P under `name`.
template <class P>
bool isRegisteredAs(std::string_view name) {
  bool found = false;
  forEachPolicy([&]<class Q>(std::string_view n, std::string_view) {
    if (n == name) found = std::is_same_v<Q, P>;
    return false;
  });
  return found;
}

// The shared shadow model on `h`, with h.checkInvariants() as its invariant check.
template <class H>
ShadowRunResult runCheckedShadowModel(H& h, const ShadowRunOptions& options) {
  return runShadowModel(h, options, [&] { return h.checkInvariants(); });
}

// mallocs of `size` until one fails; the blocks, in order.
template <class H>
std::vector<void*> mallocUntilFull(H& h, std::size_t size) {
  std::vector<void*> blocks;
  while (void* p = h.malloc(size)) blocks.push_back(p);
  return blocks;
}

// A script: malloc each of `sizes`, free the blocks at `frees` (indices into the
// blocks so far), malloc each of `more`, then free every block still live. Asserts
// h.checkInvariants() after every operation (wrap the call in
// ASSERT_NO_FATAL_FAILURE).
template <class H>
void runScriptCheckingInvariants(H& h, std::initializer_list<std::size_t> sizes,
                                 std::initializer_list<std::size_t> frees,
                                 std::initializer_list<std::size_t> more) {
  std::vector<void*> live;
  for (std::size_t s : sizes) {
    live.push_back(h.malloc(s));
    ASSERT_NE(live.back(), nullptr) << s;
    ASSERT_EQ(h.checkInvariants(), "") << "malloc";
  }
  for (std::size_t i : frees) {
    h.free(live[i]);
    live[i] = nullptr;
    ASSERT_EQ(h.checkInvariants(), "") << "free";
  }
  for (std::size_t s : more) {
    live.push_back(h.malloc(s));
    ASSERT_NE(live.back(), nullptr) << s;
    ASSERT_EQ(h.checkInvariants(), "") << "malloc after frees";
  }
  for (void* p : live) {
    h.free(p);
    ASSERT_EQ(h.checkInvariants(), "") << "free all";
  }
}

// On a fresh heap of `arena` bytes: requests of 0, 1 and 16 bytes get aligned
// blocks of at least 16 bytes inside the arena; the arena size and SIZE_MAX fail.
template <class H>
void expectEdgeSizes(H& h, std::size_t arena) {
  for (std::size_t size : {0, 1, 16}) {
    void* p = h.malloc(size);
    ASSERT_NE(p, nullptr) << size;
    EXPECT_TRUE(isAligned(p));
    EXPECT_GE(h.getSize(p), 16u);
    EXPECT_TRUE(h.arenaContains(p));
  }
  EXPECT_EQ(h.malloc(arena), nullptr);
  EXPECT_EQ(h.lastOutcome(), Outcome::failed);
  EXPECT_EQ(h.malloc(SIZE_MAX), nullptr);
  EXPECT_EQ(h.lastOutcome(), Outcome::failed);
  EXPECT_EQ(h.malloc(SIZE_MAX - 15), nullptr);
  EXPECT_EQ(h.checkInvariants(), "");
}

// Fills a tiny coalescing heap of `arena` bytes with 1-byte requests: it runs out
// with nullptr (never a crash) after exactly (arena - 32) / 32 blocks (none below
// 64 bytes), then takes them all back, invariants holding throughout.
template <class H>
void expectTinyArenaFillsAndEmpties(H& h, std::size_t arena) {
  std::vector<void*> got = mallocUntilFull(h, 1);
  EXPECT_EQ(h.lastOutcome(), Outcome::failed);
  EXPECT_EQ(got.size(), arena < 64 ? 0u : (arena - 32) / 32) << arena;
  EXPECT_EQ(h.malloc(SIZE_MAX), nullptr);
  EXPECT_EQ(h.checkInvariants(), "") << arena;
  for (void* p : got) h.free(p);
  EXPECT_EQ(h.checkInvariants(), "") << arena;
}

}  // namespace kith::heap::testing
