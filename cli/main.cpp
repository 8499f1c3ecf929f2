// The `kith` command (docs/CLI.md; the contract is ../shared/CLI.md): running scripts (`run`,
// `disasm`, cli/run_command.h), the heap side (`policies`, `bench contrived`,
// `bench defrag`), `replay` and `trace dump` (cli/replay.h, cli/trace_command.h),
// `study` (cli/study_command.h), `repl` (cli/repl.h) and `exec` (cli/exec_command.h).
#include <sys/stat.h>
#include <unistd.h>

#include <cstdio>
#include <exception>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "cli/bench_options.h"
#include "cli/contrived_bench.h"
#include "cli/defrag_bench.h"
#include "cli/exec_command.h"
#include "cli/exec_options.h"
#include "cli/exit_codes.h"
#include "cli/option_parser.h"
#include "cli/output_file.h"
#include "cli/repl.h"
#include "cli/replay.h"
#include "cli/replay_options.h"
#include "cli/run_command.h"
#include "cli/run_options.h"
#include "cli/static_tls.h"
#include "cli/study_command.h"
#include "cli/suggestion.h"
#include "cli/trace_command.h"
#include "cli/usage_error.h"
#include "cli/version.h"
#include "heap/adapters/shared_library.h"
#include "heap/heap.h"

