#include "cli/trace_command.h"

#include <sys/stat.h>

#include <cerrno>
#include <cstdio>
#include <cstdint>
#include <cstring>
#include <memory>
#include <string>

#include "cli/exit_codes.h"
#include "cli/option_parser.h"
#include "cli/option_table.h"
#include "cli/suggestion.h"
#include "cli/output_file.h"
#include "cli/usage_error.h"
#include "heap/trace/object_lifetimes.h"
#include "heap/trace/trace.h"

namespace kith::cli {

namespace {

int dumpTrace(const std::string& path) {
  std::string openError;
  TraceFile file = openTrace(path, openError);
  if (!file) {
    std::fprintf(stderr, "kith: %s\n", openError.c_str());
    return kExitNoInput;
  }
  heap::TraceReader reader(file.get());
  {
    heap::TraceWriter writer(stdout, heap::TraceFormat::text);
    for (heap::TraceEvent e; reader.next(e);) writer.record(e);
    writer.finish();
  }
  if (!reader.error().empty()) {
    std::fprintf(stderr, "kith: %s: %s\n", path.c_str(), reader.error().c_str());
    return kExitDataError;
  }
  return flushStandardOutput() ? kExitOk : kExitCantCreate;
}

// `kith trace lifetimes`: the age at death of every freed object, in bytes
// allocated since its birth (heap/trace/object_lifetimes.h), as a table or JSON.
int traceLifetimes(const std::string& path, bool json) {
  std::string openError;
  TraceFile file = openTrace(path, openError);
  if (!file) {
    std::fprintf(stderr, "kith: %s\n", openError.c_str());
    return kExitNoInput;
  }
  heap::TraceReader reader(file.get());
  heap::ObjectLifetimes lifetimes;
  for (heap::TraceEvent e; reader.next(e);) lifetimes.record(e, reader.objectIndex());
  if (!reader.error().empty()) {
    std::fprintf(stderr, "kith: %s: %s\n", path.c_str(), reader.error().c_str());
    return kExitDataError;
  }
  auto n = [](std::uint64_t v) { return std::to_string(v); };
  std::string out;
  if (json) {
    out = "{\"objects\": " + n(lifetimes.objects()) + ", \"freed\": " + n(lifetimes.freed()) +
          ", \"freed_bytes\": " + n(lifetimes.freedBytes()) + ", \"live_at_end\": " + n(lifetimes.liveAtEnd()) +
          ", \"live_at_end_bytes\": " + n(lifetimes.liveBytesAtEnd()) + ", \"failed\": " + n(lifetimes.failed()) +
          ", \"resized\": " + n(lifetimes.resized()) + ", \"peak_live_bytes\": " + n(lifetimes.peakLiveBytes()) +
          ", \"bytes_allocated\": " + n(lifetimes.bytesAllocated()) +
          ",\n \"histogram\": [";
    bool first = true;
    for (const auto& [bound, bucket] : lifetimes.histogram()) {
      out += std::string(first ? "" : ",\n  ") + "{\"age_bytes_le\": " + n(bound) +
             ", \"objects\": " + n(bucket.objects) + ", \"bytes\": " + n(bucket.bytes) + "}";
      first = false;
    }
    out += "]}\n";
  } else {
    out = "objects          " + n(lifetimes.objects()) + " (" + n(lifetimes.bytesAllocated()) + " bytes allocated)\n" +
          "freed            " + n(lifetimes.freed()) + " (" + n(lifetimes.freedBytes()) + " bytes)\n" +
          "live at end      " + n(lifetimes.liveAtEnd()) + " (" + n(lifetimes.liveBytesAtEnd()) + " bytes; censored)\n" +
          "peak live        " + n(lifetimes.peakLiveBytes()) + " bytes, as requested\n" +
          "failed requests  " + n(lifetimes.failed()) + "\n" +
          "resizes          " + n(lifetimes.resized()) + " (reallocs: the object keeps its birth)\n" +
          "allocation clock " + n(lifetimes.bytesAllocated()) + " bytes at the end\n" +
          "age at death, bytes allocated since birth:\n" +
          "  age_bytes_le      objects        bytes  cum_objects\n";
    std::uint64_t cumulative = 0;
    for (const auto& [bound, bucket] : lifetimes.histogram()) {
      cumulative += bucket.objects;
      char line[128];
      std::snprintf(line, sizeof line, "  %12llu %12llu %12llu  %10.4f\n", static_cast<unsigned long long>(bound),
                    static_cast<unsigned long long>(bucket.objects), static_cast<unsigned long long>(bucket.bytes),
                    static_cast<double>(cumulative) / static_cast<double>(lifetimes.freed()));
      out += line;
    }
  }
  std::fputs(out.c_str(), stdout);
  return flushStandardOutput() ? kExitOk : kExitCantCreate;
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

namespace {

// `trace lifetimes`'s options, as a table like every command's (option_table.h); `trace
// dump` takes none.
struct LifetimesOptions {
  bool json = false;  // --json: the demographics as JSON
};

constexpr OptionRow<LifetimesOptions> kLifetimesRows[] = {
    {{"--json", OptionArgument::none}, readFlag<LifetimesOptions, &LifetimesOptions::json>},
};

}  // namespace

const std::vector<OptionSpec>& traceOptionSpecs() {
  static const std::vector<OptionSpec> specs = optionSpecs(OptionTable<LifetimesOptions>(kLifetimesRows));
  return specs;
}

int traceCommand(const std::vector<std::string_view>& args) {
  if (args.empty()) return usageError("'trace' needs a subcommand: kith trace dump FILE, kith trace lifetimes FILE");
  if (args[0] != "dump" && args[0] != "lifetimes")
    return usageError("unknown 'trace' subcommand '" + std::string(args[0]) + "'; known: dump, lifetimes",
                      didYouMean(args[0], {"dump", "lifetimes"}));
  bool lifetimes = args[0] == "lifetimes";
  std::string command = "trace " + std::string(args[0]);
  CommandLine line;
  if (auto exit = readCommandLine(command, lifetimes ? traceOptionSpecs() : std::vector<OptionSpec>{},
                                  {args.begin() + 1, args.end()}, OperandPlacement::anywhere, line))
    return *exit;
  if (line.help || line.operands.size() != 1)
    return usageError("'" + command + "' takes one trace file (or - for standard input): kith " + command +
                      (lifetimes ? " [--json]" : "") + " FILE");
  if (lifetimes) {
    LifetimesOptions options;
    if (auto exit = readOptions(OptionTable<LifetimesOptions>(kLifetimesRows), line.options, options)) return *exit;
    return traceLifetimes(std::string(line.operands[0]), options.json);
  }
  return dumpTrace(std::string(line.operands[0]));
}

}  // namespace kith::cli
