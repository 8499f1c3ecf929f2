// `kith study`: runs the workload suite across policies x collectors (CLI.md). The
// driver is the study package's entry point, study/__main__.py (Python 3, standard
// library; figures with matplotlib); this command only hands over to it.
#pragma once

#include <string_view>
#include <vector>

namespace kith::cli {

// Execs `/usr/bin/python3 <source dir>/study --kith=<this binary>
// --kith-build=<compiler and flags> ARGS...` (Python runs the folder's __main__.py; not
// `-m study`, which would need the source tree as the working directory, and a relative
// --out is the user's). Returns only on failure: 69 when python3 or the entry point is
// missing (with a message saying what to install), 71 when the exec itself fails.
int runStudyCommand(const std::vector<std::string_view>& args);

}  // namespace kith::cli