namespace {

using kith::cli::asksForHelp;
using kith::cli::kExitOk;
using kith::cli::OperandPlacement;
using kith::cli::OptionSpec;
using kith::cli::readCommandLine;
using kith::cli::kExitSoftware;
using kith::cli::kExitUsage;
using kith::cli::usageError;

// `kith --help` is these sections with run's and replay's options (cli/run_options.h,
// cli/replay_options.h) second and third;
// `kith COMMAND --help` is the command's entry of the first, with its options and
// the last for run, replay and exec.
constexpr const char* kCommandsHelp =
    "usage: kith <command> [options]\n"
    "\n"
    "commands in this build:\n"
    "  kith [OPTIONS] FILE [ARGS...]\n"
    "                                same as kith run [OPTIONS] FILE [ARGS...]\n"
    "  kith run [OPTIONS] FILE [ARGS...]\n"
    "                                compile and run a script (FILE - reads standard\n"
    "                                input); ARGS become System.args\n"
    "  kith disasm [--compiler-heap=H] FILE.kith\n"
    "                                print the script's bytecode with source lines\n"
    "  kith repl [OPTIONS]           an interactive prompt (also bare kith on a terminal) on\n"
    "                                one VM with run's heap and collector options; an\n"
    "                                expression prints its value; exit or Ctrl-D ends it\n"
    "  kith replay [OPTIONS] TRACE   replay a trace recorded with run --trace or exec\n"
    "                                --trace (either encoding; - reads standard input)\n"
    "                                on a policy, without the VM (options of replay,\n"
    "                                below)\n"
    "  kith trace dump TRACE         print a trace (binary or text) as text on stdout\n"
    "  kith trace lifetimes [--json] TRACE\n"
    "                                the age at death of every freed object, in bytes\n"
    "                                allocated since its birth, as a histogram (8 buckets\n"
    "                                per power of two), and the objects live at the end\n"
    "  kith exec [OPTIONS] -- COMMAND [ARGS...]\n"
    "                                run any program with a policy as its malloc, and\n"
    "                                every process it starts (options of exec, below)\n"
    "  kith policies                 list the heap policies, then the collectors, one line each\n"
    "  kith bench contrived [--json] [--heap-size=SIZE] [--repetitions=N] [--fill=F]\n"
    "                                the paper's Figure 8 worst-case request experiment\n"
    "                                on list, knuth, estranged and tlsf (default heap 64M):\n"
    "                                32 B objects take F of the heap (default 0.6, so the\n"
    "                                list's 48 B blocks fill 90% of it, as the paper fills\n"
    "                                most of the heap), every other one is freed, then one\n"
    "                                1 KiB request is timed; N fresh heaps (default 21):\n"
    "                                median, mean, 95% interval, samples and the steps the\n"
    "                                policy counted for the request\n"
    "  kith bench defrag [--json] [--policy=knuth|estranged] [--seeds=N]\n"
    "                                blocks and bytes one defragmenting request moves, for\n"
    "                                k = 4 ... 12, against the least live bytes of an aligned\n"
    "                                region (default estranged, 5 seeds)\n"
    "  kith study [--workloads=a,b|all] [--policies=...] [--collectors=...] [--repeat=N]\n"
    "             [--jobs=N] [--out=DIR] [--quick] [--resume] [--plan] [--merge DIR...]\n"
    "                                the workload suite across policies x collectors: raw\n"
    "                                results, summary, figures and report.md in DIR\n"
    "                                (kith study --help for every option)\n"
    "  kith study --native [--quick] [--programs=...] [--policies=...] [--out=DIR]\n"
    "                                real programs (cfrac, espresso, perl, python, sqlite,\n"
    "                                lua, gcc) on every policy through kith exec: Figure 6,\n"
    "                                exact costs (kith study --native --help)\n"
    "  kith --help | --version       kith COMMAND --help: that command's options;\n"
    "                                --version names the commit it was built from\n"
    "\n";

constexpr const char* kConventionsHelp =
    "Every option that takes a value takes it as --opt=value or --opt value (--stats\n"
    "and --gc-stress take theirs only after '='); -- ends the options.\n"
    "Every PATH an option names is checked before the run starts; - is standard output.\n"
    "A PATH that is an input or another option's is refused; a file is replaced only\n"
    "when its output is complete, so a refused or failed check leaves it as it was.\n"
    "SIZE is bytes or a number with K, M, G or T (binary units), e.g. 512K, 16M, 1G.\n"
    "Exit codes: 0 ok, 64 usage, 65 compile error, 66 unreadable script,\n"
    "70 uncaught runtime error or out of memory (or System.exit's code), 73 an\n"
    "output (a PATH above, standard output) cannot be created or written. replay and\n"
    "trace dump: 65 malformed trace (the message names its line N or byte offset N),\n"
    "66 missing or unreadable trace; replay --stop-on-failure: 70 when it stopped.\n";

// A short usage for bare `kith`: the full help is long, and a mistyped command line
// should show what to type next.
constexpr const char* kShortUsage =
    "usage: kith [OPTIONS] FILE [ARGS...]   run a script (FILE - reads standard input)\n"
    "       kith COMMAND [OPTIONS] ...      run, repl, disasm, replay, trace, study, exec, policies, bench\n"
    "       kith --help                     every command and option; kith COMMAND --help: one\n";

constexpr std::string_view kCommands[] = {"run", "repl", "disasm", "replay", "trace", "study", "exec", "policies", "bench", "help"};

int printHelp(const std::string& text) {
  std::fputs(text.c_str(), stdout);
  return kExitOk;
}

// The entries of kCommandsHelp for `kith COMMAND`: each "  kith COMMAND" line and
// the indented lines that continue it.
std::string commandEntries(std::string_view command) {
  std::string_view text = kCommandsHelp;
  std::string entries;
  bool inEntry = false;
  const std::string head = "  kith " + std::string(command);
  for (std::size_t start = 0; start < text.size();) {
    std::size_t end = text.find('\n', start) + 1;
    std::string_view line = text.substr(start, end - start);
    if (line.starts_with("  kith ")) {
      inEntry = line.starts_with(head) && (line.size() == head.size() || line[head.size()] == ' ' ||
                                           line[head.size()] == '\n');
    } else if (!line.starts_with("   ")) {
      inEntry = false;
    }
    if (inEntry) entries += line;
    start = end;
  }
  return entries;
}

std::string commandHelp(std::string_view command) {
  std::string help = "usage:\n" + commandEntries(command);
  if (command == "run") help += "\n" + kith::cli::runOptionsHelp() + kConventionsHelp;
  if (command == "replay") help += "\n" + kith::cli::replayOptionsHelp() + kConventionsHelp;
  if (command == "exec") help += "\n" + kith::cli::execOptionsHelp() + kConventionsHelp;
  return help;
}

// Bare `kith`, with no arguments at all: the one place that decides what it does.
// CLI.md has it start the REPL on a terminal; until then, the short usage.
int startWithoutArguments() {
  // Bare `kith` on a terminal is a person wanting a prompt, as with python and lua.
  if (isatty(STDIN_FILENO) == 1) return kith::cli::replCommand({});
  std::fputs(kShortUsage, stderr);
  return kExitUsage;
}

// The heap policies `kith run` takes first (tests/cli reads those lines), then the
// collectors. The replay baseline `nothing` is not one: `kith replay --help` names it.
// Notes on stderr: the policies this build left out, and the hand-written references.
int listPolicies() {
  for (const auto* list : {&kith::heap::policyList(), &kith::heap::baselineList()})
    for (const auto& p : *list)
      std::printf("%-10s %.*s\n", std::string(p.name).c_str(), static_cast<int>(p.description.size()),
                  p.description.data());
  std::printf("%-10s %s\n", "occasional", "collector: stop-the-world mark-sweep when occupancy passes --gc-threshold (default)");
  std::printf("%-10s %s\n", "continuous", "collector: incremental tri-colour mark-sweep, snapshot-at-the-beginning barrier");
  std::printf("%-10s %s\n", "none", "collector: frees nothing");
  // The notes go to stderr, after everything on stdout has gone out, so stdout
  // stays one policy a line and a terminal (or 2>&1) shows the notes last.
  std::fflush(stdout);
  for (const auto& p : kith::heap::leftOutPolicyList())
    std::fprintf(stderr, "kith: note: %.*s is not in this build: %.*s\n", static_cast<int>(p.name.size()),
                 p.name.data(), static_cast<int>(p.description.size()), p.description.data());
  // --heap takes the references, but they are not studied policies: noted here, the
  // loops over the lines above (the script suite, the study) leave them out.
  for (const auto& p : kith::heap::referenceList())
    std::fprintf(stderr, "kith: note: %.*s is a reference, not a studied policy: %.*s\n",
                 static_cast<int>(p.name.size()), p.name.data(), static_cast<int>(p.description.size()),
                 p.description.data());
  return kExitOk;
}

int benchContrived(const std::vector<std::string_view>& args) {
  kith::cli::ContrivedBenchOptions o;
  if (auto exit = kith::cli::parseContrivedBenchOptions(args, o)) return *exit;
  try {
    auto result = kith::cli::runContrived(o.heapBytes, o.repetitions, o.fill);
    std::fputs(o.json ? kith::cli::contrivedJson(result).c_str() : kith::cli::contrivedTable(result).c_str(),
               stdout);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "kith: bench contrived: %s\n", e.what());
    return kExitSoftware;
  }
  return kExitOk;
}

