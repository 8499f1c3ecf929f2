#include "heap/statistics/statistics_report.h"

#include <cstdio>
#include <string>
#include <utility>

#include "heap/outcome.h"

namespace kith::heap {

std::string jsonNumber(double x) {
  if (x != x || x == 1.0 / 0.0 || x == -1.0 / 0.0) return "0";
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.6g", x);
  return buf;
}

std::string jsonString(std::string_view s) {
  std::string out = "\"";
  for (char c : s) {
    if (c == '"' || c == '\\') {
      out += '\\';
      out += c;
    } else if (static_cast<unsigned char>(c) < 0x20) {  // control characters, as \u00XX
      char escaped[8];
      std::snprintf(escaped, sizeof escaped, "\\u%04x", static_cast<unsigned>(c));
      out += escaped;
    } else {
      out += c;
    }
  }
  return out + "\"";
}

namespace {

// Without per-operation timers the values are null, not 0: a 0 would read as measured.
std::string latencyJson(const LatencySummary& l, bool timed) {
  if (!timed) return "{\"count\": 0, \"mean\": null, \"p50\": null, \"p99\": null, \"max\": null}";
  return "{\"count\": " + std::to_string(l.count) + ", \"mean\": " + jsonNumber(l.mean) + ", \"p50\": " + jsonNumber(l.p50) + ", \"p99\": " + jsonNumber(l.p99) +
         ", \"max\": " + jsonNumber(l.max) + "}";
}

// {"count": N, "mean": X, "max": N, "histogram": {"0": N, ..., "64": N, "128": N}}:
// histogram keys are the buckets' lower bounds (step_histogram.h), empty buckets left out.
std::string stepsJson(const StepSummary& s) {
  std::string histogram;
  for (auto [lower, count] : s.histogram) {
    if (!histogram.empty()) histogram += ", ";
    histogram += "\"" + std::to_string(lower) + "\": " + std::to_string(count);
  }
  return "{\"count\": " + std::to_string(s.count) + ", \"mean\": " + jsonNumber(s.mean) +
         ", \"max\": " + std::to_string(s.max) + ", \"histogram\": {" + histogram + "}}";
}

// The "steps" member with its leading ",\n  ", or nothing for a policy that counts none.
std::string stepsMember(const HeapStatistics& h) {
  if (!h.malloc_steps.counted && !h.free_steps.counted) return "";
  std::string out = ",\n  \"steps\": {";
  if (h.malloc_steps.counted) out += "\"malloc\": " + stepsJson(h.malloc_steps);
  if (h.malloc_steps.counted && h.free_steps.counted) out += ",\n            ";
  if (h.free_steps.counted) out += "\"free\": " + stepsJson(h.free_steps);
  return out + "}";
}

}  // namespace

std::string heapStatisticsJson(const HeapStatistics& h) {
  std::string histogram;
  for (auto [size, count] : h.size_histogram) {
    if (!histogram.empty()) histogram += ", ";
    histogram += "\"" + std::to_string(size) + "\": " + std::to_string(count);
  }
  std::string satisfied;
  for (int i = 0; i < kOutcomeCount; ++i) {
    if (i) satisfied += ", ";
    satisfied += std::string("\"") + outcomeName(static_cast<Outcome>(i)) + "\": " +
                 std::to_string(h.satisfied[i]);
  }
  auto n = [](std::uint64_t v) { return std::to_string(v); };
  const std::string source =
      h.immediate_source_known
          ? "{\"recycled\": " + n(h.satisfied[static_cast<int>(Outcome::immediate)] - h.immediate_leftover) +
                ", \"leftover\": " + n(h.immediate_leftover) + "}"
          : "null";
  return "{\"allocations\": " + n(h.allocations) + ", \"frees\": " + n(h.frees) +
         ", \"bytes_requested\": " + n(h.bytes_requested) + ", \"bytes_allocated\": " + n(h.bytes_allocated) +
         ", \"bytes_in_use\": " + n(h.bytes_in_use) + ", \"peak_bytes_in_use\": " + n(h.peak_bytes_in_use) +
         ", \"failed_allocations\": " + n(h.failed_allocations) + ",\n  \"size_histogram\": {" + histogram + "},\n" +
         "  \"satisfied\": {" + satisfied + "}, \"immediate_source\": " + source + stepsMember(h) +
         ",\n  \"op_timers\": " + (h.op_timers ? "true" : "false") +
         ", \"alloc_ns\": " + latencyJson(h.alloc_ns, h.op_timers) +
         ", \"free_ns\": " + latencyJson(h.free_ns, h.op_timers) + ",\n  \"fragmentation\": {\"internal_bytes\": " +
         n(h.internal_bytes) + ", \"external_at_failure\": " + jsonNumber(h.external_at_failure) + "}}";
}

namespace {

std::string formatted(const char* pattern, auto... values) {
  char buf[256];
  std::snprintf(buf, sizeof buf, pattern, values...);
  return buf;
}

// "32: 4407, 64: 17, ...", wrapped under the value column after about 100 columns.
std::string sizeHistogramLines(const HeapStatistics& h) {
  std::string value, line;
  for (auto [size, count] : h.size_histogram) {
    std::string entry = std::to_string(size) + ": " + std::to_string(count);
    if (!line.empty() && line.size() + entry.size() > 76) {
      value += line + ",\n" + std::string(22, ' ');
      line.clear();
    } else if (!line.empty()) {
      line += ", ";
    }
    line += entry;
  }
  return statisticsTableLine("block sizes", value + (value.empty() && line.empty() ? "none" : line));
}

std::string latencyLine(const char* label, const LatencySummary& l, bool timed) {
  if (!timed) return statisticsTableLine(label, "not timed (--stats-timers=off)");
  return statisticsTableLine(label, formatted("mean %.1f, p50 %.1f, p99 %.1f, max %.1f (%llu timed)", l.mean, l.p50,
                                              l.p99, l.max, static_cast<unsigned long long>(l.count)));
}

}  // namespace

std::string statisticsTableLine(std::string_view label, const std::string& value) {
  char head[40];
  std::snprintf(head, sizeof head, "  %-20.*s", static_cast<int>(label.size()), label.data());
  return head + value + "\n";
}

std::string heapStatisticsTable(const HeapStatistics& h) {
  auto u = [](std::uint64_t v) { return static_cast<unsigned long long>(v); };
  std::string out = "heap\n";
  out += statisticsTableLine("allocations", formatted("%llu (%llu bytes requested, %llu allocated)",
                                                      u(h.allocations), u(h.bytes_requested), u(h.bytes_allocated)));
  out += statisticsTableLine("frees", std::to_string(h.frees));
  out += statisticsTableLine("bytes in use", formatted("%llu (peak %llu)", u(h.bytes_in_use), u(h.peak_bytes_in_use)));
  out += statisticsTableLine("failed allocations", std::to_string(h.failed_allocations));
  std::string satisfied;
  for (int i = 0; i < kOutcomeCount; ++i)
    satisfied +=
        std::string(i ? ", " : "") + outcomeName(static_cast<Outcome>(i)) + " " + std::to_string(h.satisfied[i]);
  out += statisticsTableLine("satisfied", satisfied);
  out += statisticsTableLine(
      "immediate from",
      h.immediate_source_known
          ? formatted("recycled %llu, leftover %llu (a block no free had returned)",
                      u(h.satisfied[static_cast<int>(Outcome::immediate)] - h.immediate_leftover),
                      u(h.immediate_leftover))
          : std::string(h.immediate_source_skipped ? "not tracked (--stats-sources=off)"
                                                   : "not tracked by this policy"));
  out += sizeHistogramLines(h);
  out += latencyLine("alloc ns", h.alloc_ns, h.op_timers);
  out += latencyLine("free ns", h.free_ns, h.op_timers);
  for (auto [label, steps] : {std::pair{"malloc steps", &h.malloc_steps}, std::pair{"free steps", &h.free_steps}})
    if (steps->counted) out += statisticsTableLine(label, formatted("mean %.2f, max %llu", steps->mean, u(steps->max)));
  const std::string external = jsonNumber(h.external_at_failure);
  out += statisticsTableLine("fragmentation", formatted("internal %llu bytes, external at failure %s",
                                                        u(h.internal_bytes), external.c_str()));
  return out;
}

}  // namespace kith::heap
