// How an uncaught error's stack trace is printed (LANGUAGE.md, Errors and exit codes):
// a frame line repeated consecutively prints once, then "  ... repeated N more times";
// a trace still longer than 100 lines keeps its first 50 and last 50 lines with
// "  ... N frames omitted" between them. A 10,000-deep recursion is then a few lines
// a person can read, as Python folds its tracebacks and Java caps its traces.
#pragma once

#include <string>
#include <vector>

namespace kith::vm {

inline constexpr std::size_t kTraceHeadLines = 50;
inline constexpr std::size_t kTraceTailLines = 50;

// `frames`: one "  at FUNCTION (FILE:LINE)" line per frame, innermost first.
std::vector<std::string> foldTrace(const std::vector<std::string>& frames);

}  // namespace kith::vm
