#include "heap/adapters/shared_library.h"

#include <dlfcn.h>

#include <cstring>

namespace kith::heap {

SharedLibrary::SharedLibrary(const char* soname, const char* neededBy, const char* package)
    : handle_(dlopen(soname, RTLD_NOW | RTLD_LOCAL)), soname_(soname), neededBy_(neededBy) {
  if (handle_) return;
  const char* reason = dlerror();
  std::string message = neededBy_ + " needs " + soname_ + " (Debian package " + package + "): " +
                        (reason ? reason : "cannot be loaded");
  // A library built for initial-exec TLS fits only in the surplus glibc reserves at
  // start; the tunable enlarges it for a process started with it.
  if (reason && std::strstr(reason, "static TLS"))
    message += " (start the process with GLIBC_TUNABLES=glibc.rtld.optional_static_tls=8192)";
  throw LibraryUnavailable(message);
}

void* SharedLibrary::symbol(const char* name) const {
  void* address = dlsym(handle_, name);
  if (!address) throw LibraryUnavailable(neededBy_ + ": " + soname_ + " has no function " + name);
  return address;
}

}  // namespace kith::heap
