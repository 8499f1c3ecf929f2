#include "cli/defrag_bench.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <memory>
#include <numeric>
#include <stdexcept>

#include "heap/layers/fixed_arena.h"
#include "heap/policies.h"
#include "heap/workload.h"

namespace kith::cli {
namespace {

constexpr std::size_t kGranule = 16;

// The bench's own record of the objects, by granule; it is the relocation
// callback's context, so it follows every move and checks the copy.
struct Objects {
  std::byte* base = nullptr;
  std::vector<std::uint32_t> id;  // id + 1 of the object at each granule; 0: none
  std::size_t moves = 0, bytes = 0;
  std::string error;

  std::size_t granule(const void* p) const {
    return static_cast<std::size_t>(static_cast<const std::byte*>(p) - base) / kGranule;
  }
  void write(std::size_t g, std::uint32_t value) {
    id[g] = value;
    std::memcpy(base + g * kGranule, &value, sizeof value);
  }
  bool holds(std::size_t g) const {
    std::uint32_t value = 0;
    std::memcpy(&value, base + g * kGranule, sizeof value);
    return id[g] != 0 && value == id[g];
  }

  static void relocate(void* context, void* from, void* to, std::size_t size) {
    auto* self = static_cast<Objects*>(context);
    const std::size_t f = self->granule(from), t = self->granule(to);
    ++self->moves;
    self->bytes += size;
    if (size != kGranule || self->id[f] == 0 || self->id[t] != 0) {
      if (self->error.empty()) self->error = "a move that is not of one live 16-byte object to a free place";
      return;
    }
    self->id[t] = self->id[f];
    self->id[f] = 0;
    if (!self->holds(t) && self->error.empty()) self->error = "a moved object lost its contents";
  }
};

struct Run {
  std::size_t moves, bytes, optimal;
};

template <class Policy>
Run runOnce(unsigned k, std::uint64_t seed) {
  const std::size_t granules = std::size_t{4} << k;
  auto heap = heap::makeHeapPretouched<Policy>(true, granules * kGranule);  // as every timing benchmark
  Objects objects;
  objects.base = heap->arenaBase();
  objects.id.assign(granules, 0);
  std::vector<std::size_t> all;
  for (std::size_t i = 0; i < granules; ++i) {
    void* p = heap->malloc(kGranule);
    if (!p) throw std::runtime_error("the heap does not hold 4 * 2^k objects of 16 bytes");
    all.push_back(objects.granule(p));
    objects.write(all.back(), static_cast<std::uint32_t>(i + 1));
  }
  heap::SeededRandom rng(seed * 1000 + k);
  for (std::size_t i = 0; i < all.size(); ++i) std::swap(all[i], all[i + rng.below(all.size() - i)]);
  for (std::size_t i = 0; i < (std::size_t{1} << k); ++i) {
    heap->free(objects.base + all[i] * kGranule);
    objects.id[all[i]] = 0;
  }
  // The least live bytes of an aligned region of 2^k granules.
  std::size_t optimal = SIZE_MAX;
  for (std::size_t r = 0; r < granules; r += std::size_t{1} << k) {
    std::size_t live = 0;
    for (std::size_t g = r; g < r + (std::size_t{1} << k); ++g) live += objects.id[g] != 0;
    optimal = std::min(optimal, live * kGranule);
  }

  heap->setRelocator(&Objects::relocate, &objects);
  void* block = heap->malloc(kGranule << k);
  if (!block) throw std::runtime_error("the request of 2^" + std::to_string(k) + " granules failed");
  if (!objects.error.empty()) throw std::runtime_error(objects.error);
  const std::size_t first = objects.granule(block);
  for (std::size_t g = 0; g < granules; ++g) {
    const bool inBlock = g >= first && g < first + (std::size_t{1} << k);
    if (inBlock ? objects.id[g] != 0 : objects.id[g] != 0 && !objects.holds(g))
      throw std::runtime_error("an object was lost or overwritten");
  }
  return {objects.moves, objects.bytes, optimal};
}

template <class Policy>
DefragBenchResult runAll(const std::string& policy, std::size_t seeds) {
  DefragBenchResult result{policy, {}};
  for (unsigned k = kDefragFirstK; k <= kDefragLastK; ++k) {
    DefragRow row;
    row.k = k;
    row.seeds = seeds;
    double moves = 0, bytes = 0, optimal = 0;
    for (std::size_t s = 1; s <= seeds; ++s) {
      const Run run = runOnce<Policy>(k, s);
      moves += static_cast<double>(run.moves);
      bytes += static_cast<double>(run.bytes);
      optimal += static_cast<double>(run.optimal);
      row.worstMoves = std::max(row.worstMoves, run.moves);
      if (run.optimal) row.worstRatio = std::max(row.worstRatio, double(run.bytes) / double(run.optimal));
    }
    const double n = static_cast<double>(seeds);
    row.moves = static_cast<std::size_t>(std::llround(moves / n));
    row.bytesMoved = static_cast<std::size_t>(std::llround(bytes / n));
    row.optimalBytes = static_cast<std::size_t>(std::llround(optimal / n));
    result.rows.push_back(row);
  }
  return result;
}

}  // namespace

DefragBenchResult runDefragBench(const std::string& policy, std::size_t seeds) {
  if (policy == "knuth") return runAll<heap::KnuthPolicy>(policy, seeds);
  if (policy == "estranged") return runAll<heap::EstrangedPolicy>(policy, seeds);
  throw std::invalid_argument("bench defrag runs on knuth or estranged, not " + policy);
}

std::string defragTable(const DefragBenchResult& r) {
  char buf[256];
  std::string out;
  std::snprintf(buf, sizeof buf,
                "Defragmentation (%s): a heap of 4 * 2^k granules full of 16-byte objects, 2^k freed\n"
                "at random, then one request of 2^k granules; mean of %zu seeds.\n\n",
                r.policy.c_str(), r.rows.empty() ? std::size_t{0} : r.rows.front().seeds);
  out += buf;
  std::snprintf(buf, sizeof buf, "%3s %10s %12s %14s %12s %12s\n", "k", "moves", "bytes moved", "optimal bytes",
                "worst moves", "worst ratio");
  out += buf;
  for (const DefragRow& row : r.rows) {
    std::snprintf(buf, sizeof buf, "%3u %10zu %12zu %14zu %12zu %12.2f\n", row.k, row.moves, row.bytesMoved,
                  row.optimalBytes, row.worstMoves, row.worstRatio);
    out += buf;
  }
  return out;
}

std::string defragJson(const DefragBenchResult& r) {
  std::string out = "{\"rows\": [";
  char buf[160];
  for (std::size_t i = 0; i < r.rows.size(); ++i) {
    const DefragRow& row = r.rows[i];
    std::snprintf(buf, sizeof buf, "%s{\"k\": %u, \"moves\": %zu, \"bytes_moved\": %zu, \"optimal_bytes\": %zu}",
                  i ? ", " : "", row.k, row.moves, row.bytesMoved, row.optimalBytes);
    out += buf;
  }
  return out + "]}\n";
}

}  // namespace kith::cli
