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
    if (&h < &handles[4]) {
      EXPECT_EQ(ready, nullptr) << "nothing leaves while the queue fills";
    }
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

// A scan that finds more work (a tree's children) while the queue holds older handles:
// pump scans every node once, also when next() runs dry before the queue is empty.
TEST(PrefetchQueue, PumpScansEveryNodeOfATreeOnce) {
  constexpr std::size_t kNodes = 1000;
  std::vector<vm::Handle> nodes(kNodes);
  int object = 0;
  for (auto& h : nodes) h.object = &object;
  std::vector<vm::Handle*> stack{&nodes[0]};
  std::vector<int> scans(kNodes, 0);
  PrefetchQueue<8>().pump(
      [&]() -> vm::Handle* {
        if (stack.empty()) return nullptr;
        vm::Handle* h = stack.back();
        stack.pop_back();
        return h;
      },
      [&](vm::Handle* h) {
        std::size_t i = static_cast<std::size_t>(h - nodes.data());
        ++scans[i];
        for (std::size_t child : {2 * i + 1, 2 * i + 2})
          if (child < kNodes) stack.push_back(&nodes[child]);
      });
  for (std::size_t i = 0; i < kNodes; ++i) EXPECT_EQ(scans[i], 1) << "node " << i;
}

// A budget that ends before the work does (a continuous slice): what next() holds back
// stays with the caller, and everything queued is scanned before pump returns.
TEST(PrefetchQueue, PumpWithABudgetLeavesTheRestUnqueued) {
  std::vector<vm::Handle> nodes(50);
  int object = 0;
  for (auto& h : nodes) h.object = &object;
  std::size_t nextIndex = 0, budget = 20, scanned = 0;
  PrefetchQueue<8>().pump(
      [&]() -> vm::Handle* {
        if (budget == 0 || nextIndex == nodes.size()) return nullptr;
        --budget;
        return &nodes[nextIndex++];
      },
      [&](vm::Handle*) { ++scanned; });
  EXPECT_EQ(scanned, 20u);
  EXPECT_EQ(nextIndex, 20u);
}

}  // namespace
}  // namespace kith::gc
