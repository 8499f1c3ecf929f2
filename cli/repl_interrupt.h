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
  // Catches SIGINT for `vm` until destroyed (then the previous action is back). The
  // handler does not ask the system to restart an interrupted read, so a read
  // waiting for a key returns and the reader can see pressed().
  explicit ReplInterrupt(vm::VM& vm);
  ~ReplInterrupt();
  ReplInterrupt(const ReplInterrupt&) = delete;
  ReplInterrupt& operator=(const ReplInterrupt&) = delete;

  // Whether Ctrl-C came since the last clear().
  static bool pressed();
  // Forgets a Ctrl-C, and withdraws its request from the VM: called when the prompt
  // is shown, so a key pressed after the code ended stops nothing later.
  static void clear();
};

}  // namespace kith::cli
