// A threaded stress program for `kith exec` (libkith_malloc.so): several threads
// make random malloc, calloc, realloc, aligned and C++ new requests of random
// sizes, keep a pattern in every block and check it before each resize and free,
// and hand a share of their blocks to the other threads to free. Prints
// "ok THREADS OPERATIONS" and exits 0 when every check held; else one line naming
// the first failure, exit 1.
//   alloc_stress [THREADS] [OPERATIONS PER THREAD]
#include <malloc.h>
#include <stdint.h>
#include <stdlib.h>

#include <algorithm>
#include <atomic>
#include <cstdio>
#include <cstring>
#include <mutex>
#include <new>
#include <random>
#include <thread>
#include <vector>

namespace {

std::atomic<bool> failed{false};

void fail(const char* what, std::size_t size) {
  if (!failed.exchange(true)) std::printf("FAILED: %s (size %zu)\n", what, size);
}

// How a block was made, so it is released the matching way.
enum class Kind { c, aligned, cxx, cxxAligned };

struct Block {
  unsigned char* p = nullptr;
  std::size_t size = 0;
  unsigned char tag = 0;
  Kind kind = Kind::c;
};

struct alignas(64) Line {
  unsigned char bytes[64];
};

void fill(Block& b) {
  for (std::size_t i = 0; i < b.size; ++i) b.p[i] = static_cast<unsigned char>(b.tag + i * 7);
}

bool intact(const Block& b, std::size_t upTo) {
  for (std::size_t i = 0; i < upTo; ++i)
    if (b.p[i] != static_cast<unsigned char>(b.tag + i * 7)) return false;
  return true;
}

void release(Block& b) {
  if (!intact(b, b.size)) fail("content changed before free", b.size);
  switch (b.kind) {
    case Kind::c:
    case Kind::aligned: std::free(b.p); break;
    case Kind::cxx: ::operator delete(b.p, b.size ? b.size : 1); break;
    case Kind::cxxAligned: delete[] reinterpret_cast<Line*>(b.p); break;
  }
  b.p = nullptr;
}

// Blocks one thread hands another to free.
std::mutex exchangeLock;
std::vector<Block> exchange;

std::size_t randomSize(std::mt19937_64& rng) {
  switch (rng() % 8) {
    case 0: return rng() % 16;
    case 1: case 2: case 3: return rng() % 256;
    case 4: case 5: return rng() % 4096;
    case 6: return rng() % 65536;
    default: return rng() % (1 << 20);
  }
}

bool allocate(std::mt19937_64& rng, Block& b) {
  b.size = randomSize(rng);
  b.tag = static_cast<unsigned char>(rng());
  b.kind = Kind::c;
  switch (rng() % 8) {
    case 0: {
      b.p = static_cast<unsigned char*>(std::calloc(1, b.size));
      if (b.p)
        for (std::size_t i = 0; i < b.size; ++i)
          if (b.p[i] != 0) {
            fail("calloc's block is not zero", b.size);
            break;
          }
      break;
    }
    case 1: {
      std::size_t alignment = std::size_t{32} << (rng() % 8);  // 32 to 4096
      void* p = nullptr;
      if (rng() % 2) {
        if (posix_memalign(&p, alignment, b.size) != 0) p = nullptr;
      } else {
        p = aligned_alloc(alignment, b.size);
      }
      b.p = static_cast<unsigned char*>(p);
      b.kind = Kind::aligned;
      if (p && reinterpret_cast<uintptr_t>(p) % alignment != 0) fail("misaligned aligned block", b.size);
      break;
    }
    case 2:
      b.p = static_cast<unsigned char*>(::operator new(b.size ? b.size : 1));
      b.kind = Kind::cxx;
      break;
    case 3: {
      std::size_t lines = b.size / 64 + 1;
      b.p = reinterpret_cast<unsigned char*>(new (std::nothrow) Line[lines]);
      b.size = lines * 64;
      b.kind = Kind::cxxAligned;
      if (reinterpret_cast<uintptr_t>(b.p) % 64 != 0) fail("misaligned aligned new", b.size);
      break;
    }
    default: b.p = static_cast<unsigned char*>(std::malloc(b.size)); break;
  }
  if (!b.p) {
    fail("out of memory", b.size);
    return false;
  }
  if (reinterpret_cast<uintptr_t>(b.p) % 16 != 0) fail("block not 16-byte aligned", b.size);
  if (b.kind != Kind::cxx && b.kind != Kind::cxxAligned && malloc_usable_size(b.p) < b.size)
    fail("malloc_usable_size below the request", b.size);
  fill(b);
  return true;
}

void resize(std::mt19937_64& rng, Block& b) {
  std::size_t size = randomSize(rng);
  if (size == 0) size = 1;  // realloc(p, 0) frees: tested apart
  auto* p = static_cast<unsigned char*>(std::realloc(b.p, size));
  if (!p) return fail("realloc failed", size);
  b.p = p;
  if (!intact(b, std::min(size, b.size))) fail("realloc lost the content", size);
  b.size = size;
  fill(b);
}

void work(unsigned seed, std::size_t operations) {
  std::mt19937_64 rng(seed);
  std::vector<Block> mine(256);
  for (std::size_t op = 0; op < operations && !failed; ++op) {
    Block& b = mine[rng() % mine.size()];
    unsigned choice = rng() % 10;
    if (!b.p) {
      allocate(rng, b);
    } else if (choice < 2 && b.kind == Kind::c) {
      resize(rng, b);
    } else if (choice < 4) {  // another thread frees it
      std::lock_guard<std::mutex> hold(exchangeLock);
      exchange.push_back(b);
      b.p = nullptr;
    } else {
      release(b);
    }
    if (op % 64 == 0) {  // free what the others handed over
      std::vector<Block> theirs;
      {
        std::lock_guard<std::mutex> hold(exchangeLock);
        theirs.swap(exchange);
      }
      for (Block& t : theirs) release(t);
    }
  }
  for (Block& b : mine)
    if (b.p) release(b);
}

}  // namespace

int main(int argc, char** argv) {
  unsigned threads = argc > 1 ? static_cast<unsigned>(std::atoi(argv[1])) : 4;
  std::size_t operations = argc > 2 ? static_cast<std::size_t>(std::atol(argv[2])) : 20000;
  std::vector<std::thread> running;
  for (unsigned t = 0; t < threads; ++t) running.emplace_back(work, 1234 + t, operations);
  for (auto& t : running) t.join();
  for (Block& b : exchange) release(b);
  if (failed) return 1;
  std::printf("ok %u %zu\n", threads, operations);
  return 0;
}
