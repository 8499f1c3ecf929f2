// libkith_malloc.so's exported functions: the whole C allocation API, as glibc's
// manual lists what a replacement malloc must provide, on the process heap
// (process_heap.h). Only these names leave the library (exports.map).
//
// Also _exit and _Exit, so a process that ends with them writes its statistics.
//
// C++'s operator new and delete in every form (sized, aligned, nothrow) need
// nothing here: libstdc++'s call malloc, aligned_alloc and free, which resolve to
// these. What the functions check is what the C library's do: alignments that are
// not powers of two are EINVAL; sizes that overflow are ENOMEM.
#include <errno.h>
#include <sys/syscall.h>
#include <malloc.h>
#include <stdlib.h>
#include <unistd.h>

#include <cstddef>

#include "preload/process_heap.h"

namespace {

using namespace kith::preload;

bool powerOfTwo(std::size_t n) { return n && (n & (n - 1)) == 0; }

std::size_t pageSize() {
  static const auto page = static_cast<std::size_t>(::sysconf(_SC_PAGESIZE));
  return page;
}

// Alignment checked as aligned_alloc and memalign check it.
void* alignedOrEinval(std::size_t alignment, std::size_t size) {
  if (!powerOfTwo(alignment)) {
    errno = EINVAL;
    return nullptr;
  }
  return heapAligned(alignment, size);
}

// A process that ends with _exit runs no destructor; shells do (dash ends every
// run with it), and so do children after fork. So _exit and _Exit write the
// statistics and the trace first, then end the process as the C library's do.
[[noreturn]] void endProcess(int status) {
  heapAtExit();
  for (;;) ::syscall(SYS_exit_group, status);
}

[[gnu::constructor]] void atLoad() { heapAtLoad(); }
[[gnu::destructor]] void atUnload() { heapAtExit(); }

}  // namespace

#define KITH_EXPORT extern "C" [[gnu::visibility("default")]]

KITH_EXPORT void* malloc(std::size_t size) noexcept { return heapMalloc(size); }
KITH_EXPORT void free(void* p) noexcept { heapFree(p); }
KITH_EXPORT void* calloc(std::size_t count, std::size_t size) noexcept { return heapCalloc(count, size); }
KITH_EXPORT void* realloc(void* p, std::size_t size) noexcept { return heapRealloc(p, size); }

KITH_EXPORT void* reallocarray(void* p, std::size_t count, std::size_t size) noexcept {
  std::size_t total;
  if (__builtin_mul_overflow(count, size, &total)) {
    errno = ENOMEM;
    return nullptr;
  }
  return heapRealloc(p, total);
}

KITH_EXPORT int posix_memalign(void** out, std::size_t alignment, std::size_t size) noexcept {
  if (!powerOfTwo(alignment) || alignment % sizeof(void*) != 0) return EINVAL;
  int saved = errno;  // posix_memalign reports through its result, leaving errno alone
  void* p = heapAligned(alignment, size);
  errno = saved;
  if (!p) return ENOMEM;
  *out = p;
  return 0;
}

KITH_EXPORT void* aligned_alloc(std::size_t alignment, std::size_t size) noexcept { return alignedOrEinval(alignment, size); }
KITH_EXPORT void* memalign(std::size_t alignment, std::size_t size) noexcept { return alignedOrEinval(alignment, size); }
KITH_EXPORT void* valloc(std::size_t size) noexcept { return heapAligned(pageSize(), size); }

KITH_EXPORT void* pvalloc(std::size_t size) noexcept {
  // The size rounded up to whole pages, at least one.
  std::size_t page = pageSize(), pages = size ? size / page + (size % page != 0) : 1;
  std::size_t rounded;
  if (__builtin_mul_overflow(pages, page, &rounded)) {
    errno = ENOMEM;
    return nullptr;
  }
  return heapAligned(page, rounded);
}

KITH_EXPORT std::size_t malloc_usable_size(void* p) noexcept { return heapUsableSize(p); }

KITH_EXPORT void _exit(int status) noexcept { endProcess(status); }
KITH_EXPORT void _Exit(int status) noexcept { endProcess(status); }
