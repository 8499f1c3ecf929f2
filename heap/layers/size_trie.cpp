// SizeTrie's structural check, for tests and heap checks: never on the
// allocation path (size_trie.h has the trie).
#include "heap/layers/size_trie.h"

#include <string>
#include <vector>

namespace kith::heap {

std::string SizeTrie::checkStructure() const {
  std::size_t seen = 0;
  if (root_ == nullptr) return count_ == 0 ? "" : "empty but counts " + std::to_string(count_);
  if (root_->parent != nullptr || !root_->inTree) return "root not marked as the tree's root";
  const std::size_t highMask = ~std::size_t{0} << (topBit_ + 1);
  const std::size_t high = root_->size & highMask;
  struct Visit {
    const Node* node;
    unsigned depth;
    std::size_t pathBits;  // the key bits of the path, aligned at bit TopBit
  };
  std::vector<Visit> stack{{root_, 0, 0}};
  while (!stack.empty()) {
    Visit v = stack.back();
    stack.pop_back();
    const Node* t = v.node;
    std::string at = "node of " + std::to_string(t->size) + " bytes at depth " + std::to_string(v.depth) + ": ";
    if (v.depth + 1 > pathNodes(topBit_)) return at + "deeper than a path can be";
    if (t->size % kAlignment != 0 || t->size == 0) return at + "bad size";
    if ((t->size & highMask) != high) return at + "differs from the root above the key bits";
    if (v.depth > 0) {
      std::size_t pathMask = ~std::size_t{0} << (topBit_ + 1 - v.depth);
      if ((t->size & pathMask & ~highMask) != v.pathBits) return at + "size does not follow its path";
    }
    if (!t->inTree) return at + "in the tree but not flagged so";
    const Node* n = t;
    std::size_t ring = 0;
    do {
      if (++seen > count_) return at + "more blocks than the " + std::to_string(count_) + " counted (a loop?)";
      if (n->next->prev != n) return at + "ring links disagree";
      if (n->size != t->size) return at + "ring holds a block of " + std::to_string(n->size) + " bytes";
      if (n != t && (n->inTree || n->parent != nullptr)) return at + "ring mate claims a place in the tree";
      if (++ring > count_) return at + "ring does not close";
      n = n->next;
    } while (n != t);
    for (unsigned side = 0; side < 2; ++side) {
      const Node* c = t->child[side];
      if (c == nullptr) continue;
      if (c->parent != t) return at + "child's parent link is wrong";
      std::size_t bit = std::size_t{side} << (topBit_ - v.depth);
      stack.push_back({c, v.depth + 1, v.pathBits | bit});
    }
  }
  if (seen != count_) return std::to_string(seen) + " blocks but " + std::to_string(count_) + " counted";
  return "";
}

}  // namespace kith::heap
