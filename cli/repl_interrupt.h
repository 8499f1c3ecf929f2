// Ctrl-C in `kith repl` on a terminal, as in Python's and Lua's prompts: it stops
// the running code (VM::requestInterrupt: the interpreter throws vm::Interrupted at
// its next loop back-edge, return or throw) and the session goes on with every
// global; while a line is being read it drops what was typed (LineReader returns
// `interrupted`). Lua's lua.c does the same with a signal handler that sets a hook.
#pragma once

namespace kith::vm {
class VM;
}

namespace kith::cli {

class ReplInterrupt {
 public:
  // Catches SIGINT for `vm` until destroyed (then the previous action is back).
  // System calls it interrupts are restarted (a script's output is not cut short),
  // except while a Reading lives.
  explicit ReplInterrupt(vm::VM& vm);
  ~ReplInterrupt();
  ReplInterrupt(const ReplInterrupt&) = delete;
  ReplInterrupt& operator=(const ReplInterrupt&) = delete;

  // Whether Ctrl-C came since the last clear().
  static bool pressed();
  // Forgets a Ctrl-C, and withdraws its request from the VM: called when the prompt
  // is shown, so a key pressed after the code ended stops nothing later.
  static void clear();

  // While a line is read: a read waiting for a key is not restarted after Ctrl-C but
  // returns (EINTR), so the reader sees pressed(). Nothing while no ReplInterrupt lives.
  class Reading {
   public:
    Reading();
    ~Reading();
    Reading(const Reading&) = delete;
    Reading& operator=(const Reading&) = delete;
  };
};

}  // namespace kith::cli
