#include "cli/repl_interrupt.h"

#include <signal.h>

#include <atomic>

#include "vm/vm.h"

namespace kith::cli {

namespace {

volatile sig_atomic_t interruptPressed = 0;
std::atomic<vm::VM*> interruptTarget{nullptr};
static_assert(std::atomic<vm::VM*>::is_always_lock_free, "read in a signal handler");
struct sigaction previousAction;

// Only what a signal handler may do: store to a sig_atomic_t, and atomic stores.
void onInterrupt(int) {
  interruptPressed = 1;
  if (vm::VM* vm = interruptTarget.load(std::memory_order_relaxed)) vm->requestInterrupt();
}

// Our handler, restarting interrupted system calls or not.
void catchInterrupts(bool restart, struct sigaction* previous) {
  struct sigaction action = {};
  action.sa_handler = onInterrupt;
  sigemptyset(&action.sa_mask);
  action.sa_flags = restart ? SA_RESTART : 0;
  sigaction(SIGINT, &action, previous);
}

}  // namespace

ReplInterrupt::ReplInterrupt(vm::VM& vm) {
  interruptTarget.store(&vm);
  catchInterrupts(/*restart=*/true, &previousAction);
}

ReplInterrupt::~ReplInterrupt() {
  sigaction(SIGINT, &previousAction, nullptr);
  interruptTarget.store(nullptr);
}

bool ReplInterrupt::pressed() { return interruptPressed != 0; }

ReplInterrupt::Reading::Reading() {
  if (interruptTarget.load()) catchInterrupts(/*restart=*/false, nullptr);
}

ReplInterrupt::Reading::~Reading() {
  if (interruptTarget.load()) catchInterrupts(/*restart=*/true, nullptr);
}

void ReplInterrupt::clear() {
  interruptPressed = 0;
  if (vm::VM* vm = interruptTarget.load()) vm->clearInterrupt();
}

}  // namespace kith::cli
