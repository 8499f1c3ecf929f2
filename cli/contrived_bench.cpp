#include "cli/contrived_bench.h"

#include <sys/resource.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <memory>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "heap/layers/fixed_arena.h"
#include "heap/policies.h"

namespace kith::cli {
namespace {

constexpr std::size_t kObjectBytes = 32;    // a typical small Java object (paper §3.4)
constexpr std::size_t kRequestBytes = 1024; // larger than any freed hole

// Same N on every policy, so each sees the same program. N is even, so the last object
// stays live: freed, it would join the arena's free tail and sit at the list's head,
// and the request would take it at once.
std::size_t objectCount(std::size_t heapBytes, double fill) {
  return static_cast<std::size_t>(fill * static_cast<double>(heapBytes)) / kObjectBytes & ~std::size_t{1};
}

long minorFaults() {
  rusage usage{};
  getrusage(RUSAGE_SELF, &usage);
  return usage.ru_minflt;
}

struct OneRequest {
  double ns;
  std::size_t steps;
  long pageFaults;
};

template <class Policy>
OneRequest timeOneLargerRequest(const char* name, std::size_t heapBytes, std::size_t n) {
  // Populated up front: the request's latency is the allocator's, with no first-touch page faults.
  auto heap = heap::makeHeapPretouched<Policy>(true, heapBytes);
  std::vector<void*> objects(n);
  for (auto& p : objects) {
    p = heap->malloc(kObjectBytes);
    if (!p)
      throw std::runtime_error(std::string("the heap cannot hold the fill on ") + name + "; lower --fill");
  }
  for (std::size_t i = 0; i < n; i += 2) heap->free(objects[i]);
  const long faultsBefore = minorFaults();
  auto start = std::chrono::steady_clock::now();
  void* big = heap->malloc(kRequestBytes);
  auto stop = std::chrono::steady_clock::now();
  const long faults = minorFaults() - faultsBefore;
  if (!big) throw std::runtime_error(std::string("the larger request failed on ") + name + "; lower --fill");
  return {std::chrono::duration<double, std::nano>(stop - start).count(), heap->lastSteps(), faults};
}

template <class Policy>
ContrivedPolicyResult repeat(const char* name, std::size_t heapBytes, std::size_t n, int repetitions) {
  ContrivedPolicyResult r;
  for (int i = 0; i < repetitions; ++i) {
    OneRequest one = timeOneLargerRequest<Policy>(name, heapBytes, n);
    r.samplesNs.push_back(one.ns);
    r.steps = std::max(r.steps, one.steps);  // deterministic: every repetition counts the same
    r.maxPageFaults = std::max(r.maxPageFaults, one.pageFaults);
  }
  r.ns = summarize(r.samplesNs);
  return r;
}

}  // namespace

ContrivedResult runContrived(std::size_t heapBytes, int repetitions, double fill) {
  // The first calls resolve and page in the clock's and getrusage's code: not in a sample.
  (void)std::chrono::steady_clock::now();
  (void)minorFaults();
  ContrivedResult r;
  r.heapBytes = heapBytes;
  r.fill = fill;
  r.n = objectCount(heapBytes, fill);
  r.objectBytes = kObjectBytes;
  r.requestBytes = kRequestBytes;
  r.repetitions = repetitions;
  r.list = repeat<heap::ListPolicy>("list", heapBytes, r.n, repetitions);
  r.knuth = repeat<heap::KnuthPolicy>("knuth", heapBytes, r.n, repetitions);
  r.estranged = repeat<heap::EstrangedPolicy>("estranged", heapBytes, r.n, repetitions);
  r.tlsf = repeat<heap::TlsfPolicy>("tlsf", heapBytes, r.n, repetitions);
  return r;
}

std::string contrivedTable(const ContrivedResult& r) {
  char buf[1024];
  std::string out;
  std::snprintf(buf, sizeof buf,
                "Contrived worst case (paper Fig. 8): %zu objects of %zu B (%.0f%% of the %zu B heap), every\n"
                "other one freed, then one %zu B request; %d repetitions, each on a fresh heap.\n"
                "Steps: the policy's own count for the request (list: free blocks walked).\n\n"
                "%-10s %12s %12s %25s %10s %8s %10s\n",
                r.n, r.objectBytes, r.fill * 100, r.heapBytes, r.requestBytes, r.repetitions, "policy",
                "median ns", "mean ns", "95% interval of mean", "steps", "faults", "over list");
  out += buf;
  auto row = [&](const char* name, const ContrivedPolicyResult& p) {
    std::snprintf(buf, sizeof buf, "%-10s %12.0f %12.0f %12.0f .. %-10.0f %10zu %8ld %9.1fx\n", name, p.ns.median,
                  p.ns.mean, p.ns.ciLow, p.ns.ciHigh, p.steps, p.maxPageFaults, r.list.ns.median / p.ns.median);
    out += buf;
  };
  row("list", r.list);
  row("knuth", r.knuth);
  row("estranged", r.estranged);
  row("tlsf", r.tlsf);
  return out;
}

// The keys of the first version (n ... tlsf_ns, the medians) stay, list_ns..tlsf_ns last.
std::string contrivedJson(const ContrivedResult& r) {
  auto number = [](double x) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.1f", x);
    return std::string(buf);
  };
  char fillText[32];
  std::snprintf(fillText, sizeof fillText, "%g", r.fill);
  std::string out = "{\"n\": " + std::to_string(r.n) + ", \"object_bytes\": " + std::to_string(r.objectBytes) +
                    ", \"request_bytes\": " + std::to_string(r.requestBytes) +
                    ", \"repetitions\": " + std::to_string(r.repetitions) + ", \"heap_size\": " +
                    std::to_string(r.heapBytes) + ", \"fill\": " + fillText;
  const std::pair<const char*, const ContrivedPolicyResult*> policies[] = {
      {"list", &r.list}, {"knuth", &r.knuth}, {"estranged", &r.estranged}, {"tlsf", &r.tlsf}};
  for (auto [name, p] : policies) {
    const std::string k = std::string(", \"") + name;
    std::string samples;
    for (double x : p->samplesNs) samples += (samples.empty() ? "" : ", ") + number(x);
    out += k + "_steps\": " + std::to_string(p->steps) + k + "_page_faults\": " + std::to_string(p->maxPageFaults) +
           k + "_ns_mean\": " + number(p->ns.mean) + k + "_ns_ci_low\": " + number(p->ns.ciLow) + k +
           "_ns_ci_high\": " + number(p->ns.ciHigh) + k + "_ns_samples\": [" + samples + "]";
  }
  for (auto [name, p] : policies) out += std::string(", \"") + name + "_ns\": " + number(p->ns.median);
  return out + "}\n";
}

}  // namespace kith::cli
