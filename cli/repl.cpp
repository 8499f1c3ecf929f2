#include "cli/repl.h"

#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <memory>
#include <new>
#include <optional>
#include <string>

#include "cli/exit_codes.h"
#include "cli/line_reader.h"
#include "cli/repl_input.h"
#include "cli/repl_interrupt.h"
#include "cli/run_assembly.h"
#include "cli/run_options.h"
#include "cli/script_source.h"
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
// kNoScriptStandIn (run_options.h) after the options and checks that nothing else was
// taken for a script.

constexpr const char* kReplHelp =
    "usage: kith repl [OPTIONS]   (bare kith on a terminal starts it too)\n"
    "An interactive prompt on one heap, collector and VM for the whole session: an\n"
    "expression prints its value, a statement prints nothing, an unclosed block or\n"
    "comment continues on the next line (prompt '... '), and an error (a failed import\n"
    "too) leaves the session and its globals as they were. Ctrl-C stops running code\n"
    "(\"interrupted\", and where) or drops the unfinished input; `exit` or Ctrl-D ends\n"
    "the session. Not on a terminal, it reads lines from standard input without prompts\n"
    "(a line or input over 256 MiB, or a failed read: exit 66); input left unfinished at\n"
    "the end is a compile error, and the exit status is that of the last input that\n"
    "failed, as run would exit (65 compile error, 70 runtime error), else 0.\n"
    "OPTIONS are run's (kith --help) that shape the heap, collector and VM: --heap,\n"
    "--heap-size, --gc and the --gc-* options that shape the collector (repl writes\n"
    "no reports, so no pauses file), --max-depth, --check-freed, --fail-alloc;\n"
    "System.heapStats() shows the statistics.\n";

std::optional<int> parseReplOptions(const std::vector<std::string_view>& args, RunOptions& options) {
  for (std::string_view a : args)
    if (a == "--help" || a == "-h") {
      std::fputs(kReplHelp, stdout);
      return kExitOk;
    }
  std::vector<std::string_view> withScript(args);
  withScript.push_back(kNoScriptStandIn);
  if (auto exit = parseRunOptions(withScript, options, "repl")) return exit;
  if (options.script != kNoScriptStandIn || !options.args.empty())
    return usageError("'repl' takes options only, no script: kith repl [OPTIONS]");
  if (options.statistics.wanted() || !options.tracePath.empty() || !options.gcPausesFile.empty() ||
      !options.fragFile.empty() || options.hostProbeMs > 0)
    return usageError(
        "'repl' writes no reports (--stats, --stats-file, --trace, --gc-pauses-file, --frag-file, "
        "--host-probe-ms); System.heapStats() shows the statistics");
  if (options.compileOnly || options.compilerStats || options.compilerHeap != vm::CompilerHeap::zone)
    return usageError("'repl' takes no compiler experiment options (--compiler-heap, --compile-only, "
                      "--compiler-stats): kith run takes them");
  return std::nullopt;
}

// Input that compiled: what to run, whether it leaves a value to show, and the
// count of constant roots before its compile (VM::dropTopLevelConstantRoots).
struct Compiled {
  vm::FunctionProto* script = nullptr;
  bool showsValue = false;
  std::size_t constantRoots = 0;
};

enum class Verdict { run, unfinished, wrong };

// One compile. Its constants stay roots only when it compiled: code that never runs
// keeps nothing alive on the session's heap.
vm::CompileResult compileOnce(vm::VM& vm, const std::string& text) {
  std::size_t roots = vm.constantRootCount();
  vm::CompileResult result = vm::compile(vm, text, kInputName);
  if (!result.script) vm.dropConstantRoots(roots);
  return result;
}

// Compiles a whole input: as one expression when it is one, else as statements (with
// the closing ';' a person leaves off on a last line, `let x = 1`, supplied).
// `balanced`: InputScanner::balanced(), which the value form needs.
Verdict compileInput(vm::VM& vm, const std::string& input, bool balanced, Compiled& out,
                     std::vector<std::string>& errors) {
  out.constantRoots = vm.constantRootCount();
  std::string form = balanced ? valueForm(input) : "";
  if (!form.empty()) {
    vm::CompileResult value = compileOnce(vm, form);
    if (value.script) {
      out.script = value.script;
      out.showsValue = true;
      return Verdict::run;
    }
  }
  vm::CompileResult asTyped = compileOnce(vm, input);
  vm::FunctionProto* statements = asTyped.script;
  if (!statements) {
    // On the last line, unless a // comment ends it: then on a line of its own.
    std::string text = input.substr(0, input.find_last_not_of(" \t\r\n") + 1);
    statements = compileOnce(vm, text + ";").script;
    if (!statements) statements = compileOnce(vm, text + "\n;").script;
  }
  if (!statements) {
    errors = asTyped.reportLines();
    return onlyEndOfInputErrors(asTyped.errors) ? Verdict::unfinished : Verdict::wrong;
  }
  out.script = statements;
  out.showsValue = false;
  return Verdict::run;
}

// How one input ended: `exitCode` when System.exit ends the session, `failure` the
// code `kith run` would exit with for it (0 when it did not fail).
struct Ran {
  std::optional<int> exitCode;
  int failure = kExitOk;
};

void reportInterrupted(vm::VM& vm) {
  std::fflush(stdout);
  std::fputs("interrupted\n", stderr);
  for (const std::string& line : vm.exceptionTrace()) std::fprintf(stderr, "%s\n", line.c_str());
  vm.clearException();
}

