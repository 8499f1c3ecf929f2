// The edges of the C allocation API under `kith exec` (libkith_malloc.so): each
// check prints a line only when it fails; the program then exits 1, else prints
// "ok CHECKS" and exits 0. With KITH_HEAP naming a policy over a fixed arena and
// KITH_HEAP_SIZE its size, a request larger than the arena must fail too.
#include <errno.h>
#include <malloc.h>
#include <stdint.h>
#include <stdlib.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

namespace {

int checks = 0, failures = 0;

void check(bool ok, const char* what) {
  ++checks;
  if (!ok) {
    ++failures;
    std::printf("FAILED: %s\n", what);
  }
}

// A value the compiler cannot see through: the impossible requests below are made
// as written, not folded or warned about at compile time.
template <class T>
T opaque(T value) {
  volatile T hidden = value;
  return hidden;
}

bool aligned(const void* p, std::size_t a) { return reinterpret_cast<uintptr_t>(p) % a == 0; }

void fill(void* p, std::size_t n, unsigned char seed) {
  auto* b = static_cast<unsigned char*>(p);
  for (std::size_t i = 0; i < n; ++i) b[i] = static_cast<unsigned char>(seed + i);
}

bool holds(const void* p, std::size_t n, unsigned char seed) {
  auto* b = static_cast<const unsigned char*>(p);
  for (std::size_t i = 0; i < n; ++i)
    if (b[i] != static_cast<unsigned char>(seed + i)) return false;
  return true;
}

// errno after a call that must fail with `expected`.
bool failsWith(void* result, int expected) { return result == nullptr && errno == expected; }

void callocEdges() {
  errno = 0;
  check(failsWith(calloc(opaque(SIZE_MAX / 2), 4), ENOMEM), "calloc whose product overflows: NULL, ENOMEM");
  errno = 0;
  check(failsWith(calloc(4, opaque(SIZE_MAX / 2)), ENOMEM), "calloc(4, SIZE_MAX/2): NULL, ENOMEM");
  // A reused block must come back zeroed.
  void* dirty = malloc(200);
  std::memset(dirty, 0xAB, 200);
  free(dirty);
  auto* z = static_cast<unsigned char*>(calloc(10, 20));
  bool zero = z != nullptr;
  for (int i = 0; zero && i < 200; ++i) zero = z[i] == 0;
  check(zero, "calloc's block is all zero, even reused");
  free(z);
  void* none = calloc(0, 10);
  check(none != nullptr, "calloc(0, n) is a block, as malloc(0)");
  free(none);
}

void alignmentEdges() {
  void* p = reinterpret_cast<void*>(1);
  check(posix_memalign(&p, 24, 10) == EINVAL, "posix_memalign, alignment 24: EINVAL");
  check(posix_memalign(&p, 0, 10) == EINVAL, "posix_memalign, alignment 0: EINVAL");
  check(posix_memalign(&p, 4, 10) == EINVAL, "posix_memalign, alignment 4 (not a multiple of a pointer): EINVAL");
  check(p == reinterpret_cast<void*>(1), "posix_memalign leaves *memptr alone when it fails");
  errno = 0;
  check(failsWith(aligned_alloc(24, 48), EINVAL), "aligned_alloc, alignment 24: NULL, EINVAL");
  errno = 0;
  check(failsWith(memalign(3, 10), EINVAL), "memalign, alignment 3: NULL, EINVAL");
  errno = 0;
  check(failsWith(aligned_alloc(0, 16), EINVAL), "aligned_alloc, alignment 0: NULL, EINVAL");
  for (std::size_t a = 1; a <= (std::size_t{1} << 20); a <<= 1) {
    void* q = nullptr;
    int made = posix_memalign(&q, a < sizeof(void*) ? sizeof(void*) : a, 100);
    check(made == 0 && aligned(q, a < 16 ? 16 : a), "posix_memalign at every power of two to 1 MiB");
    check(malloc_usable_size(q) >= 100, "malloc_usable_size of an aligned block >= the request");
    fill(q, 100, 7);
    void* r = aligned_alloc(a, 3 * a);
    void* m = memalign(a, 33);
    check(r && aligned(r, a) && m && aligned(m, a), "aligned_alloc and memalign at every power of two");
    check(holds(q, 100, 7), "an aligned block keeps its content while others are made");
    free(q);
    free(r);
    free(m);
  }
  long page = sysconf(_SC_PAGESIZE);
  void* v = valloc(10);
  check(v && aligned(v, page), "valloc: page-aligned");
  void* pv = pvalloc(1);
  check(pv && aligned(pv, page) && malloc_usable_size(pv) >= static_cast<std::size_t>(page),
        "pvalloc(1): a whole page");
  void* pv0 = pvalloc(0);
  check(pv0 && aligned(pv0, page), "pvalloc(0): a page");
  free(v);
  free(pv);
  free(pv0);
  // realloc of an aligned block keeps its content.
  void* q = aligned_alloc(256, 300);
  fill(q, 300, 3);
  void* grown = realloc(q, 100000);
  check(grown && holds(grown, 300, 3), "realloc of an aligned block keeps the content");
  free(grown);
}

// Data that would read as a header right before an ordinary block must not change
// what free does with it: the bytes before a block are the program's.
void interiorPointers() {
  std::vector<void*> blocks;
  for (int i = 0; i < 64; ++i) {
    void* a = malloc(48);
    blocks.push_back(a);
    std::memset(a, 0xFF, malloc_usable_size(a));  // the whole usable block, up to its end
  }
  void* q = aligned_alloc(64, 64);
  std::memset(q, 0xFF, 64);
  for (void* b : blocks) free(b);
  free(q);
  // An aligned block of 0 bytes is still an address inside its own block: never the
  // start of the next block the policy hands out, nor another aligned block's.
  std::vector<void*> zeros, smalls;
  for (int i = 0; i < 256; ++i) zeros.push_back(memalign(32, 0));
  for (int i = 0; i < 256; ++i) smalls.push_back(malloc(8));
  std::vector<void*> all(zeros);
  all.insert(all.end(), smalls.begin(), smalls.end());
  std::sort(all.begin(), all.end());
  check(std::adjacent_find(all.begin(), all.end()) == all.end(),
        "0-byte aligned blocks and small blocks all have addresses of their own");
  for (void* z : zeros) free(z);
  bool usable = true;
  for (void* m : smalls) {
    usable = usable && malloc_usable_size(m) >= 8;
    free(m);
  }
  check(usable, "... and the small blocks keep their size after the aligned ones are freed");
  void* after = malloc(48);
  check(after != nullptr, "the heap still serves after frees of blocks filled edge to edge");
  free(after);
}

void mallocEdges() {
  void* a = malloc(0);
  void* b = malloc(0);
  check(a && b && a != b, "malloc(0): distinct non-NULL blocks");
  free(a);
  free(b);
  free(nullptr);
  check(true, "free(NULL) does nothing");
  for (std::size_t n : {1, 15, 16, 17, 100, 1000, 4097, 100000, 1000000}) {
    void* p = malloc(n);
    check(p && aligned(p, 16), "every block is 16-byte aligned");
    check(malloc_usable_size(p) >= n, "malloc_usable_size >= the request");
    free(p);
  }
  check(malloc_usable_size(nullptr) == 0, "malloc_usable_size(NULL) is 0");
  errno = 0;
  check(failsWith(malloc(opaque(SIZE_MAX - 8)), ENOMEM), "malloc(opaque(SIZE_MAX - 8)): NULL, ENOMEM");
  errno = 0;
  check(failsWith(malloc(opaque<std::size_t>(PTRDIFF_MAX)), ENOMEM), "malloc(opaque<std::size_t>(PTRDIFF_MAX)): NULL, ENOMEM");
}

void reallocEdges() {
  void* p = realloc(nullptr, 40);
  check(p != nullptr, "realloc(NULL, n) is malloc(n)");
  fill(p, 40, 1);
  p = realloc(p, 4000);
  check(p && holds(p, 40, 1), "realloc growing keeps the content");
  fill(p, 4000, 2);
  p = realloc(p, 10);
  check(p && holds(p, 10, 2), "realloc shrinking keeps the content");
  p = realloc(p, 300000);
  check(p && holds(p, 10, 2), "realloc to a large block keeps the content");
  fill(p, 300000, 9);
  errno = 0;
  void* kept = opaque(p);  // a failed realloc leaves the block the program's
  void* huge = realloc(p, opaque(SIZE_MAX - 8));
  p = kept;
  check(failsWith(huge, ENOMEM), "realloc to an impossible size: NULL, ENOMEM");
  check(holds(p, 300000, 9), "... and the block is left as it was");
  check(realloc(p, 0) == nullptr, "realloc(p, 0) frees p and returns NULL, as glibc");
  void* r = reallocarray(nullptr, 10, 10);
  check(r != nullptr && malloc_usable_size(r) >= 100, "reallocarray(NULL, 10, 10)");
  fill(r, 100, 4);
  errno = 0;
  kept = opaque(r);
  check(failsWith(reallocarray(r, opaque(SIZE_MAX / 2), 3), ENOMEM), "reallocarray overflowing: NULL, ENOMEM");
  r = kept;
  check(holds(r, 100, 4), "... and the block is left as it was");
  free(r);
}

// With a policy over a fixed arena: a request larger than it fails, the heap goes on.
void largerThanTheArena() {
  const char* policy = getenv("KITH_HEAP");
  const char* size = getenv("KITH_HEAP_SIZE");
  if (!policy || !size) return;
  for (const char* grows : {"malloc", "jemalloc", "mimalloc"})
    if (std::strcmp(policy, grows) == 0) return;  // these grow: no arena to exceed
  char* unit = nullptr;
  std::size_t arena = std::strtoull(size, &unit, 10);  // bytes, as kith exec sets it, or 16M by hand
  if (*unit) arena <<= 10 * (std::strchr("KMGT", *unit) - "KMGT" + 1);
  errno = 0;
  check(failsWith(malloc(opaque(arena + 1)), ENOMEM), "a request larger than the arena: NULL, ENOMEM");
  void* small = malloc(100);
  check(small != nullptr, "the heap serves again after a request it could not meet");
  free(small);
}

}  // namespace

int main() {
  callocEdges();
  alignmentEdges();
  interiorPointers();
  mallocEdges();
  reallocEdges();
  largerThanTheArena();
  if (failures) return 1;
  std::printf("ok %d\n", checks);
  return 0;
}
