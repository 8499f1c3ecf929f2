// `kith run` and `kith disasm`: the composition root. From the parsed options
// (cli/run_options.h) it builds the heap, the collector, the VM and its built-ins,
// compiles and runs the script, and writes the reports (statistics, GC pauses,
// fragmentation samples, the allocation trace).
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "cli/run_options.h"

namespace kith::cli {

// `kith run [OPTIONS] FILE.kith [ARGS...]`; args are the words after "run".
int runCommand(const std::vector<std::string_view>& args);

// Exit codes (cli/exit_codes.h): 0 ok, 64 a heap the system will not map, 65
// compile errors, 66 an unreadable script, 70 an uncaught runtime error, 73 an
// output that cannot be written, or the code given to System.exit.
int runScript(const RunOptions& options);

// `kith disasm [--compiler-heap=H] FILE.kith`: the script's bytecode with its source
// lines on stdout, compiled with its scratch data on H.
int disassembleScript(const std::string& path, vm::CompilerHeap compilerHeap = vm::CompilerHeap::zone);

}  // namespace kith::cli
