// A policy's name as the name of a GoogleTest parameter, which may hold only
// letters, digits and '_': kingsley-coalescing runs as kingsley_coalescing.
#pragma once

#include <algorithm>
#include <string>

namespace kith::heap::testing {

inline std::string policyTestName(std::string policy) {
  std::replace(policy.begin(), policy.end(), '-', '_');
  return policy;
}

}  // namespace kith::heap::testing
