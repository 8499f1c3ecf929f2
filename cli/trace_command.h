// `kith trace dump FILE`: prints a trace, in either encoding (heap/trace.h), as
// the text encoding on stdout — how a binary recording is read by eye, diffed or
// edited (the output is itself a valid trace).
#pragma once

#include <string_view>
#include <vector>

namespace kith::cli {

// args are the words after "trace".
int traceCommand(const std::vector<std::string_view>& args);

}  // namespace kith::cli
