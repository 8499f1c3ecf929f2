#include "preload/preload_settings.h"

#include <unistd.h>

#include <cstdlib>
#include <cstring>
#include <string_view>

#include "heap/byte_size.h"
#include "preload/policy_choice.h"
#include "preload/preload_environment.h"

namespace kith::preload {
namespace {

const char* variable(const char* name) {
  const char* value = std::getenv(name);
  return value && *value ? value : nullptr;
}

}  // namespace

std::optional<std::string> readSettings(PreloadSettings& out) {
  out.policy = kDefaultPolicy;
  if (const char* policy = variable(kHeapVariable)) out.policy = policy;
  if (auto problem = programMallocProblem(out.policy))
    return std::string(kHeapVariable) + "=" + out.policy + ": " + *problem;

  out.heapBytes = kDefaultHeapBytes;
  if (const char* size = variable(kHeapSizeVariable)) {
    auto bytes = heap::parseByteSize(size);
    if (!bytes || *bytes < kMinHeapBytes)
      return std::string(kHeapSizeVariable) + "=" + size + ": wants a size of at least 16K, like 64M, 1G or 1T";
    out.heapBytes = *bytes;
  }

  if (const char* stats = variable(kStatsVariable)) {
    if (std::strcmp(stats, "table") == 0) out.stats = StatsFormat::table;
    else if (std::strcmp(stats, "json") == 0) out.stats = StatsFormat::json;
    else return std::string(kStatsVariable) + "=" + stats + ": wants table or json";
  }
  if (const char* path = variable(kStatsFileVariable)) out.statsFile = path;
  if (const char* path = variable(kTraceVariable)) out.tracePath = path;

  if (const char* check = variable(kCheckVariable)) {
    if (std::strcmp(check, "1") == 0) out.check = true;
    else if (std::strcmp(check, "0") != 0) return std::string(kCheckVariable) + "=" + check + ": wants 1 or 0";
  }

  out.rootPid = ::getpid();  // a process started without the variable is the first
  if (const char* root = variable(kRootPidVariable)) {
    char* end = nullptr;
    long pid = std::strtol(root, &end, 10);
    if (*end != '\0' || pid <= 0) return std::string(kRootPidVariable) + "=" + root + ": wants a process id";
    out.rootPid = pid;
  }
  return std::nullopt;
}

}  // namespace kith::preload
