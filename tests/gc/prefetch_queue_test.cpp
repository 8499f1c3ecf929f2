// PrefetchQueue (gc/prefetch_queue.h): the collectors' markers put every object
// through it, so an object lost or scanned twice there would be a heap bug.
#include "gc/prefetch_queue.h"

#include <gtest/gtest.h>

#include <vector>

namespace kith::gc {
namespace {

TEST(PrefetchQueue, GivesBackEveryHandleOnceInTheOrderPushed) {
  std::vector<vm::Handle> handles(20);
  int object = 0;
  for (auto& h : handles) h.object = &object;  // prefetched: must be a readable address
  PrefetchQueue<4> queue;
  std::vector<vm::Handle*> out;
  for (auto& h : handles) {
    vm::Handle* ready = queue.push(&h);
    if (&h < &handles[4]) EXPECT_EQ(ready, nullptr) << "nothing leaves while the queue fills";
    if (ready) out.push_back(ready);
  }
  while (vm::Handle* h = queue.pop()) out.push_back(h);
  ASSERT_EQ(out.size(), handles.size());
  for (std::size_t i = 0; i < handles.size(); ++i) EXPECT_EQ(out[i], &handles[i]) << i;
  EXPECT_EQ(queue.pop(), nullptr);
}

TEST(PrefetchQueue, DrainsAPartlyFilledQueueAndRefills) {
  vm::Handle a{}, b{}, c{};
  int object = 0;
  a.object = b.object = c.object = &object;
  PrefetchQueue<8> queue;
  EXPECT_EQ(queue.push(&a), nullptr);
  EXPECT_EQ(queue.push(&b), nullptr);
  EXPECT_EQ(queue.pop(), &a);
  EXPECT_EQ(queue.push(&c), nullptr);
  EXPECT_EQ(queue.pop(), &b);
  EXPECT_EQ(queue.pop(), &c);
  EXPECT_EQ(queue.pop(), nullptr);
}

}  // namespace
}  // namespace kith::gc
