// What `kith --version` prints (CLI.md: it names the commit it was built from).
#pragma once

#include <string>

namespace kith::cli {

// "kith 0.1.0 (abc1234def56)": the project's version and the commit built, with
// "-dirty" when the sources had uncommitted changes; "kith 0.1.0 (commit unknown)"
// for a build from sources outside git.
std::string versionLine();

}  // namespace kith::cli
