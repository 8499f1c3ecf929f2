// max_rss OUT PROGRAM ARGS...: runs PROGRAM (a path) with ARGS, standard streams
// passed through, writes its peak resident set in KiB (wait4's ru_maxrss) to OUT and
// exits with its exit code. A process's peak counts its life before exec too, so
// the measuring parent must be small: a child forked from Python starts at Python's
// RSS (14 MB), one forked from this program at a few hundred KiB.
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>

int main(int argc, char** argv) {
  if (argc < 3) {
    std::fprintf(stderr, "usage: max_rss OUT PROGRAM ARGS...\n");
    return 64;
  }
  const pid_t pid = fork();
  if (pid < 0) return 71;
  if (pid == 0) {
    execv(argv[2], argv + 2);
    std::perror("max_rss: exec");
    _exit(127);
  }
  int status = 0;
  rusage usage{};
  if (wait4(pid, &status, 0, &usage) != pid) return 71;
  std::FILE* out = std::fopen(argv[1], "w");
  if (!out || std::fprintf(out, "%ld\n", usage.ru_maxrss) < 0 || std::fclose(out) != 0) return 73;
  return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}
