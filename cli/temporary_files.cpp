#include "cli/temporary_files.h"

#include <limits.h>
#include <signal.h>
#include <unistd.h>

#include <cerrno>
#include <csignal>
#include <cstring>

namespace kith::cli {

namespace {

// Fixed storage, read by a signal handler: no allocation, no locks. A slot is in
// use while its flag is set; the path is written before the flag.
constexpr int kSlots = 8;
char paths[kSlots][PATH_MAX];
volatile std::sig_atomic_t inUse[kSlots];

// The signals that end a process by default and can be caught; SIGSEGV and SIGBUS
// belong to vm/freed_object_guard.h.
constexpr int kFatalSignals[] = {SIGHUP, SIGINT, SIGQUIT, SIGTERM, SIGPIPE, SIGXCPU, SIGXFSZ, SIGABRT};

void removeAndDie(int signal) {
  for (int i = 0; i < kSlots; ++i)
    if (inUse[i]) ::unlink(paths[i]);
  ::signal(signal, SIG_DFL);  // die by the signal, as without the handler
  ::raise(signal);
}

// Only where the action is the default: a signal the parent set to be ignored
// (nohup's SIGHUP) stays ignored.
void installHandlers() {
  static bool installed = false;
  if (installed) return;
  installed = true;
  for (int signal : kFatalSignals) {
    struct sigaction current {};
    if (::sigaction(signal, nullptr, &current) != 0 || current.sa_handler != SIG_DFL) continue;
    struct sigaction action {};
    action.sa_handler = removeAndDie;
    sigemptyset(&action.sa_mask);
    for (int other : kFatalSignals) sigaddset(&action.sa_mask, other);  // one handler at a time
    action.sa_flags = SA_RESETHAND;
    ::sigaction(signal, &action, nullptr);
  }
}

// In the first free slot; a file with none (more than kSlots at once: a command
// writes at most four outputs) is only removed by its OutputFile.
void remember(const std::string& path) {
  if (path.size() >= PATH_MAX) return;
  for (int i = 0; i < kSlots; ++i) {
    if (inUse[i]) continue;
    std::memcpy(paths[i], path.c_str(), path.size() + 1);
    inUse[i] = 1;
    return;
  }
}

}  // namespace

int createTemporaryFile(std::string& pattern) {
  installHandlers();
  sigset_t fatal, previous;
  sigemptyset(&fatal);
  for (int signal : kFatalSignals) sigaddset(&fatal, signal);
  ::sigprocmask(SIG_BLOCK, &fatal, &previous);
  int fd = ::mkstemp(pattern.data());
  int error = errno;
  if (fd >= 0) remember(pattern);
  ::sigprocmask(SIG_SETMASK, &previous, nullptr);
  errno = error;
  return fd;
}

void removeTemporaryFile(const std::string& path) {
  ::unlink(path.c_str());
  forgetTemporaryFile(path);
}

void forgetTemporaryFile(const std::string& path) {
  for (int i = 0; i < kSlots; ++i)
    if (inUse[i] && path == paths[i]) {
      inUse[i] = 0;
      return;
    }
}

}  // namespace kith::cli
