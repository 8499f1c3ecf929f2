#include "cli/static_tls.h"

#include <unistd.h>

#include <cstdlib>
#include <string>
#include <string_view>

namespace kith::cli {
namespace {

constexpr std::string_view kTunable = "glibc.rtld.optional_static_tls=";
constexpr std::string_view kSurplus = "glibc.rtld.optional_static_tls=8192";

bool namesJemalloc(int argc, char** argv) {
  for (int i = 1; i < argc; ++i)
    if (std::string_view(argv[i]).find("jemalloc") != std::string_view::npos) return true;
  return false;
}

}  // namespace

void reexecWithStaticTlsForJemalloc(int argc, char** argv) {
#if defined(KITH_HAVE_JEMALLOC)
  if (!namesJemalloc(argc, argv)) return;
  const char* tunables = std::getenv("GLIBC_TUNABLES");
  // Already set, by the first execution or by the user: never loop.
  if (tunables && std::string_view(tunables).find(kTunable) != std::string_view::npos) return;
  std::string value = tunables && *tunables ? std::string(tunables) + ":" + std::string(kSurplus)
                                            : std::string(kSurplus);
  if (::setenv("GLIBC_TUNABLES", value.c_str(), 1) != 0) return;
  ::execv("/proc/self/exe", argv);
#else
  (void)argc;
  (void)argv;
#endif
}

}  // namespace kith::cli
