// `kith repl [OPTIONS]`: an interactive prompt over one heap, collector and VM built
// once for the session from run's options (cli/run_assembly.h), so a person can watch
// a policy with System.heapStats(). Each input is compiled and run on that VM: an
// expression prints its value, a statement prints nothing, an unclosed block asks for
// more with "... ", and an error is reported as `kith run` reports it while the
// session and its globals go on (cli/repl_input.h decides which is which).
#pragma once

#include <string_view>
#include <vector>

namespace kith::cli {

// args are the words after "repl". Exit codes: at `exit` or the end of the input, 0 on
// a terminal, else the code of the last input that failed (65 compile, 70 runtime) or
// 0; the code given to System.exit; 64 for a usage error; 66 when standard input cannot
// be read or holds a line or input over 256 MiB; 70 when the built-ins cannot be set up.
int replCommand(const std::vector<std::string_view>& args);

}  // namespace kith::cli
