// `kith bench defrag`: how much one defragmenting request of a buddy heap copies,
// against the least it could copy. For each k = 4 ... 12 and each seed: a heap of
// 4 * 2^k granules (16 << (k+2) bytes) filled with 16-byte objects, 2^k of them
// freed at random (the heap is 75% full and its free bytes are exactly one block of
// level k), then one request of 2^k granules, which only defragmentation can serve.
// Each row gives the blocks and bytes the defragmenter moved (relocation callbacks)
// and the fewest live bytes in any aligned 2^k-granule region: every way of serving
// the request must empty some such region, and here, where every object is 16
// bytes, emptying the emptiest one is possible, so that is the optimum.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace kith::cli {

struct DefragRow {
  unsigned k = 0;                // the request is 2^k granules (16 << k bytes)
  std::size_t seeds = 0;         // runs averaged
  std::size_t moves = 0;         // blocks moved, mean over the runs (rounded)
  std::size_t bytesMoved = 0;    // bytes moved, mean over the runs (rounded)
  std::size_t optimalBytes = 0;  // fewest live bytes of an aligned region, mean
  std::size_t worstMoves = 0;    // the most blocks one run moved
  double worstRatio = 0;         // the largest bytes moved / optimal bytes of one run
};

struct DefragBenchResult {
  std::string policy;  // "knuth" or "estranged"
  std::vector<DefragRow> rows;
};

constexpr unsigned kDefragFirstK = 4, kDefragLastK = 12;
constexpr std::size_t kDefragSeeds = 5;

// Throws std::runtime_error if a request fails or a moved object lost its contents.
DefragBenchResult runDefragBench(const std::string& policy, std::size_t seeds = kDefragSeeds);
std::string defragTable(const DefragBenchResult& r);
// {"rows": [{"k": K, "moves": N, "bytes_moved": N, "optimal_bytes": N}, ...]}
std::string defragJson(const DefragBenchResult& r);

}  // namespace kith::cli