int benchDefrag(const std::vector<std::string_view>& args) {
  kith::cli::DefragBenchOptions o;
  if (auto exit = kith::cli::parseDefragBenchOptions(args, o)) return *exit;
  try {
    auto result = kith::cli::runDefragBench(o.policy, o.seeds);
    std::fputs(o.json ? kith::cli::defragJson(result).c_str() : kith::cli::defragTable(result).c_str(), stdout);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "kith: bench defrag: %s\n", e.what());
    return kExitSoftware;
  }
  return kExitOk;
}

// `kith --versio`: a first word near --version (nearer than to any option of the run
// it would imply) is a misspelled --version, not an unknown option of run. The
// parser suggests --help wherever a command reads its options.
std::optional<int> misspelledVersion(std::string_view word) {
  if (!word.starts_with("--") || word.find('=') != std::string_view::npos) return std::nullopt;
  std::vector<std::string_view> names = {"--version", "--help"};
  for (const OptionSpec& spec : kith::cli::runOptionSpecs()) names.push_back(spec.name);
  if (kith::cli::nearestName(word, names) != "--version") return std::nullopt;
  return usageError("unknown option '" + std::string(word) + "'", "did you mean '--version'?");
}

// `kith WORD ...` where WORD names no command: a script to run (an option of run,
// `-`, a .kith name or any existing path), else a misspelled command.
int runImplied(const std::vector<std::string_view>& args) {
  std::string_view word = args[0];
  if (auto exit = misspelledVersion(word)) return *exit;
  struct stat status;
  if (word.starts_with("-") || word.ends_with(".kith") || ::stat(std::string(word).c_str(), &status) == 0) {
    if (asksForHelp(kith::cli::runOptionSpecs(), args, OperandPlacement::endsOptions))
      return printHelp(commandHelp("run"));
    return kith::cli::runCommand(args);
  }
  return usageError("unknown command '" + std::string(word) + "'",
                    kith::cli::didYouMean(word, {std::begin(kCommands), std::end(kCommands)}));
}

// A command that takes no options: its help, or its operands.
std::optional<int> readOperandsOnly(std::string_view command, const std::vector<std::string_view>& args,
                                    kith::cli::CommandLine& line) {
  if (auto exit = readCommandLine(command, {}, args, OperandPlacement::anywhere, line)) return exit;
  if (line.help) return printHelp(commandHelp(command));
  return std::nullopt;
}

