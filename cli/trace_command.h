// `kith trace dump FILE`: prints a trace, in either encoding (heap/trace/trace.h), as
// the text encoding on stdout — how a binary recording is read by eye, diffed or
// edited (the output is itself a valid trace). `kith trace lifetimes [--json]
// FILE`: the age at death of every freed object in bytes allocated since its
// birth, as a histogram (heap/trace/object_lifetimes.h).
#pragma once

#include <cstdio>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "cli/option_parser.h"

namespace kith::cli {

// An open trace file; "-" is standard input (not closed).
struct TraceFileCloser {
  void operator()(std::FILE* f) const {
    if (f != stdin) std::fclose(f);
  }
};
using TraceFile = std::unique_ptr<std::FILE, TraceFileCloser>;

// Opens PATH (or "-") for reading a trace; nullptr and `error` ("cannot read
// trace 'PATH': REASON") when it is missing, unreadable or a directory.
TraceFile openTrace(const std::string& path, std::string& error);

// The options of the trace subcommands (lifetimes' --json).
const std::vector<OptionSpec>& traceOptionSpecs();

// args are the words after "trace".
int traceCommand(const std::vector<std::string_view>& args);

}  // namespace kith::cli
