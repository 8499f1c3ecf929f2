// `kith bench contrived`: the paper's Figure 8 experiment (estranged-buddy §3.1).
// Fill most of the heap with N equal objects, free every other one (what a
// collection of the dead half would do), then time one request for a larger
// block. The unstructured list must walk past N/2 small free blocks; the
// segregated heaps go straight to a fitting size class.
#pragma once

#include <cstddef>
#include <string>

namespace kith::cli {

struct ContrivedResult {
  std::size_t n = 0;            // objects allocated before the free of every other one
  std::size_t objectBytes = 0;  // size of each of them
  std::size_t requestBytes = 0; // the larger request that is timed
  double listNs = 0, knuthNs = 0, estrangedNs = 0, tlsfNs = 0;  // median over repetitions
  int repetitions = 0;
};

ContrivedResult runContrived(std::size_t heapBytes, int repetitions);
std::string contrivedTable(const ContrivedResult& r);
std::string contrivedJson(const ContrivedResult& r);

}  // namespace kith::cli
