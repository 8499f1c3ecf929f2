// The latency of one step of a float chain that goes through a slot in memory, as an
// interpreter's float arithmetic does (load both operands, test their type, multiply,
// store the result where the next step loads it), in three value representations:
//   offset   Kith's (vm/value.h): a double's bits + 2^49, decoded and encoded in the
//            general registers, crossing to SSE and back with movq
//   sse      the same encoding decoded and encoded in the SSE registers (psubq/paddq)
//   raw      raw doubles (NaN-boxing, LuaJIT's): the type test reads the slot's high
//            word, the multiply reads the slot, the result is stored as it is
// and a step that never leaves the registers (the multiply alone), which is what a
// float chain of the interpreter pays when it takes an operand from a register
// (vm/interpreter.cpp, "Float chains"). Cycles are counted against a chain of dependent
// adds (one a cycle) timed the same way: on the thread's CPU clock, so a host stall or
// a preemption is not counted. Prints one line per representation.
//   build/release/bench/float_step_latency [STEPS]   (default 100,000,000)
#include <charconv>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <system_error>
#include <utility>

namespace {

double threadSeconds() {
  timespec t{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
  return static_cast<double>(t.tv_sec) + static_cast<double>(t.tv_nsec) * 1e-9;
}

constexpr std::uint64_t kOffset = std::uint64_t{1} << 49;
alignas(64) std::uint64_t slots[8];
alignas(16) const std::uint64_t kOffsetVector[2] = {kOffset, 0};

template <typename Step>
double nsPerStep(long steps, Step step) {
  double start = threadSeconds();
  for (long i = 0; i < steps; ++i) step();
  return (threadSeconds() - start) / static_cast<double>(steps) * 1e9;
}

void setSlots(double d, std::uint64_t add) {
  std::uint64_t bits;
  std::memcpy(&bits, &d, sizeof bits);
  slots[0] = slots[1] = bits + add;
}

}  // namespace

int main(int argc, char** argv) {
  long steps = 100'000'000L;
  if (argc > 2) {
    std::fprintf(stderr, "float_step_latency: one argument at most, STEPS\n");
    return 64;
  }
  if (argc == 2) {
    const char* text = argv[1];
    const char* end = text + std::strlen(text);
    const auto [rest, error] = std::from_chars(text, end, steps);
    if (error != std::errc{} || rest != end || steps <= 0) {
      std::fprintf(stderr, "float_step_latency: STEPS wants a whole number from 1, not '%s'\n", text);
      return 64;
    }
  }
  std::uint64_t adds = 0;
  const double nsPerCycle = nsPerStep(steps / 8, [&adds] {
    asm volatile("add $1, %0\n\tadd $1, %0\n\tadd $1, %0\n\tadd $1, %0\n\t"
                 "add $1, %0\n\tadd $1, %0\n\tadd $1, %0\n\tadd $1, %0" : "+r"(adds));
  }) / 8;
  const double factor = 1.0000001;
  setSlots(factor, kOffset);
  const double offset = nsPerStep(steps, [] {
    asm volatile(
        "mov (%0), %%rax\n\t" "cmp %1, %%rax\n\t" "jb 1f\n\t"
        "sub %1, %%rax\n\t" "movq %%rax, %%xmm0\n\t"
        "mov 8(%0), %%rcx\n\t" "sub %1, %%rcx\n\t" "movq %%rcx, %%xmm1\n\t"
        "mulsd %%xmm1, %%xmm0\n\t"
        "movq %%xmm0, %%rax\n\t" "add %1, %%rax\n\t" "mov %%rax, (%0)\n\t"
        "1:" ::"r"(slots), "r"(kOffset) : "rax", "rcx", "xmm0", "xmm1", "memory", "cc");
  });
  setSlots(factor, kOffset);
  const double sse = nsPerStep(steps, [] {
    asm volatile(
        "mov (%0), %%rax\n\t" "cmp %1, %%rax\n\t" "jb 1f\n\t"
        "movq (%0), %%xmm0\n\t" "psubq (%2), %%xmm0\n\t"
        "movq 8(%0), %%xmm1\n\t" "psubq (%2), %%xmm1\n\t"
        "mulsd %%xmm1, %%xmm0\n\t" "paddq (%2), %%xmm0\n\t" "movq %%xmm0, (%0)\n\t"
        "1:" ::"r"(slots), "r"(kOffset), "r"(kOffsetVector) : "rax", "xmm0", "xmm1", "memory", "cc");
  });
  setSlots(factor, 0);
  const double raw = nsPerStep(steps, [] {
    asm volatile(
        "cmpl $0xfff80000, 4(%0)\n\t" "jae 1f\n\t"
        "movsd (%0), %%xmm0\n\t" "mulsd 8(%0), %%xmm0\n\t" "movsd %%xmm0, (%0)\n\t"
        "1:" ::"r"(slots) : "xmm0", "memory", "cc");
  });
  double x = factor;
  const double registers = nsPerStep(steps, [&x, factor] { asm volatile("mulsd %1, %0" : "+x"(x) : "x"(factor)); });
  std::printf("core: %.2f GHz (a chain of dependent adds)\n", 1 / nsPerCycle);
  for (auto [name, ns] : {std::pair{"offset (Kith's slots)", offset}, std::pair{"sse (offset decoded in SSE)", sse},
                          std::pair{"raw (raw doubles)", raw}, std::pair{"registers (a float chain)", registers}})
    std::printf("%-28s %6.3f ns  %5.1f cycles a step\n", name, ns, ns / nsPerCycle);
  return 0;
}
