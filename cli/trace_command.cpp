#include "cli/trace_command.h"

#include <sys/stat.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <memory>
#include <string>

#include "cli/usage_error.h"
#include "heap/trace.h"

namespace kith::cli {

namespace {

constexpr int kExitOk = 0;
constexpr int kExitDataError = 65;  // a malformed trace
constexpr int kExitNoInput = 66;    // a missing or unreadable trace
constexpr int kExitIoError = 74;    // stdout could not be written

int dumpTrace(const std::string& path) {
  struct stat info {};
  if (::stat(path.c_str(), &info) == 0 && S_ISDIR(info.st_mode)) {
    std::fprintf(stderr, "kith: cannot read trace '%s': it is a directory\n", path.c_str());
    return kExitNoInput;
  }
  std::unique_ptr<std::FILE, int (*)(std::FILE*)> file(std::fopen(path.c_str(), "rb"), &std::fclose);
  if (!file) {
    std::fprintf(stderr, "kith: cannot read trace '%s': %s\n", path.c_str(), std::strerror(errno));
    return kExitNoInput;
  }
  heap::TraceReader reader(file.get());
  bool written;
  {
    heap::TraceWriter writer(stdout, heap::TraceFormat::text);
    for (heap::TraceEvent e; reader.next(e);) writer.record(e);
    writer.finish();
    written = writer.ok();
  }
  if (!reader.error().empty()) {
    std::fprintf(stderr, "kith: %s: %s\n", path.c_str(), reader.error().c_str());
    return kExitDataError;
  }
  if (!written) {
    std::fprintf(stderr, "kith: trace dump: writing to stdout failed\n");
    return kExitIoError;
  }
  return kExitOk;
}

}  // namespace

int traceCommand(const std::vector<std::string_view>& args) {
  if (args.empty()) return usageError("'trace' needs a subcommand: kith trace dump FILE");
  if (args[0] != "dump") return usageError("unknown 'trace' subcommand '" + std::string(args[0]) + "'; known: dump");
  if (args.size() != 2 || args[1].starts_with("--"))
    return usageError("'trace dump' takes one trace file: kith trace dump FILE");
  return dumpTrace(std::string(args[1]));
}

}  // namespace kith::cli
