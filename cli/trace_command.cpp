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
  std::string openError;
  TraceFile file = openTrace(path, openError);
  if (!file) {
    std::fprintf(stderr, "kith: %s\n", openError.c_str());
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

TraceFile openTrace(const std::string& path, std::string& error) {
  if (path == "-") return TraceFile(stdin);
  struct stat info {};
  if (::stat(path.c_str(), &info) == 0 && S_ISDIR(info.st_mode)) {
    error = "cannot read trace '" + path + "': it is a directory";
    return nullptr;
  }
  TraceFile file(std::fopen(path.c_str(), "rb"));
  if (!file) error = "cannot read trace '" + path + "': " + std::strerror(errno);
  return file;
}

int traceCommand(const std::vector<std::string_view>& args) {
  if (args.empty()) return usageError("'trace' needs a subcommand: kith trace dump FILE");
  if (args[0] != "dump") return usageError("unknown 'trace' subcommand '" + std::string(args[0]) + "'; known: dump");
  if (args.size() != 2 || (args[1].starts_with("-") && args[1] != "-"))
    return usageError("'trace dump' takes one trace file (or - for standard input): kith trace dump FILE");
  return dumpTrace(std::string(args[1]));
}

}  // namespace kith::cli
