#include "cli/statistics_request.h"

#include <cstdio>
#include "cli/output_file.h"
#include "cli/usage_error.h"

namespace kith::cli {

std::optional<int> readStatisticsOption(std::string_view option, StatisticsRequest& request) {
  if (option == "--stats") {
    request.format = StatsFormat::table;
  } else if (option == "--stats=json") {
    request.format = StatsFormat::json;
  } else if (option.starts_with("--stats-file=") && option.size() > 13) {
    request.file = std::string(option.substr(13));
  } else if (option.starts_with("--stats-timers=")) {
    std::string v(option.substr(15));
    if (v != "on" && v != "off") return usageError("--stats-timers wants on or off; got '" + v + "'");
    request.timers = v == "on";
  } else if (option.starts_with("--stats-sources=")) {
    std::string v(option.substr(16));
    if (v != "on" && v != "off") return usageError("--stats-sources wants on or off; got '" + v + "'");
    request.sources = v == "on";
  } else {
    return std::nullopt;
  }
  return kExitOk;
}

void configureHeap(const StatisticsRequest& request, heap::Heap& heap) {
  if (!request.sources) heap.skipImmediateSources();
}

bool scriptMayReadHeapStatistics(std::string_view source) {
  return source.find("heapStats") != std::string_view::npos || source.find("import") != std::string_view::npos;
}

bool openStatisticsFile(const StatisticsRequest& request, OutputFile& file) {
  return request.file.empty() || file.open(request.file);
}

bool writeStatistics(const StatisticsRequest& request, OutputFile& file, const std::string& json,
                     const std::string& table) {
  if (request.format == StatsFormat::json) std::fputs(json.c_str(), stderr);
  if (request.format == StatsFormat::table) std::fputs(table.c_str(), stderr);
  if (!file.isOpen()) return true;
  file.write(json);
  return file.close();
}

}  // namespace kith::cli
