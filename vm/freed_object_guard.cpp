#include "vm/freed_object_guard.h"

#include <signal.h>
#include <sys/mman.h>
#include <unistd.h>

#include <cstdint>
#include <cstring>

namespace kith::vm {

namespace {

void* page = nullptr;

void onFault(int signal, siginfo_t* info, void*) {
  auto address = reinterpret_cast<std::uintptr_t>(info->si_addr);
  auto start = reinterpret_cast<std::uintptr_t>(page);
  bool poisoned = page && address >= start && address < start + kPoisonedPageBytes;
  bool nullClass = address < 4096;
  const char* message =
      poisoned ? "kith: fatal: a freed object was used (its handle points at the poisoned page): a heap Value was "
                 "held across an allocation without a root (vm/object.h, THE ROOTING RULE)\n"
      : nullClass ? "kith: fatal: null dereference, likely a freed handle's class: a heap Value was held across an "
                    "allocation without a root (vm/object.h, THE ROOTING RULE)\n"
                  : nullptr;
  if (message) {
    ssize_t ignored = write(STDERR_FILENO, message, std::strlen(message));
    (void)ignored;
  }
  ::signal(signal, SIG_DFL);  // die by the signal, as without the handler
  ::raise(signal);
}

#if defined(__SANITIZE_ADDRESS__)
constexpr bool kUnderAddressSanitizer = true;
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
constexpr bool kUnderAddressSanitizer = true;
#else
constexpr bool kUnderAddressSanitizer = false;
#endif
#else
constexpr bool kUnderAddressSanitizer = false;
#endif

}  // namespace

void* poisonedObjectPage() {
  if (!page) {
    void* p = mmap(nullptr, kPoisonedPageBytes, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    page = p == MAP_FAILED ? nullptr : p;
  }
  return page;
}

void installFreedObjectFaultHandler() {
  static bool installed = false;
  if (installed || kUnderAddressSanitizer) return;
  installed = true;
  struct sigaction action {};
  action.sa_sigaction = onFault;
  action.sa_flags = SA_SIGINFO | SA_ONSTACK;
  sigemptyset(&action.sa_mask);
  sigaction(SIGSEGV, &action, nullptr);
  sigaction(SIGBUS, &action, nullptr);
}

}  // namespace kith::vm
