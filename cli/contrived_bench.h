// `kith bench contrived`: the paper's Figure 8 experiment (estranged-buddy §3.1).
// Fill most of the heap with N equal objects, free every other one (what a
// collection of the dead half would do), then time one request for a larger
// block. The unstructured list must walk past N/2 small free blocks; the
// segregated heaps go straight to a fitting size class. Each repetition fills a
// fresh heap; the request's time is summarised over them, and its steps are the
// policy's own count (lastSteps()), not computed.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "cli/sample_summary.h"

namespace kith::cli {

// The objects' bytes as a fraction of the heap. 0.6 is "most of the heap" for the
// policy with the largest blocks: the list's 48-byte blocks (32 B + its 16-byte
// boundary tag) then take 90% of it, and the list cannot go much above 0.65 and
// still hold the request.
inline constexpr double kDefaultContrivedFill = 0.6;

struct ContrivedPolicyResult {
  std::vector<double> samplesNs;  // the request's time in each repetition, in order
  SampleSummary ns;
  std::size_t steps = 0;        // lastSteps() of the request (the same in every repetition)
  long maxPageFaults = 0;       // minor faults during the request, the most of any repetition
};

struct ContrivedResult {
  std::size_t heapBytes = 0;
  double fill = 0;
  std::size_t n = 0;            // objects allocated before the free of every other one
  std::size_t objectBytes = 0;  // size of each of them
  std::size_t requestBytes = 0; // the larger request that is timed
  int repetitions = 0;
  ContrivedPolicyResult list, knuth, estranged, tlsf;
};

// Throws std::runtime_error when the heap cannot hold the fill or serve the request.
ContrivedResult runContrived(std::size_t heapBytes, int repetitions, double fill = kDefaultContrivedFill);
std::string contrivedTable(const ContrivedResult& r);
std::string contrivedJson(const ContrivedResult& r);

}  // namespace kith::cli
