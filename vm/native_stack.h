// reserveNativeStack(): room on the main thread's stack for the C++ recursion Kith
// allows. The interpreter recurses in C++ only where script code re-enters it from
// native code (toString() inside str(), List.forEach ...), at most kMaxNativeDepth
// times (interpreter.cpp), and the compiler as deep as the source nests (at most 1,000
// levels). A sanitizer build's frames are several times larger, so `kith run` and
// the fuzz targets call this first: Linux grows the main thread's stack on demand up
// to the soft limit in force at the fault, so raising the limit now is enough.
#pragma once

#include <algorithm>

#include <sys/resource.h>

namespace kith::vm {

inline void reserveNativeStack() {
  constexpr rlim_t kWanted = rlim_t{256} << 20;
  rlimit limit{};
  if (getrlimit(RLIMIT_STACK, &limit) != 0 || limit.rlim_cur == RLIM_INFINITY || limit.rlim_cur >= kWanted) return;
  limit.rlim_cur = limit.rlim_max == RLIM_INFINITY ? kWanted : std::min(kWanted, limit.rlim_max);
  setrlimit(RLIMIT_STACK, &limit);
}

}  // namespace kith::vm
