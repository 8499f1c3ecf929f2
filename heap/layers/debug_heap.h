// DebugHeap: catches the three classic misuses of a heap as they happen, instead
// of as a corrupted free list much later:
//   - double free, and free of a pointer this heap never returned (foreign, or
//     interior: pointing into a live block but not at its start);
//   - writes past the end of a block, through a canary after the user's bytes;
//   - writes just before the start, through a canary header.
// Each block from Super is laid out as
//   [16-byte header canary][user bytes][tail canary up to the end of Super's block]
// so the payload stays 16-byte aligned. The canaries are checked on free, and for
// every live block by checkAll(). Freshly allocated bytes are filled with 0xCD and
// freed ones with 0xDD, so reads of uninitialised or freed memory stand out.
//
// Metadata: the canaries live in the block (in Super's memory); the table of live
// blocks (address -> size, allocation number) and of freed addresses lives in this
// object, on the system heap, so a smashed block cannot corrupt it. The freed table
// tells a double free from a foreign pointer; an address leaves it when Super hands
// it out again, so it holds at most one entry per distinct block address.
//
// Errors go to a handler (setErrorHandler). The default prints one line to stderr
// and aborts. When the handler returns, an invalid free is ignored (not passed
// down); a free that finds a smashed canary is still a valid free and goes ahead.
// Not thread-safe: put a LockedHeap above it.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <string>
#include <unordered_map>

#include "heap/layer.h"
#include "heap/outcome.h"

namespace kith::heap {

enum class DebugHeapError : std::uint8_t {
  doubleFree,       // free of a block already freed
  foreignPointer,   // free/getSize of a pointer this heap never returned
  interiorPointer,  // free/getSize of a pointer into a live block, not its start
  writePastEnd,     // the tail canary after the user's bytes was overwritten
  headerSmashed,    // the header canary before the user's bytes was overwritten
  useAfterFree,     // getSize of a block already freed
};

using DebugHeapErrorHandler = void (*)(void* context, DebugHeapError kind,
                                       const std::string& message);

// What the error being reported is about, for a handler that writes its own line
// (libkith_malloc.so's `kith: double free of 0x... (24 bytes)`): the address the
// call named, and the size the user asked for of the block it concerns (0 for a
// foreign pointer, which concerns none).
struct DebugHeapFault {
  DebugHeapError kind = DebugHeapError::foreignPointer;
  std::uintptr_t address = 0;
  std::size_t size = 0;
};

template <class Super>
class DebugHeap : public Super {
  static_assert(HeapLayer<Super>, "DebugHeap needs Super::malloc and Super::free");

 public:
  using Super::Super;

  static constexpr std::size_t kHeader = kAlignment;  // keeps the payload aligned
  static constexpr std::size_t kMinTail = 16;
  static constexpr unsigned char kHeaderByte = 0xFB;
  static constexpr unsigned char kTailByte = 0xFD;
  static constexpr unsigned char kFreshByte = 0xCD;
  static constexpr unsigned char kFreedByte = 0xDD;

  void* malloc(std::size_t size) {
    if (size > SIZE_MAX - kHeader - kMinTail) return nullptr;
    auto* block = static_cast<unsigned char*>(Super::malloc(kHeader + size + kMinTail));
    if (!block) return nullptr;
    std::size_t tail = kMinTail;
    if constexpr (SizedHeap<Super>) tail = Super::getSize(block) - kHeader - size;
    unsigned char* user = block + kHeader;
    std::memset(block, kHeaderByte, kHeader);
    std::memset(user, kFreshByte, size);
    std::memset(user + size, kTailByte, tail);
    auto address = reinterpret_cast<std::uintptr_t>(user);
    freed_.erase(address);
    live_[address] = Block{size, tail, ++allocations_};
    return user;
  }

  // free(nullptr) does nothing, as in C.
  void free(void* ptr) {
    if (!ptr) return;
    auto it = live_.find(reinterpret_cast<std::uintptr_t>(ptr));
    if (it == live_.end()) {
      reportBadPointer("free", ptr);
      return;  // ignored: passing it down would corrupt Super
    }
    checkBlock(it->first, it->second, reporter(it->first, it->second.size));
    auto* user = reinterpret_cast<unsigned char*>(it->first);
    std::memset(user, kFreedByte, it->second.size);
    freed_[it->first] = it->second;
    live_.erase(it);
    Super::free(user - kHeader);
  }

  // The size the user asked for (0 and an error report for a pointer not live).
  std::size_t getSize(void* ptr) {
    auto it = live_.find(reinterpret_cast<std::uintptr_t>(ptr));
    if (it != live_.end()) return it->second.size;
    reportBadPointer("getSize", ptr);
    return 0;
  }

  // Checks the canaries of every live block, reporting each smashed one; returns
  // how many were smashed.
  std::size_t checkAll() {
    std::size_t bad = 0;
    for (const auto& [address, block] : live_)
      bad += checkBlock(address, block, reporter(address, block.size)) ? 0 : 1;
    return bad;
  }

  // The first smashed canary found, else the result of Super's own check when it
  // has one; "" when all is well. Reports nothing to the handler: this is for
  // tests and harnesses (the shadow model's invariants callback).
  std::string checkInvariants() {
    std::string problem;
    for (const auto& [address, block] : live_) {
      if (!checkBlock(address, block, [&](DebugHeapError, const std::string& m) { problem = m; }))
        break;
    }
    if constexpr (requires(Super s) { std::string(s.checkInvariants()); })
      if (problem.empty()) problem = Super::checkInvariants();
    return problem;
  }

  std::size_t liveBlocks() const { return live_.size(); }
  // The error being reported, valid while the handler runs (DebugHeapFault).
  const DebugHeapFault& lastFault() const { return fault_; }

