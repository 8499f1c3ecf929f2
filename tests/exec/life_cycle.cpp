// Requests at the edges of a process's life under `kith exec`: blocks allocated in
// a constructor that runs before main (and before most of the C library's own
// start), by a static object, freed (and allocated again) in atexit handlers and
// by a static destructor after main returns. Prints "ok main" from main and
// "ok atexit" from the last handler to run, and exits 0.
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

namespace {

char* early = nullptr;  // from the constructor below
std::vector<std::string>* names = nullptr;

[[gnu::constructor(101)]] void beforeMain() {
  early = static_cast<char*>(std::malloc(100));
  std::strcpy(early, "constructor");
}

// A static object whose constructor and destructor allocate and free.
struct Registry {
  std::vector<char*> blocks;
  Registry() {
    for (int i = 0; i < 100; ++i) blocks.push_back(static_cast<char*>(std::calloc(1, 32 + i)));
  }
  ~Registry() {
    for (char* p : blocks) std::free(p);
    std::free(std::malloc(1000));  // and one more request, after main
  }
} registry;

void lastHandler() {
  // Runs last of the handlers (registered first): everything else is freed by now.
  std::printf("ok atexit\n");
  std::fflush(stdout);
}

void freeEarly() {
  if (std::strcmp(early, "constructor") != 0) std::abort();
  std::free(early);
  delete names;
  char* again = static_cast<char*>(std::realloc(nullptr, 4096));
  again = static_cast<char*>(std::realloc(again, 1 << 20));
  std::free(again);
}

}  // namespace

int main() {
  std::atexit(lastHandler);
  std::atexit(freeEarly);
  names = new std::vector<std::string>;
  for (int i = 0; i < 1000; ++i) names->push_back("name number " + std::to_string(i));
  std::printf("ok main\n");
  return 0;
}
