#include "preload/exit_report.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <vector>

#include "heap/statistics/statistics_report.h"
#include "preload/output_path.h"
#include "preload/stderr_line.h"
#include "preload/whole_file.h"

namespace kith::preload {
namespace {

std::string n(std::uint64_t v) { return std::to_string(v); }

// Whole or not at all (whole_file.h): an earlier file at `path` stays as it was
// unless the new one is complete.
void writeFile(const std::string& path, const std::string& text) {
  std::string partial = partialPath(path);
  int fd = ::open(partial.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0666);
  if (fd < 0) {
    writeStderrLine("kith: %s: %s", path.c_str(), std::strerror(errno));
    return;
  }
  bool ok = writeAll(fd, text.data(), text.size());
  int error = errno;
  if (::close(fd) != 0 && ok) {
    ok = false;
    error = errno;
  }
  if (ok && !publish(partial, path)) {
    ok = false;
    error = errno;
  }
  if (!ok) {
    abandon(partial, path);
    writeStderrLine("kith: %s: %s", path.c_str(), std::strerror(error));
  }
}

}  // namespace

std::string reportJson(const ProcessReport& r) {
  std::string block = heap::heapStatisticsJson(r.heap);
  block.pop_back();  // the block's closing brace: what only a whole program has goes inside
  block += ",\n  \"reallocs\": {\"in_place\": " + n(r.counts.reallocsInPlace) +
           ", \"moved\": " + n(r.counts.reallocsMoved) + "}, \"aligned_requests\": " + n(r.counts.alignedRequests) +
           ", \"peak_requested_bytes\": " + n(r.peakRequested) + ", \"memory_consumption_bytes\": " + (r.memoryConsumption ? n(*r.memoryConsumption) : "null") +
           ", \"arena_resident_bytes\": " + (r.arenaResident ? n(*r.arenaResident) : "null") + "}";
  return "{\"policy\": " + heap::jsonString(r.policy) + ", \"heap_size\": " + n(r.heapBytes) +
         ", \"check\": " + (r.check ? "true" : "false") + ",\n \"process\": {\"pid\": " + n(static_cast<std::uint64_t>(r.pid)) +
         ", \"command\": " + heap::jsonString(r.command) + ", \"peak_rss_bytes\": " + n(r.peakRss) +
         "},\n \"heap\": " + block + "}\n";
}

std::string reportTable(const ProcessReport& r) {
  std::string out = "kith exec: process " + n(static_cast<std::uint64_t>(r.pid)) + " (" + r.command + "), policy " +
                    r.policy + ", heap " + n(r.heapBytes) + " bytes" + (r.check ? ", checked" : "") + "\n";
  out += heap::heapStatisticsTable(r.heap);
  out += heap::statisticsTableLine("reallocs", n(r.counts.reallocsInPlace) + " in place, " +
                                                   n(r.counts.reallocsMoved) + " moved");
  out += heap::statisticsTableLine("aligned requests", n(r.counts.alignedRequests));
  out += heap::statisticsTableLine("peak requested", n(r.peakRequested) + " bytes live, as the program asked for them");
  out += heap::statisticsTableLine(
      "memory consumption",
      (r.memoryConsumption ? n(*r.memoryConsumption) + " bytes, the highest arena offset a block reached (" +
                                 n(r.arenaResident.value_or(0)) + " bytes of the arena resident at exit)"
                           : std::string("no arena")) +
          " (peak RSS " + n(r.peakRss) + " bytes)");
  return out;
}

std::size_t residentBytes(const void* base, std::size_t size) {
  const auto page = static_cast<std::size_t>(::sysconf(_SC_PAGESIZE));
  constexpr std::size_t kPagesAtOnce = 1 << 16;  // a 64 KiB vector however large the arena
  std::vector<unsigned char> resident(kPagesAtOnce);
  std::size_t pages = (size + page - 1) / page, touched = 0;
  auto* at = static_cast<unsigned char*>(const_cast<void*>(base));
  for (std::size_t done = 0; done < pages;) {
    std::size_t count = std::min(kPagesAtOnce, pages - done);
    if (::mincore(at + done * page, count * page, resident.data()) != 0) return 0;
    for (std::size_t i = 0; i < count; ++i) touched += resident[i] & 1;
    done += count;
  }
  return touched * page;
}

std::size_t peakResidentBytes() {
  // VmHWM: the peak of this program's own address space, which exec starts anew.
  // getrusage's ru_maxrss also keeps the peak of what exec replaced — the pages of
  // kith (or of whatever forked this process) before it ran COMMAND — a floor of a
  // few MB under every small program.
  char status[8192];
  int fd = ::open("/proc/self/status", O_RDONLY | O_CLOEXEC);
  if (fd >= 0) {
    ssize_t n = ::read(fd, status, sizeof status - 1);
    ::close(fd);
    if (n > 0) {
      status[n] = '\0';
      if (const char* line = std::strstr(status, "\nVmHWM:")) return std::strtoull(line + 7, nullptr, 10) * 1024;
    }
  }
  rusage usage{};
  if (::getrusage(RUSAGE_SELF, &usage) != 0) return 0;
  return static_cast<std::size_t>(usage.ru_maxrss) * 1024;  // KiB on Linux
}

void writeReport(const PreloadSettings& settings, const ProcessReport& report) {
  if (settings.stats == StatsFormat::table) {
    std::string text = reportTable(report);
    writeStderr(text.data(), text.size());
  } else if (settings.stats == StatsFormat::json) {
    std::string text = reportJson(report);
    writeStderr(text.data(), text.size());
  }
  if (!settings.statsFile.empty()) writeFile(outputPath(settings.statsFile, settings.rootPid), reportJson(report));
}

}  // namespace kith::preload
