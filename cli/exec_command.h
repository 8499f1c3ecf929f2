// `kith exec [OPTIONS] -- COMMAND [ARGS...]` (docs/CLI.md, docs/EXEC.md): runs
// COMMAND with a heap policy as its malloc and that of every process it starts,
// by preloading libkith_malloc.so (preload/) with the options in its environment
// variables (preload/preload_environment.h).
#pragma once

#include <string_view>
#include <vector>


namespace kith::cli {

// The words after `exec`; returns COMMAND's exit status (128+N when a signal N
// ended it, 127 when it cannot be found, 126 when it cannot be run), or kith's own
// 64 (usage), 69 (the library is missing) or 73 (an output cannot be written).
int execCommand(const std::vector<std::string_view>& args);

}  // namespace kith::cli