  // nullptr restores the default handler (print and abort).
  void setErrorHandler(DebugHeapErrorHandler fn, void* context) {
    handler_ = fn ? fn : &defaultHandler;
    handlerContext_ = context;
  }

  // A moving Super relocates whole blocks (canaries travel with them); the live
  // table must follow, and the owner must be told the user's addresses.
  void setRelocator(RelocateFn fn, void* context)
    requires requires(Super s, RelocateFn f, void* c) { s.setRelocator(f, c); }
  {
    relocate_ = fn;
    relocateContext_ = context;
    Super::setRelocator(fn ? &relocated : nullptr, fn ? this : nullptr);
  }

 private:
  struct Block {
    std::size_t size;      // what the user asked for
    std::size_t tail;      // canary bytes after the user's bytes
    std::uint64_t serial;  // 1 for the first allocation, 2 for the next, ...
  };

  static void defaultHandler(void*, DebugHeapError, const std::string& message) {
    std::fprintf(stderr, "%s\n", message.c_str());
    std::fflush(stderr);
    std::abort();
  }

  static std::string hex(std::uintptr_t v) {
    char buf[2 + 2 * sizeof v + 1];
    std::snprintf(buf, sizeof buf, "0x%llx", static_cast<unsigned long long>(v));
    return buf;
  }
  // "block of 48 bytes at 0x... allocated as #12" (without " at ..." for address 0).
  static std::string describe(const Block& b, std::uintptr_t address = 0) {
    return "block of " + std::to_string(b.size) + " bytes" +
           (address ? " at " + hex(address) : std::string()) + " allocated as #" +
           std::to_string(b.serial);
  }

  void report(DebugHeapError kind, const std::string& message, std::uintptr_t address, std::size_t size) {
    fault_ = {kind, address, size};
    handler_(handlerContext_, kind, message);
  }
  auto reporter(std::uintptr_t address, std::size_t size) {
    return [this, address, size](DebugHeapError kind, const std::string& m) { report(kind, m, address, size); };
  }

  // Checks both canaries of one block; on a mismatch calls sink(kind, message)
  // and returns false.
  template <class Sink>
  static bool checkBlock(std::uintptr_t address, const Block& b, Sink&& sink) {
    const auto* user = reinterpret_cast<const unsigned char*>(address);
    for (std::size_t i = 0; i < kHeader; ++i) {
      if (user[-static_cast<std::ptrdiff_t>(kHeader - i)] != kHeaderByte) {
        sink(DebugHeapError::headerSmashed,
             "kith heap: write before the start of the " + describe(b, address) +
                 " (header canary byte " + std::to_string(kHeader - i) +
                 " before the start was overwritten)");
        return false;
      }
    }
    for (std::size_t i = 0; i < b.tail; ++i) {
      if (user[b.size + i] != kTailByte) {
        sink(DebugHeapError::writePastEnd,
             "kith heap: write past the end of the " + describe(b, address) + " (byte " +
                 std::to_string(i) + " after the end was overwritten)");
        return false;
      }
    }
    return true;
  }
  void reportBadPointer(const char* operation, void* ptr) {
    auto address = reinterpret_cast<std::uintptr_t>(ptr);
    std::string op = operation;
    if (auto f = freed_.find(address); f != freed_.end()) {
      if (op == "free")
        report(DebugHeapError::doubleFree,
               "kith heap: double free of " + hex(address) + " (" + describe(f->second) + ")", address,
               f->second.size);
      else
        report(DebugHeapError::useAfterFree,
               "kith heap: " + op + " of freed pointer " + hex(address) + " (" + describe(f->second) + ")",
               address, f->second.size);
      return;
    }
    // The live block whose header starts at or before ptr, if ptr lies inside it
    // (its canaries included): blocks do not overlap, so only one can hold ptr.
    auto next = live_.upper_bound(address + kHeader);
    if (next != live_.begin()) {
      auto owner = std::prev(next);
      if (address >= owner->first - kHeader &&
          address < owner->first + owner->second.size + owner->second.tail) {
        auto offset = static_cast<std::ptrdiff_t>(address - owner->first);
        report(DebugHeapError::interiorPointer,
               "kith heap: " + op + " of interior pointer " + hex(address) + ", at offset " +
                   std::to_string(offset) + " of the " + describe(owner->second, owner->first),
               address, owner->second.size);
        return;
      }
    }
    report(DebugHeapError::foreignPointer,
           "kith heap: " + op + " of " + hex(address) +
               ", which this heap never returned (foreign pointer)",
           address, 0);
  }

  static void relocated(void* self, void* from, void* to, std::size_t) {
    auto* heap = static_cast<DebugHeap*>(self);
    auto oldUser = reinterpret_cast<std::uintptr_t>(from) + kHeader;
    auto newUser = reinterpret_cast<std::uintptr_t>(to) + kHeader;
    auto it = heap->live_.find(oldUser);
    std::size_t size = 0;
    if (it != heap->live_.end()) {
      Block b = it->second;
      heap->live_.erase(it);
      heap->freed_.erase(newUser);
      heap->live_[newUser] = b;
      size = b.size;
    }
    if (heap->relocate_)
      heap->relocate_(heap->relocateContext_, reinterpret_cast<void*>(oldUser),
                      reinterpret_cast<void*>(newUser), size);
  }

  std::map<std::uintptr_t, Block> live_;  // ordered: finds the owner of an interior pointer
  std::unordered_map<std::uintptr_t, Block> freed_;
  std::uint64_t allocations_ = 0;
  DebugHeapErrorHandler handler_ = &defaultHandler;
  DebugHeapFault fault_;
  void* handlerContext_ = nullptr;
  RelocateFn relocate_ = nullptr;
  void* relocateContext_ = nullptr;
};

}  // namespace kith::heap
