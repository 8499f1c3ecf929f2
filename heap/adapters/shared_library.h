// SharedLibrary: an outside library opened with dlopen when the code that needs it
// first runs, instead of being linked into every run: each linked library costs
// start-up its relocations, its constructors and a place in every symbol lookup.
// RTLD_LOCAL keeps its symbols out of the global scope, so a library that exports
// malloc/free (Debian's libjemalloc and libmimalloc do) never replaces glibc's.
// Never closed: the blocks it handed out may outlive any one heap.
#pragma once

#include <stdexcept>
#include <string>

namespace kith::heap {

// A run needs a library this machine lacks (or cannot load); `kith` reports it as
// one line and exit 69 (EX_UNAVAILABLE).
class LibraryUnavailable : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

class SharedLibrary {
 public:
  // Opens soname, or throws LibraryUnavailable naming who needs it and the package
  // that provides it.
  SharedLibrary(const char* soname, const char* neededBy, const char* package);

  // The function `name`, or throws LibraryUnavailable.
  template <class Fn>
  Fn function(const char* name) const {
    return reinterpret_cast<Fn>(symbol(name));
  }
  template <class Fn>
  void bind(Fn& pointer, const char* name) const {
    pointer = function<Fn>(name);
  }

 private:
  void* symbol(const char* name) const;

  void* handle_;
  std::string soname_;
  std::string neededBy_;
};

}  // namespace kith::heap
