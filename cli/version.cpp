#include "cli/version.h"

#include "kith_commit.h"  // KITH_COMMIT, generated at build time (cli/version_commit.cmake)

namespace kith::cli {

std::string versionLine() {
  const std::string commit = KITH_COMMIT;
  return std::string("kith ") + KITH_VERSION + " (" + (commit.empty() ? "commit unknown" : commit) + ")";
}

}  // namespace kith::cli
