#include "cli/static_tls.h"

#include <unistd.h>

#include <cstdlib>
#include <string>
#include <string_view>

#if __has_include(<valgrind/valgrind.h>)
#include <valgrind/valgrind.h>
#define KITH_UNDER_VALGRIND() RUNNING_ON_VALGRIND
#else
#define KITH_UNDER_VALGRIND() 0
#endif

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
  // Under valgrind the new program would run without the tool (or, through
  // /proc/self/exe, be the tool), so a measurement would quietly measure nothing:
  // the caller sets the tunable, and without it the policy says so (exit 69).
  if (KITH_UNDER_VALGRIND()) return;
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
