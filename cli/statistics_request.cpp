#include "cli/statistics_request.h"

#include <cstdio>
#include "cli/output_file.h"
#include "cli/usage_error.h"

namespace kith::cli {

std::optional<int> readStatisticsOption(const GivenOption& option, StatisticsRequest& request) {
  const std::string value = option.value.value_or("");
  if (option.name == "--stats") {
    if (option.value && value != "json")
      return usageError("--stats takes no value (a table) or =json; got '" + option.spelling() + "'");
    request.format = option.value ? StatsFormat::json : StatsFormat::table;
  } else if (option.name == "--stats-file") {
    request.file = value;
  } else if (option.name == "--stats-timers" || option.name == "--stats-sources") {
    if (value != "on" && value != "off")
      return usageError(std::string(option.name) + " wants on or off; got '" + value + "'");
    (option.name == "--stats-timers" ? request.timers : request.sources) = value == "on";
  }
  return std::nullopt;
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