// Runs one compiled input and shows its value, every byte of it.
Ran runInput(vm::VM& vm, const Compiled& compiled) {
  // The value stays a root (the global) while toString() may allocate, and no
  // longer: the REPL keeps no object alive between inputs.
  struct ClearValue {
    vm::VM& vm;
    ~ClearValue() { vm.defineGlobal(kReplValueGlobal, vm::Value::nil()); }
  };
  // The input's top-level code never runs again: its constants need no roots.
  struct DropConstants {
    vm::VM& vm;
    const Compiled& compiled;
    ~DropConstants() { vm.dropTopLevelConstantRoots(*compiled.script, compiled.constantRoots); }
  };
  Ran ran;
  try {
    DropConstants dropConstants{vm, compiled};
    ClearValue clearValue{vm};
    vm.runScript(compiled.script, vm::VM::ScriptClosure::none);
    vm::Value value = compiled.showsValue ? vm.global(kReplValueGlobal) : vm::Value::nil();
    if (!value.isNil()) {
      std::string shown = vm.toDisplayString(value);  // may run toString(), and throw
      shown += '\n';
      std::fwrite(shown.data(), 1, shown.size(), stdout);
    }
  } catch (const vm::KithThrow&) {
    reportUncaught(vm);
    vm.clearException();
    ran.failure = kExitSoftware;
  } catch (const vm::ImportCompileError& e) {
    std::fflush(stdout);
    reportCompileErrors(e.report);
    ran.failure = kExitDataError;
  } catch (const vm::Interrupted&) {
    reportInterrupted(vm);
  } catch (const vm::ExitRequest& exit) {
    ran.exitCode = exit.code;
  }
  return ran;
}

// One input, once the scanner says it may be complete or the input has ended
// (`atEnd`: then what is unfinished is a compile error). nullopt: wait for more lines.
std::optional<Ran> takeInput(vm::VM& vm, const std::string& input, const InputScanner& scanner, bool atEnd) {
  Compiled compiled;
  std::vector<std::string> errors;
  switch (compileInput(vm, input, scanner.balanced(), compiled, errors)) {
    case Verdict::unfinished:
      if (!atEnd) return std::nullopt;
      [[fallthrough]];
    case Verdict::wrong:
      std::fflush(stdout);
      reportCompileErrors(errors);
      return Ran{std::nullopt, kExitDataError};
    case Verdict::run: break;
  }
  return runInput(vm, compiled);
}

// Adds a line to the input, held to kMaxLineBytes as a line is; why not, if it cannot.
std::optional<std::string> append(std::string& input, const std::string& line) {
  if (input.size() + line.size() + 1 > kMaxLineBytes)
    return "an input over " + std::to_string(kMaxLineBytes >> 20) + " MiB";
  try {
    input += line;
    input += '\n';
  } catch (const std::bad_alloc&) {
    return std::strerror(ENOMEM);
  }
  return std::nullopt;
}

// The session's exit status when its input ends: 0 on a terminal; reading standard
// input, the code of the last input that failed, as `kith run` exits (65 for a
// compile error, 70 for a runtime error), or 0 when none did.
int session(vm::VM& vm, const RunOptions& options, const std::string& collectorName) {
  LineReader reader;
  std::optional<ReplInterrupt> interrupt;
  if (reader.interactive()) {
    interrupt.emplace(vm);
    std::printf("kith repl: heap %s (%zu bytes), collector %s; `exit` or Ctrl-D to leave\n",
                options.heapPolicy.c_str(), options.heapSize, collectorName.c_str());
  }
  int failure = kExitOk;
  auto leave = [&] { return reader.interactive() ? kExitOk : failure; };
  std::string input;
  InputScanner scanner;
  for (;;) {
    ReplInterrupt::clear();  // a Ctrl-C after the last input ended stops nothing now
    LineReader::Line line = reader.read(input.empty() ? "> " : "... ");
    if (line.kind == LineReader::Line::Kind::interrupted) {  // the unfinished input goes
      input.clear();
      scanner.reset();
      std::printf("\n");
      continue;
    }
    if (line.kind == LineReader::Line::Kind::failed) {
      std::fflush(stdout);
      std::fprintf(stderr, "kith: cannot read '%s': %s\n", kStandardInputName, line.text.c_str());
      return kExitNoInput;
    }
    if (line.kind == LineReader::Line::Kind::end) {
      if (reader.interactive()) std::printf("\n");  // the report, and the shell's prompt, start on a line of their own
      if (!input.empty()) {
        Ran ran = *takeInput(vm, input, scanner, /*atEnd=*/true);
        if (ran.exitCode) return *ran.exitCode;
        if (ran.failure) failure = ran.failure;
      }
      return leave();
    }
    if (input.empty()) {
      if (isExitCommand(line.text)) return leave();
      if (line.text.find_first_not_of(" \t") == std::string::npos) continue;
    }
    if (std::optional<std::string> why = append(input, line.text)) {
      std::fflush(stdout);
      std::fprintf(stderr, "kith: cannot read '%s': %s\n", kStandardInputName, why->c_str());
      return kExitNoInput;
    }
    scanner.addLine(line.text);
    if (!scanner.mayBeComplete()) continue;
    std::optional<Ran> ran = takeInput(vm, input, scanner, /*atEnd=*/false);
    if (!ran) continue;
    if (ran->exitCode) return *ran->exitCode;
    if (ran->failure) failure = ran->failure;
    input.clear();
    scanner.reset();
  }
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
