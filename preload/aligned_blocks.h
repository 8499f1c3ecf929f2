// AlignedBlocks: the side table of the blocks memalign and its kin handed out at
// an address inside a larger block. A request for alignment A > 16 takes
// size + A - 16 bytes from the policy (whose blocks are 16-byte aligned) and
// returns the first A-aligned address in it; when that is not the block's own
// start, the table maps it to the block, so free, realloc and malloc_usable_size
// find the block the policy knows.
//
// Why a table and not a header before the aligned address: a header is in the
// program's reach. A free of an ordinary block would have to read the 16 bytes
// before it to learn it is not an aligned one, and whatever the program stored
// there (its own data at the end of the block before) could read as a header.
// With the table, an address is an aligned block's only if the table holds it, and
// a live aligned address lies strictly inside its block (a request of 0 bytes is
// made as 1, so the address is never the block's end), so it can never be the
// start of another live block. A program that never asks for alignment above 16
// pays one test of an empty table per free.
//
// Under --check the table also remembers the aligned addresses freed, so a second
// free of one is a double free rather than a foreign pointer to DebugHeap. Not
// thread-safe: the heap's lock guards it. Its memory is the C library's (the
// process heap's own requests go there).
#pragma once

#include <cstddef>
#include <unordered_map>

namespace kith::preload {

class AlignedBlocks {
 public:
  explicit AlignedBlocks(bool rememberFreed) : rememberFreed_(rememberFreed) {}

  bool empty() const { return live_.empty(); }

  // `aligned` lies inside `block`, `size` bytes were asked for.
  void add(void* aligned, void* block, std::size_t size) {
    live_[aligned] = Entry{block, size};
    if (rememberFreed_) freed_.erase(aligned);
  }

  // The block holding the aligned address `p`, or nullptr when `p` is not one.
  void* blockOf(void* p) const {
    if (live_.empty()) return nullptr;
    auto it = live_.find(p);
    return it == live_.end() ? nullptr : it->second.block;
  }

  // As blockOf, and forgets `p` (a free).
  void* take(void* p) {
    if (live_.empty()) return nullptr;
    auto it = live_.find(p);
    if (it == live_.end()) return nullptr;
    void* block = it->second.block;
    if (rememberFreed_) freed_[p] = it->second.size;
    live_.erase(it);
    return block;
  }

  // Under --check: `p` was handed out again (any block), so it is no longer a freed
  // aligned address.
  void reissued(void* p) {
    if (!freed_.empty()) freed_.erase(p);
  }

  // Under --check: the size asked for when `p` was an aligned address already freed.
  bool wasFreed(void* p, std::size_t& size) const {
    auto it = freed_.find(p);
    if (it == freed_.end()) return false;
    size = it->second;
    return true;
  }

 private:
  struct Entry {
    void* block;
    std::size_t size;
  };
  std::unordered_map<void*, Entry> live_;
  std::unordered_map<void*, std::size_t> freed_;
  bool rememberFreed_;
};

}  // namespace kith::preload
