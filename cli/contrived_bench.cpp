#include "cli/contrived_bench.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <memory>
#include <stdexcept>
#include <vector>

#include "heap/policies.h"

namespace kith::cli {
namespace {

constexpr std::size_t kObjectBytes = 32;    // a typical small Java object (paper §3.4)
constexpr std::size_t kRequestBytes = 1024; // larger than any freed hole

// Same N on every policy: 3/4 of the heap at 64 bytes per object leaves room
// for the largest per-block overhead among the policies.
std::size_t objectCount(std::size_t heapBytes) { return heapBytes / 4 * 3 / 64; }

template <class Policy>
double timeOneLargerRequest(std::size_t heapBytes) {
  auto heap = std::make_unique<Policy>(heapBytes);
  std::size_t n = objectCount(heapBytes);
  std::vector<void*> objects(n);
  for (auto& p : objects) {
    p = heap->malloc(kObjectBytes);
    if (!p) throw std::runtime_error("heap too small for the contrived experiment");
  }
  for (std::size_t i = 0; i < n; i += 2) heap->free(objects[i]);
  auto start = std::chrono::steady_clock::now();
  void* big = heap->malloc(kRequestBytes);
  auto stop = std::chrono::steady_clock::now();
  if (!big) throw std::runtime_error("the larger request failed");
  return std::chrono::duration<double, std::nano>(stop - start).count();
}

template <class Policy>
double medianOf(std::size_t heapBytes, int repetitions) {
  std::vector<double> times;
  for (int i = 0; i < repetitions; ++i) times.push_back(timeOneLargerRequest<Policy>(heapBytes));
  std::sort(times.begin(), times.end());
  return times[times.size() / 2];
}

}  // namespace

ContrivedResult runContrived(std::size_t heapBytes, int repetitions) {
  ContrivedResult r;
  r.n = objectCount(heapBytes);
  r.objectBytes = kObjectBytes;
  r.requestBytes = kRequestBytes;
  r.repetitions = repetitions;
  r.listNs = medianOf<heap::ListPolicy>(heapBytes, repetitions);
  r.knuthNs = medianOf<heap::KnuthPolicy>(heapBytes, repetitions);
  r.estrangedNs = medianOf<heap::EstrangedPolicy>(heapBytes, repetitions);
  r.tlsfNs = medianOf<heap::TlsfPolicy>(heapBytes, repetitions);
  return r;
}

std::string contrivedTable(const ContrivedResult& r) {
  char buf[1024];
  std::string out;
  std::snprintf(buf, sizeof buf,
                "Contrived worst case (paper Fig. 8): %zu objects of %zu B, every other one freed,\n"
                "then one %zu B request; median of %d runs.\n\n"
                "%-10s %14s %18s\n",
                r.n, r.objectBytes, r.requestBytes, r.repetitions, "policy", "request (ns)", "speedup over list");
  out += buf;
  auto row = [&](const char* name, double ns) {
    std::snprintf(buf, sizeof buf, "%-10s %14.0f %17.1fx\n", name, ns, r.listNs / ns);
    out += buf;
  };
  row("list", r.listNs);
  row("knuth", r.knuthNs);
  row("estranged", r.estrangedNs);
  row("tlsf", r.tlsfNs);
  return out;
}

std::string contrivedJson(const ContrivedResult& r) {
  char buf[512];
  std::snprintf(buf, sizeof buf,
                "{\"n\": %zu, \"object_bytes\": %zu, \"request_bytes\": %zu, \"repetitions\": %d, "
                "\"list_ns\": %.1f, \"knuth_ns\": %.1f, \"estranged_ns\": %.1f, \"tlsf_ns\": %.1f}\n",
                r.n, r.objectBytes, r.requestBytes, r.repetitions, r.listNs, r.knuthNs, r.estrangedNs,
                r.tlsfNs);
  return buf;
}

}  // namespace kith::cli
