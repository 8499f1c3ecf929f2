// fork() from a threaded program under `kith exec`: while four threads allocate
// and free, the main thread forks children that allocate, free, start a thread of
// their own and exit; a child whose heap was left locked by a thread of the parent
// would hang here (the test's timeout), one whose heap was corrupted would fail its
// checks. Prints "ok CHILDREN" and exits 0.
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <thread>
#include <vector>

namespace {

std::atomic<bool> stop{false};

// Allocates and frees as fast as it can, checking what it wrote.
void churn(unsigned seed) {
  std::vector<char*> held(64, nullptr);
  unsigned x = seed;
  while (!stop) {
    x = x * 1103515245 + 12345;
    char*& slot = held[x % held.size()];
    if (slot) {
      if (slot[0] != static_cast<char>(seed)) std::abort();
      std::free(slot);
      slot = nullptr;
    } else {
      std::size_t size = 1 + (x >> 8) % 2000;
      slot = static_cast<char*>(std::malloc(size));
      std::memset(slot, static_cast<char>(seed), size);
    }
  }
  for (char* p : held) std::free(p);
}

// What a child does with its copy of the heap.
int child() {
  std::vector<char*> blocks;
  for (int i = 0; i < 2000; ++i) {
    blocks.push_back(static_cast<char*>(std::malloc(16 + i % 500)));
    std::memset(blocks.back(), 'c', 16);
  }
  std::thread helper([] {
    for (int i = 0; i < 1000; ++i) std::free(std::malloc(64));
  });
  helper.join();
  for (char* p : blocks) {
    if (p[15] != 'c') return 3;
    std::free(p);
  }
  return 0;
}

}  // namespace

int main() {
  std::vector<std::thread> threads;
  for (unsigned t = 0; t < 4; ++t) threads.emplace_back(churn, t + 1);
  constexpr int kChildren = 40;
  int failures = 0;
  for (int i = 0; i < kChildren; ++i) {
    std::fflush(stdout);
    pid_t pid = fork();
    if (pid < 0) {
      std::printf("FAILED: fork: %s\n", std::strerror(errno));
      return 1;
    }
    if (pid == 0) std::exit(child());
    int status = 0;
    waitpid(pid, &status, 0);
    if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
      std::printf("FAILED: child %d ended with status %d\n", i, status);
      ++failures;
    }
  }
  stop = true;
  for (auto& t : threads) t.join();
  if (failures) return 1;
  std::printf("ok %d\n", kChildren);
  return 0;
}
