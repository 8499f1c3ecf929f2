// Every registered policy, and the hand-written references (kingsley-bsd), through
// the same type-erased entry point the VM uses, against the shadow model: 1,000,000
// random operations each, with the policy's own invariant checker run along the
// way. Seeds are fixed and printed on failure.
#include <gtest/gtest.h>

#include <string>

#include "heap/heap.h"
#include "tests/heap/policy_test_name.h"
#include "tests/heap/shadow_model.h"

namespace kith::heap {
namespace {

constexpr std::size_t kArenaBytes = 32u << 20;

class PolicyRandom : public ::testing::TestWithParam<std::string> {};

std::string policyTestName(const ::testing::TestParamInfo<std::string>& info) {
  return testing::policyTestName(info.param);
}

// The studied policies and the hand-written references they are measured against.
std::vector<std::string> allPolicies() {
  std::vector<std::string> names;
  for (const auto* list : {&policyList(), &referenceList()})
    for (const auto& p : *list) names.emplace_back(p.name);
  return names;
}

void runMix(const std::string& policy, testing::SizeMix mix, std::uint64_t seed) {
  auto heap = makeHeap(policy, kArenaBytes, StatisticsMode::counts);
  ASSERT_NE(heap, nullptr);
  auto r = testing::runShadowModel(*heap,
                                   {.seed = seed, .operations = 1'000'000, .mix = mix, .checkEvery = 10'000},
                                   [&] { return heap->checkInvariants(); });
  EXPECT_EQ(r.error, "") << policy << " seed " << seed;
  EXPECT_GT(r.mallocs, 400'000u);
  EXPECT_EQ(r.mallocs, r.frees);
  // A 32 MiB heap holds the harness's few MiB of live data on every policy.
  EXPECT_EQ(r.failures, 0u);
  HeapStatistics s = heap->statistics();
  EXPECT_EQ(s.allocations, r.mallocs);
  EXPECT_EQ(s.frees, r.frees);
  EXPECT_EQ(s.bytes_in_use, 0u);
  EXPECT_GE(s.bytes_allocated, s.bytes_requested);
}

TEST_P(PolicyRandom, JvmLikeMillionOperations) { runMix(GetParam(), testing::SizeMix::jvmLike, 20261121); }

TEST_P(PolicyRandom, FragmentingQuarterMillion) {
  auto heap = makeHeap(GetParam(), kArenaBytes, StatisticsMode::counts);
  auto r = testing::runShadowModel(*heap, {.seed = 42, .operations = 250'000,
                                           .mix = testing::SizeMix::fragmenting, .checkEvery = 5'000},
                                   [&] { return heap->checkInvariants(); });
  EXPECT_EQ(r.error, "") << GetParam();
  EXPECT_EQ(r.mallocs, r.frees);
}

INSTANTIATE_TEST_SUITE_P(AllPolicies, PolicyRandom, ::testing::ValuesIn(allPolicies()), policyTestName);

TEST(PolicyRegistry, UnknownNameGivesNull) {
  EXPECT_EQ(makeHeap("no-such-policy", 1 << 20), nullptr);
  EXPECT_FALSE(isPolicy("no-such-policy"));
  EXPECT_TRUE(isPolicy("malloc"));
  EXPECT_NE(policyNames().find("malloc"), std::string::npos);
}

}  // namespace
}  // namespace kith::heap
