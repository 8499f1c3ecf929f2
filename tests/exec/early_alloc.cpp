// A library preloaded after libkith_malloc.so (LD_PRELOAD=libkith_malloc.so:this),
// so its constructor runs before the heap library's own and its destructor after
// the library's has written the statistics: a request before the library's
// constructors and a free after its destructors must both work. It says which it
// saw: the library's constructor sets KITH_ROOT_PID when an output is asked for.
#include <cstdio>
#include <cstdlib>
#include <cstring>

namespace {

char* kept = nullptr;

[[gnu::constructor]] void early() {
  const char* root = std::getenv("KITH_ROOT_PID");
  kept = static_cast<char*>(std::malloc(100));
  std::strcpy(kept, "early");
  std::fprintf(stderr, "early constructor: the heap library's constructor has %s\n", root ? "run" : "not run yet");
}

[[gnu::destructor]] void late() {
  bool intact = std::strcmp(kept, "early") == 0;
  std::free(kept);
  std::free(std::malloc(1000));
  std::fprintf(stderr, "late destructor: %s\n", intact ? "freed" : "FAILED: the block changed");
}

}  // namespace
