// `kith study`: runs the workload suite across policies x collectors (CLI.md). The
// driver is study/kith_study.py (Python 3, standard library; figures by
// study/plot_study.py with matplotlib); this command only hands over to it.
#pragma once

#include <string_view>
#include <vector>

namespace kith::cli {

// Execs `/usr/bin/python3 <source dir>/study/kith_study.py --kith=<this binary>
// --kith-build=<compiler and flags> ARGS...`. Returns only on failure: 69 when
// python3 or the script is missing (with a message saying what to install), 71 when
// the exec itself fails.
int runStudyCommand(const std::vector<std::string_view>& args);

}  // namespace kith::cli
