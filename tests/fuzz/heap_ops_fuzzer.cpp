// libFuzzer target: the input is a sequence of heap operations (malloc of a
// size, free of a live block) run on one heap policy over a small arena, with
// the policy's own invariant checker (checkInvariants) after every operation
// and a shadow model (as tests/heap/shadow_model.h) checking what any correct
// allocator keeps true: every block inside the arena, 16-byte aligned, getSize
// at least the request, no two live blocks overlapping, and each block's
// contents intact until it is freed — also when the buddy policies' defragmenter
// moves it (the relocator is installed for knuth and estranged when asked).
//
// Encoding (every byte string is valid):
//   byte 0   policy: index into the arena policies of heap::policyList()
//   byte 1   bit 0-1: arena 16K / 64K / 256K / 1M; bit 2: install the relocator
//   then ops, each one byte `op` and its operands:
//     op < 0x80      malloc: op & 0x3f in size class op >> 6 (0: 0..63 bytes,
//                    1: 16 * next byte); i.e. small requests
//     0x80..0xbf     malloc of 16 * (next two bytes, little endian): up to 1 MiB
//     0xc0..0xdf     free live block number (next byte) mod live count
//     0xe0..0xef     free the newest live block
//     0xf0..0xf7     an edge-size malloc: arena size, +1, -16, half, +1, 2^40,
//                    SIZE_MAX - 15, SIZE_MAX (must fail or fit, never corrupt)
//     0xf8..0xff     free the oldest live block
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "heap/heap.h"
#include "heap/layer.h"

namespace {

using kith::heap::Heap;

struct Live {
  std::byte* ptr;
  std::size_t size;  // requested
  std::uint8_t fill;
};

struct Shadow {
  std::vector<Live> live;                          // allocation order
  std::map<std::uintptr_t, std::uintptr_t> spans;  // start -> end
};

[[noreturn]] void fail(const std::string& policy, std::size_t op, const std::string& what) {
  std::fprintf(stderr, "heap_ops_fuzzer: %s, operation %zu: %s\n", policy.c_str(), op, what.c_str());
  std::abort();
}

bool intact(const Live& b) {
  return b.size == 0 || (b.ptr[0] == std::byte{b.fill} && std::memcmp(b.ptr, b.ptr + 1, b.size - 1) == 0);
}

// The relocator the buddy policies call while defragmenting inside malloc: the
// block has already been copied from `from` to `to`.
void relocate(void* context, void* from, void* to, std::size_t size) {
  auto* shadow = static_cast<Shadow*>(context);
  for (Live& b : shadow->live) {
    if (b.ptr != from) continue;
    if (size < b.size) {
      std::fprintf(stderr, "heap_ops_fuzzer: relocated %zu bytes of a %zu-byte block\n", size, b.size);
      std::abort();
    }
    shadow->spans.erase(reinterpret_cast<std::uintptr_t>(b.ptr));
    b.ptr = static_cast<std::byte*>(to);
    if (!intact(b)) {
      std::fprintf(stderr, "heap_ops_fuzzer: a moved block's contents differ at its new address\n");
      std::abort();
    }
    // Overlaps are checked when malloc returns (blocks move one after another).
    shadow->spans[reinterpret_cast<std::uintptr_t>(b.ptr)] = reinterpret_cast<std::uintptr_t>(b.ptr) + b.size;
    return;
  }
  std::fprintf(stderr, "heap_ops_fuzzer: the heap moved %p, which is not a live block\n", from);
  std::abort();
}

const std::vector<std::string>& arenaPolicies() {
  static const std::vector<std::string> names = [] {
    std::vector<std::string> out;
    for (const auto& p : kith::heap::policyList()) {
      auto h = kith::heap::makeHeap(p.name, std::size_t{16} << 10, kith::heap::StatisticsMode::counts);
      if (h && h->arenaBase()) out.emplace_back(p.name);
    }
    return out;
  }();
  return names;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size < 2) return 0;
  const auto& policies = arenaPolicies();
  const std::string& policy = policies[data[0] % policies.size()];
  constexpr std::size_t kArenas[] = {std::size_t{16} << 10, std::size_t{64} << 10, std::size_t{256} << 10,
                                     std::size_t{1} << 20};
  std::size_t arena = kArenas[data[1] & 3];
  bool relocator = data[1] & 4;
  std::unique_ptr<Heap> heap = kith::heap::makeHeap(policy, arena, kith::heap::StatisticsMode::counts);
  Shadow shadow;
  if (relocator) heap->setRelocator(&relocate, &shadow);
  auto base = reinterpret_cast<std::uintptr_t>(heap->arenaBase());
  std::size_t arenaBytes = heap->arenaSize();

