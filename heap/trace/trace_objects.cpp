// TraceObjects' slow paths: ids found in an older run, and the errors. accept()
// stays inline in trace_objects.h, once per event.
#include "heap/trace/trace_objects.h"

#include <algorithm>
#include <string>

namespace kith::heap {

const TraceObjects::Run* TraceObjects::olderRunHolding(std::uint64_t id) const {
  auto run = std::upper_bound(runs_.begin(), runs_.end(), id,
                              [](std::uint64_t v, const Run& r) { return v < r.firstId; });
  return run == runs_.begin() ? nullptr : &*(run - 1);
}

bool TraceObjects::timeError(const TraceEvent& e, std::string& error) const {
  error = "time " + std::to_string(e.time) + " is not after the previous event's time " +
          std::to_string(lastTime_);
  return false;
}

bool TraceObjects::idError(const TraceEvent& e, std::string& error) const {
  error = "object id " + std::to_string(e.id) + " is not above the previous alloc's id " +
          std::to_string(lastId_);
  return false;
}

bool TraceObjects::freeError(const TraceEvent& e, std::string& error) const {
  std::uint64_t i;
  error = std::string(e.kind == TraceEventKind::free ? "free" : "resize") + " of object " + std::to_string(e.id) +
          (!find(e.id, i)                    ? ", which was never allocated"
           : e.kind == TraceEventKind::free ? ", which is not live (freed twice?)"
                                            : ", which is not live (freed before)");
  return false;
}

}  // namespace kith::heap
