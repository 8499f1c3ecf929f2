// A script's source as `kith run` takes it: a file, or with the path `-` standard
// input (CLI.md: a path of `-` is standard input), under the same 256 MiB cap
// (vm/source_file.h) so a script piped from an endless source is refused.
#pragma once

#include <optional>
#include <string>

namespace kith::cli {

inline constexpr const char* kStandardInputPath = "-";
// The name messages and stack traces give a script read from standard input.
inline constexpr const char* kStandardInputName = "<stdin>";

// The name a script goes by in messages: its path, or <stdin>.
std::string scriptName(const std::string& path);

// The script's bytes (`-`: standard input), or nullopt with `error` set to the reason.
std::optional<std::string> readScriptSource(const std::string& path, std::string& error);

}  // namespace kith::cli
