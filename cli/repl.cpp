#include "cli/repl.h"

#include <chrono>
#include <cstdio>
#include <memory>
#include <optional>
#include <string>

#include "cli/exit_codes.h"
#include "cli/line_reader.h"
#include "cli/repl_input.h"
#include "cli/run_assembly.h"
#include "cli/run_options.h"
#include "cli/usage_error.h"
#include "stdlib/builtins.h"
#include "vm/compiler.h"
#include "vm/native_stack.h"
#include "vm/vm.h"

namespace kith::cli {

namespace {

// The file name compile errors and stack traces show for what was typed; an import
// in the session resolves against the working directory.
constexpr const char* kInputName = "<repl>";

// run's parser reads options up to a script name; the REPL has none, so it passes
// this one after the options and checks that nothing else was taken for a script.
constexpr std::string_view kNoScript = "<repl>";

constexpr const char* kReplHelp =
    "usage: kith repl [OPTIONS]   (bare kith on a terminal starts it too)\n"
    "An interactive prompt on one heap, collector and VM for the whole session: an\n"
    "expression prints its value, a statement prints nothing, an unclosed block continues\n"
    "on the next line (prompt '... '), and an error leaves the session and its globals\n"
    "as they were. `exit` or Ctrl-D ends it. Not on a terminal, it reads lines from\n"
    "standard input without prompts. OPTIONS are run's (kith --help) that shape the heap,\n"
    "collector and VM: --heap, --heap-size, --gc and the --gc-* options, --max-depth,\n"
    "--check-freed, --fail-alloc; System.heapStats() shows the statistics.\n";

std::optional<int> parseReplOptions(const std::vector<std::string_view>& args, RunOptions& options) {
  for (std::string_view a : args)
    if (a == "--help" || a == "-h") {
      std::fputs(kReplHelp, stdout);
      return kExitOk;
    }
  std::vector<std::string_view> withScript(args);
  withScript.push_back(kNoScript);
  if (auto exit = parseRunOptions(withScript, options, "repl")) return exit;
  if (options.script != kNoScript || !options.args.empty())
    return usageError("'repl' takes options only, no script: kith repl [OPTIONS]");
  if (options.statistics.wanted() || !options.tracePath.empty() || !options.gcPausesFile.empty() ||
      !options.fragFile.empty())
    return usageError(
        "'repl' writes no reports (--stats, --stats-file, --trace, --gc-pauses-file, --frag-file); "
        "System.heapStats() shows the statistics");
  if (options.compileOnly || options.compilerStats || options.compilerHeap != vm::CompilerHeap::zone)
    return usageError("'repl' takes no compiler experiment options (--compiler-heap, --compile-only, "
                      "--compiler-stats): kith run takes them");
  return std::nullopt;
}

// Input that compiled: what to run and whether it leaves a value to show.
struct Compiled {
  vm::FunctionProto* script = nullptr;
  bool showsValue = false;
};

enum class Verdict { run, unfinished, wrong };

// Compiles a whole input: as one expression when it is one, else as statements (with
// the closing ';' a person leaves off on a last line, `let x = 1`, supplied).
Verdict compileInput(vm::VM& vm, const std::string& input, Compiled& out, std::vector<std::string>& errors) {
  vm::CompileResult asTyped = vm::compile(vm, input, kInputName);
  vm::CompileResult statements = asTyped;
  if (!asTyped.script) {
    // On the last line, unless a // comment ends it: then on a line of its own.
    std::string text = input.substr(0, input.find_last_not_of(" \t\r\n") + 1);
    statements = vm::compile(vm, text + ";", kInputName);
    if (!statements.script) statements = vm::compile(vm, text + "\n;", kInputName);
    if (!statements.script) {
      errors = asTyped.reportLines();
      return onlyEndOfInputErrors(asTyped.errors) ? Verdict::unfinished : Verdict::wrong;
    }
  }
  // The statements compile, so the input's brackets balance: the value form compiles
  // exactly when the input is one expression.
  std::string form = valueForm(input);
  if (!form.empty()) {
    vm::CompileResult value = vm::compile(vm, form, kInputName);
    if (value.script) {
      out = {value.script, true};
      return Verdict::run;
    }
  }
  out = {statements.script, false};
  return Verdict::run;
}

// Runs one compiled input; nullopt to go on, or the code System.exit ends the session with.
std::optional<int> runInput(vm::VM& vm, const Compiled& compiled) {
  // The value stays a root (the global) while toString() may allocate, and no
  // longer: the REPL keeps no object alive between inputs.
  struct ClearValue {
    vm::VM& vm;
    ~ClearValue() { vm.defineGlobal(kReplValueGlobal, vm::Value::nil()); }
  };
  try {
    ClearValue clearValue{vm};
    vm.runScript(compiled.script);
    vm::Value value = compiled.showsValue ? vm.global(kReplValueGlobal) : vm::Value::nil();
    if (!value.isNil()) {
      std::string shown = vm.toDisplayString(value);  // may run toString(), and throw
      std::printf("%s\n", shown.c_str());
    }
  } catch (const vm::KithThrow&) {
    reportUncaught(vm);
    vm.clearException();
  } catch (const vm::ImportCompileError& e) {
    std::fflush(stdout);
    reportCompileErrors(e.report);
  } catch (const vm::ExitRequest& exit) {
    return exit.code;
  }
  return std::nullopt;
}

int session(vm::VM& vm, const RunOptions& options, const std::string& collectorName) {
  LineReader reader;
  if (reader.interactive())
    std::printf("kith repl: heap %s (%zu bytes), collector %s; `exit` or Ctrl-D to leave\n",
                options.heapPolicy.c_str(), options.heapSize, collectorName.c_str());
  std::string input;
  while (std::optional<std::string> line = reader.read(input.empty() ? "> " : "... ")) {
    if (input.empty()) {
      if (isExitCommand(*line)) return kExitOk;
      if (line->find_first_not_of(" \t") == std::string::npos) continue;
    }
    input += *line;
    input += '\n';
    Compiled compiled;
    std::vector<std::string> errors;
    switch (compileInput(vm, input, compiled, errors)) {
      case Verdict::unfinished: continue;
      case Verdict::wrong: reportCompileErrors(errors); break;
      case Verdict::run:
        if (std::optional<int> exit = runInput(vm, compiled)) return *exit;
        break;
    }
    input.clear();
  }
  if (reader.interactive()) std::printf("\n");  // the shell's prompt starts on its own line after Ctrl-D
  return kExitOk;
}

}  // namespace

int replCommand(const std::vector<std::string_view>& args) {
  RunOptions options;
  if (auto exit = parseReplOptions(args, options)) return *exit;
  vm::reserveNativeStack();
  // Any input may call System.heapStats(): the session keeps the counts.
  std::unique_ptr<heap::Heap> heap = buildHeap(options, options.statistics.heapMode(/*countsRead=*/true));
  if (!heap) return kExitUsage;
  NoteAtExit ignoredOptionsNote;
  CollectorParts gc = buildCollector(options, *heap, std::chrono::steady_clock::now(), nullptr, ignoredOptionsNote);
  if (!ignoredOptionsNote.text.empty()) {  // said at the start: the session has no end of run to wait for
    std::fprintf(stderr, "%s\n", ignoredOptionsNote.text.c_str());
    ignoredOptionsNote.text.clear();
  }
  std::unique_ptr<vm::VM> vm = buildVm(options, *heap, *gc.collector);
  if (!vm) return kExitSoftware;
  try {
    stdlib::installBuiltins(*vm);
  } catch (const vm::KithThrow&) {
    std::fprintf(stderr, "error: %s\n", vm->exceptionMessage(vm->pendingException()).c_str());
    return kExitSoftware;
  }
  vm->defineGlobal(kReplValueGlobal, vm::Value::nil());
  return session(*vm, options, std::string(gc.collector->name()));
}

}  // namespace kith::cli