int dispatch(const std::vector<std::string_view>& args) {
  if (args.empty()) return startWithoutArguments();
  std::string_view command = args[0];
  const std::vector<std::string_view> rest(args.begin() + 1, args.end());
  if (command == "--help" || command == "-h" || command == "help") {
    std::printf("%s%s%s%s%s", kCommandsHelp, kith::cli::runOptionsHelp().c_str(),
                kith::cli::replayOptionsHelp().c_str(), kith::cli::execOptionsHelp().c_str(), kConventionsHelp);
    return kExitOk;
  }
  if (command == "--version") {
    std::puts(kith::cli::versionLine().c_str());
    return kExitOk;
  }
  kith::cli::CommandLine line;
  if (command == "policies") {
    if (auto exit = readOperandsOnly(command, rest, line)) return *exit;
    return line.operands.empty() ? listPolicies() : usageError("'policies' takes no arguments");
  }
  if (command == "bench") {
    if (rest.empty()) return usageError("'bench' needs an experiment name: contrived, defrag");
    if (rest[0] == "--help" || rest[0] == "-h") return printHelp(commandHelp("bench"));
    std::string_view experiment = rest[0];
    const std::vector<std::string_view> options(rest.begin() + 1, rest.end());
    if (experiment != "contrived" && experiment != "defrag")
      return usageError("unknown benchmark '" + std::string(experiment) + "'; known: contrived, defrag",
                        kith::cli::didYouMean(experiment, {"contrived", "defrag"}));
    const auto& specs =
        experiment == "defrag" ? kith::cli::defragBenchOptionSpecs() : kith::cli::contrivedBenchOptionSpecs();
    if (asksForHelp(specs, options, OperandPlacement::anywhere))
      return printHelp(commandHelp("bench " + std::string(experiment)));
    return experiment == "defrag" ? benchDefrag(options) : benchContrived(options);
  }
  if (command == "run") {
    if (asksForHelp(kith::cli::runOptionSpecs(), rest, OperandPlacement::endsOptions))
      return printHelp(commandHelp("run"));
    return kith::cli::runCommand(rest);
  }
  if (command == "disasm") {
    if (auto exit = readCommandLine(command, kith::cli::disasmOptionSpecs(), rest, OperandPlacement::anywhere, line))
      return *exit;
    if (line.help) return printHelp(commandHelp(command));
    // The value first: `--compiler-heap FILE` took the script as its value.
    kith::cli::RunOptions options;
    if (auto exit = kith::cli::readOptions(kith::cli::disasmOptionTable(), line.options, options)) return *exit;
    if (line.operands.size() != 1) return usageError("'disasm' takes one script: kith disasm FILE");
    return kith::cli::disassembleScript(std::string(line.operands[0]), options.compilerHeap);
  }
  if (command == "study") return kith::cli::runStudyCommand(rest);  // its driver reads its options
  if (command == "repl") return kith::cli::replCommand(rest);  // its own --help and options
  if (command == "replay") {
    if (asksForHelp(kith::cli::replayOptionSpecs(), rest, OperandPlacement::anywhere))
      return printHelp(commandHelp("replay"));
    return kith::cli::replayCommand(rest);
  }
  if (command == "exec") {
    if (asksForHelp(kith::cli::execOptionSpecs(), rest, OperandPlacement::endsOptions))
      return printHelp(commandHelp("exec"));
    return kith::cli::execCommand(rest);
  }
  if (command == "trace") {
    if (asksForHelp(kith::cli::traceOptionSpecs(), rest, OperandPlacement::anywhere))
      return printHelp(commandHelp("trace"));
    return kith::cli::traceCommand(rest);
  }
  return runImplied(args);
}

}  // namespace

int main(int argc, char** argv) {
  kith::cli::reexecWithStaticTlsForJemalloc(argc, argv);
  int exitCode;
  try {
    exitCode = dispatch({argv + 1, argv + argc});
  } catch (const kith::heap::LibraryUnavailable& e) {  // the chosen policy's library
    std::fprintf(stderr, "kith: %s\n", e.what());
    exitCode = kith::cli::kExitUnavailable;
  }
  // Every command's standard output must have arrived (CLI.md: exit 73 when not).
  return kith::cli::exitCodeAfterStandardOutput(exitCode);
}
