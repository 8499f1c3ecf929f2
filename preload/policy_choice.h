// Which policies can be a program's malloc: those `kith policies` lists that serve
// explicit frees, and the hand-written references (heap.h referenceList: kingsley-bsd).
// `boehm` collects garbage itself and never takes a free; the replay baseline
// `nothing` hands out addresses with no memory behind them.
// `kith exec` (cli/exec_command.cpp) and the library (preload_settings.cpp) both
// refuse the others with this reason.
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "heap/heap.h"

namespace kith::preload {

// Why `name` cannot be a program's malloc; nullopt when it can. An unknown name
// gets the list of those that can.
inline std::optional<std::string> programMallocProblem(std::string_view name) {
  for (const auto& p : heap::baselineList())
    if (p.name == name)
      return "it collects garbage itself and never takes the program's free(): a baseline for kith run only";
  if (heap::isReplayBaseline(name))
    return "it is the replay baseline (kith replay only): its blocks are addresses with no memory behind them";
  for (const auto& p : heap::leftOutPolicyList())
    if (p.name == name) return "it is not in this build: " + std::string(p.description);
  std::string names;
  for (const auto* list : {&heap::policyList(), &heap::referenceList()})
    for (const auto& p : *list) {
      if (p.name == name) return std::nullopt;
      names += (names.empty() ? "" : ", ") + std::string(p.name);
    }
  return "no such policy; the policies a program can use are " + names;
}

}  // namespace kith::preload
