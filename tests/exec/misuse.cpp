// Misuses `kith exec --check` must catch: `misuse double-free` frees a 24-byte
// block twice, `past-end` writes one byte past a 24-byte block and frees it,
// `interior` frees a pointer 8 bytes into one, `aligned-double-free` frees a
// 64-aligned block twice. Each prints "survived" if nothing stopped it.
#include <stdlib.h>

#include <cstdio>
#include <cstring>

int main(int argc, char** argv) {
  if (argc != 2) return 2;
  const char* what = argv[1];
  // volatile: keep the compiler from seeing (and warning about) the misuse
  char* volatile p = static_cast<char*>(std::malloc(24));
  std::memset(p, 'x', 24);
  if (std::strcmp(what, "double-free") == 0) {
    std::free(p);
    std::free(p);
  } else if (std::strcmp(what, "past-end") == 0) {
    static_cast<volatile char*>(p)[24] = '!';  // volatile: a store just before free is not dead
    std::free(p);
  } else if (std::strcmp(what, "interior") == 0) {
    char* volatile inside = p + 8;
    std::free(inside);
  } else if (std::strcmp(what, "aligned-double-free") == 0) {
    void* volatile q = aligned_alloc(64, 64);
    std::free(q);
    std::free(q);
  } else {
    return 2;
  }
  std::puts("survived");
  return 0;
}