  auto check = [&](std::size_t op) {
    std::string broken = heap->checkInvariants();
    if (!broken.empty()) fail(policy, op, "invariant broken: " + broken);
  };
  auto freeAt = [&](std::size_t op, std::size_t index) {
    Live b = shadow.live[index];
    if (!intact(b)) fail(policy, op, "a " + std::to_string(b.size) + "-byte block changed before it was freed");
    shadow.spans.erase(reinterpret_cast<std::uintptr_t>(b.ptr));
    shadow.live.erase(shadow.live.begin() + static_cast<std::ptrdiff_t>(index));
    heap->free(b.ptr);
  };
  auto mallocOf = [&](std::size_t op, std::size_t bytes) {
    auto* p = static_cast<std::byte*>(heap->malloc(bytes));
    if (!p) return;
    auto start = reinterpret_cast<std::uintptr_t>(p);
    if (!kith::heap::isAligned(p)) fail(policy, op, "block not 16-byte aligned");
    if (start < base || bytes > arenaBytes || start - base > arenaBytes - bytes)
      fail(policy, op, "block of " + std::to_string(bytes) + " bytes outside the arena");
    if (heap->getSize(p) < bytes)
      fail(policy, op, "getSize " + std::to_string(heap->getSize(p)) + " < request " + std::to_string(bytes));
    // Every live block against its neighbours (a defragmenting malloc moved some).
    auto next = shadow.spans.lower_bound(start);
    if (next != shadow.spans.end() && next->first < start + std::max<std::size_t>(bytes, 1))
      fail(policy, op, "new block overlaps a live block");
    if (next != shadow.spans.begin() && std::prev(next)->second > start)
      fail(policy, op, "new block overlaps a live block");
    shadow.spans.emplace(start, start + bytes);
    auto fill = static_cast<std::uint8_t>((op * 37) | 1);
    std::memset(p, fill, bytes);
    shadow.live.push_back({p, bytes, fill});
  };

  std::size_t i = 2;
  auto byte = [&]() -> std::size_t { return i < size ? data[i++] : 0; };
  for (std::size_t op = 0; i < size; ++op) {
    std::uint8_t code = data[i++];
    if (code < 0x80) {
      std::size_t bytes = (code >> 6) == 0 ? (code & 0x3f) : 16 * byte();
      mallocOf(op, bytes);
    } else if (code < 0xc0) {
      std::size_t lo = byte(), hi = byte();
      mallocOf(op, 16 * (lo | hi << 8));
    } else if (code < 0xe0) {
      std::size_t which = byte();
      if (!shadow.live.empty()) freeAt(op, which % shadow.live.size());
    } else if (code < 0xf0) {
      if (!shadow.live.empty()) freeAt(op, shadow.live.size() - 1);
    } else if (code < 0xf8) {
      const std::size_t edges[] = {arena,       arena + 1,          arena - 16,          arena / 2,
                                   arena / 2 + 1, std::size_t{1} << 40, SIZE_MAX - 15, SIZE_MAX};
      mallocOf(op, edges[code & 7]);
    } else {
      if (!shadow.live.empty()) freeAt(op, 0);
    }
    check(op);
  }
  // Every block intact at the end, then all freed: the heap must be whole again.
  std::size_t end = size;
  while (!shadow.live.empty()) freeAt(end, shadow.live.size() - 1);
  check(end);
  if (heap->statistics().bytes_in_use != 0) fail(policy, end, "bytes in use after freeing every block");
  heap->setRelocator(nullptr, nullptr);
  return 0;
}
