#include "gc/prefetch_fifo.h"

#include <gtest/gtest.h>

#include <vector>

namespace kith::gc {
namespace {

// First in, first out, through wrap-around of the ring: what goes in comes out in
// order, and full()/empty() say when to stop pushing and popping. The handles are
// real (push reads and prefetches each one's object).
TEST(PrefetchFifo, PopsInOrderAcrossWrapAround) {
  std::vector<vm::Handle> handles(100);
  PrefetchFifo fifo;
  EXPECT_TRUE(fifo.empty());
  std::size_t in = 0, out = 0;
  while (out < handles.size()) {
    // Refill as the markers do, then take two (so the ring's head walks round it).
    while (!fifo.full() && in < handles.size()) fifo.push(&handles[in++]);
    if (in < handles.size()) EXPECT_TRUE(fifo.full());
    for (int k = 0; k < 2 && !fifo.empty(); ++k) ASSERT_EQ(fifo.pop(), &handles[out++]) << out;
  }
  EXPECT_TRUE(fifo.empty());
}

// clear() forgets what was in it (a cycle starts with nothing gray).
TEST(PrefetchFifo, ClearEmptiesIt) {
  std::vector<vm::Handle> handles(PrefetchFifo::kDepth);
  PrefetchFifo fifo;
  for (vm::Handle& h : handles) fifo.push(&h);
  EXPECT_TRUE(fifo.full());
  fifo.clear();
  EXPECT_TRUE(fifo.empty());
  EXPECT_FALSE(fifo.full());
  fifo.push(&handles[3]);
  EXPECT_EQ(fifo.pop(), &handles[3]);
}

}  // namespace
}  // namespace kith::gc
