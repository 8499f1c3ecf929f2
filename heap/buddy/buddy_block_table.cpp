// BuddyBlockTable's set-up, its statistics and its checks: the parts no malloc or
// free of a buddy heap goes through (buddy_block_table.h has the table itself).
#include "heap/buddy/buddy_block_table.h"

#include <algorithm>
#include <bit>
#include <cstring>
#include <string>
#include <vector>

namespace kith::heap {

namespace {

std::string listName(BuddyState s) { return s == BuddyState::listedB ? "B" : "A"; }

}  // namespace

BuddyBlockTable::BuddyBlockTable(std::byte* base, std::size_t bytes)
    : base_(base),
      bytes_(base ? bytes : 0),
      granules_(bytes_ / kMinBlock),
      topLevel_(granules_ ? std::min<unsigned>(kMaxLevel, std::bit_width(granules_) - 1) : 0),
      side_(makeZeroedArray<SideByte>(granules_ + 1)),
      live_(granules_) {
  forEachRoot([&](std::size_t off, unsigned level) { addFree(off, level, BuddyState::listedA); });
  trackLeftovers(true);
}

void BuddyBlockTable::trackLeftovers(bool on) {
  if (!on) {
    leftovers_.release();
    return;
  }
  if (leftovers_.on()) return;
  leftovers_ = GranuleBits(bytes_);
  if (granules_ == 0) return;
  forEachBlock([&](std::size_t off, unsigned, BuddyState s) {
    if (isFreeState(s)) leftovers_.set(off);
  });
}

std::size_t BuddyBlockTable::liveGranules(std::size_t regionOff, unsigned level, std::size_t& reads) const {
  ++reads;
  if (!isSplitRegion(regionOff, level)) return isLiveOrHeld(regionOff) ? std::size_t{1} << level : 0;
  if (level == BuddyLiveSummary::kLevel) return live_.count(regionOff / kMinBlock);
  std::size_t live = 0;
  for (std::size_t o = regionOff, end = regionOff + blockBytes(level); o < end; ++reads) {
    const unsigned l = levelAt(o);
    if (level < BuddyLiveSummary::kLevel || l >= BuddyLiveSummary::kLevel) {  // a block
      if (isLiveOrHeld(o)) live += std::size_t{1} << l;
      o += blockBytes(l);
    } else {  // a split region of level 8: its counter
      live += live_.count(o / kMinBlock);
      o += blockBytes(BuddyLiveSummary::kLevel);
    }
  }
  return live;
}

std::size_t BuddyBlockTable::freeBytesBelow(unsigned level) const {
  std::size_t sum = 0;
  for (unsigned l = 0; l < level; ++l) sum += freeCount_[l] * blockBytes(l);
  return sum;
}

std::size_t BuddyBlockTable::largestFreeBlock() const {
  for (unsigned l = topLevel_ + 1; l-- > 0;)
    if (freeCount_[l] != 0) return blockBytes(l);
  return 0;
}

std::string BuddyBlockTable::checkStructure() const {
  std::vector<std::uint8_t> onList(granules_, 0);
  std::size_t listed[2][kLevels] = {};
  for (BuddyState s : {BuddyState::listedA, BuddyState::listedB})
    for (unsigned level = 0; level < kLevels; ++level) {
      const BuddyFreeList::Node* prev = nullptr;
      std::size_t n = 0;
      for (const BuddyFreeList::Node* node = list(s, level).front(); node;
           prev = node, node = node->next) {
        const std::string where = listName(s) + " list of level " + std::to_string(level);
        if (!contains(node) || offsetOf(node) % kMinBlock != 0)
          return where + " links to an address outside the arena";
        const std::size_t off = offsetOf(node);
        if (stateAt(off) != s || levelAt(off) != level)
          return where + " holds " + describe(off) + ", not a free block of that list";
        if (onList[off / kMinBlock]++) return where + " holds " + describe(off) + " twice (or it is on two lists)";
        if (node->prev != prev) return where + ": back link of " + describe(off) + " is wrong";
        if (++n > granules_) return where + " has a cycle";
        ++listed[s == BuddyState::listedB][level];
      }
    }

  std::size_t total = 0, freeBytes = 0;
  std::size_t counts[kLevels] = {};
  std::size_t counted[2][kLevels] = {};
  std::string fault;
  forEachRoot([&](std::size_t root, unsigned rootLevel) {
    const std::size_t end = root + blockBytes(rootLevel);
    for (std::size_t o = root; fault.empty() && o < end;) {
      const BuddyState s = stateAt(o);
      const unsigned level = levelAt(o);
      const std::size_t size = blockBytes(level);
      if (s == BuddyState::held) {
        fault = describe(o) + " is still held: a defragmentation did not finish";
        break;
      }
      if (s == BuddyState::none || s > BuddyState::implied) {
        fault = "offset " + std::to_string(o) + " should start a block but its table byte is " +
                std::to_string(byteAt(o));
        break;
      }
      if (level > rootLevel || (o - root) % size != 0)
        fault = describe(o) + " is not aligned to its size inside its maximal block";
      if (fault.empty() && !interiorClear(o / kMinBlock + 1, size / kMinBlock - 1))
        fault = describe(o) + " covers a granule marked as a block start";
      if (isListedState(s) && !onList[o / kMinBlock])
        fault = describe(o) + " is on no list";
      if (!isListedState(s) && onList[o / kMinBlock]) fault = describe(o) + " is on a free list";
      if (isListedState(s)) ++counted[s == BuddyState::listedB][level];
      if (isFreeState(s)) {
        ++counts[level];
        freeBytes += size;
      }
      total += size;
      o += size;
    }
  });
  if (!fault.empty()) return fault;
  if (total != bytes_)
    return "blocks sum to " + std::to_string(total) + " bytes, the arena has " + std::to_string(bytes_);
  for (unsigned level = 0; level < kLevels; ++level) {
    if (counts[level] != freeCount_[level])
      return "free count of level " + std::to_string(level) + " is " +
             std::to_string(freeCount_[level]) + " but " + std::to_string(counts[level]) +
             " free blocks exist";
    for (int b = 0; b < 2; ++b)
      if (counted[b][level] != listed[b][level])
        return "level " + std::to_string(level) + " list mismatch";
  }
  if (freeBytes != this->freeBytes())
    return "freeBytes() says " + std::to_string(this->freeBytes()) + ", the free blocks hold " +
           std::to_string(freeBytes);
  return checkLiveSummary();
}

std::string BuddyBlockTable::layout() const {
  std::string out;
  forEachRoot([&](std::size_t root, unsigned rootLevel) {
    if (!out.empty()) out += " |";
    for (std::size_t o = root, end = root + blockBytes(rootLevel); o < end;
         o += blockBytes(levelAt(o))) {
      if (!out.empty()) out += ' ';
      constexpr const char* marks[] = {"?", "*", "", "+", "-", "#", "?", "?"};
      out += std::to_string(blockBytes(levelAt(o)));
      out += marks[static_cast<unsigned>(stateAt(o))];
    }
  });
  return out;
}

std::string BuddyBlockTable::describe(std::size_t off) const {
  constexpr const char* names[] = {"not a block", "busy", "free on list A", "free on list B",
                                   "free, implied", "held by the defragmenter", "?", "?"};
  return "block at offset " + std::to_string(off) + " (" +
         std::to_string(blockBytes(levelAt(off))) + " bytes, " +
         names[static_cast<unsigned>(stateAt(off))] + ")";
}

// memcmp: the checker walks every granule, and this keeps it fast in unoptimized builds.
bool BuddyBlockTable::interiorClear(std::size_t g, std::size_t n) const {
  if (n == 0) return true;
  return side_[g] == SideByte{} && (n == 1 || std::memcmp(&side_[g], &side_[g + 1], n - 1) == 0);
}

std::string BuddyBlockTable::checkLiveSummary() const {
  std::vector<std::size_t> expected(live_.regions(), 0);
  forEachBlock([&](std::size_t o, unsigned level, BuddyState s) {
    if (s == BuddyState::busy && level < BuddyLiveSummary::kLevel)
      expected[o / kMinBlock >> BuddyLiveSummary::kLevel] += std::size_t{1} << level;
  });
  return live_.check([&](std::size_t i) { return expected[i]; });
}

}  // namespace kith::heap
