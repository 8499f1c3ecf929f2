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

#include "cli/byte_size.h"
#include "cli/contrived_bench.h"
#include "cli/defrag_bench.h"
#include "cli/exec_command.h"
#include "cli/exit_codes.h"
#include "cli/option_parser.h"
#include "cli/option_value.h"
#include "cli/output_file.h"
#include "cli/repl.h"
#include "cli/replay.h"
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
#include "heap/layers/fixed_arena.h"

namespace {

using kith::cli::asksForHelp;
using kith::cli::kExitOk;
using kith::cli::OperandPlacement;
using kith::cli::OptionArgument;
using kith::cli::OptionSpec;
using kith::cli::readCommandLine;
using kith::cli::kExitSoftware;
using kith::cli::kExitUsage;
using kith::cli::usageError;

// `kith --help` is these four sections; `kith COMMAND --help` is the command's
// entry of the first, with its options and the last for run and replay.
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

constexpr const char* kRunOptionsHelp =
    "options of run:\n"
    "  --heap=POLICY       heap policy (default estranged); see kith policies\n"
    "  --heap-size=SIZE    the fixed heap (default 64M, at least 16K)\n"
    "  --gc=COLLECTOR      occasional (default): stop-the-world mark-sweep;\n"
    "                      continuous: incremental mark-sweep in bounded slices;\n"
    "                      none: nothing is freed. With every collector a request the\n"
    "                      heap cannot meet runs a full collection, then (knuth,\n"
    "                      estranged) defragmentation, then raises the catchable\n"
    "                      error \"out of memory\"\n"
    "  --gc-threshold=F    heap occupancy, a fraction in (0, 1], at which occasional\n"
    "                      collects (default 0.75) and continuous starts a cycle\n"
    "                      (default 0.5); 1: only when the heap is full\n"
    "  --gc-step=N         continuous: work per slice, 1 to 1000000 (default 1024)\n"
    "                      units; a unit is an object marked, a block freed or 8\n"
    "                      handle slots swept. Slices are paced by allocation so a\n"
    "                      cycle ends before the heap fills\n"
    "  --gc-pacing=MODE    continuous: time (default): also defer a slice that comes\n"
    "                      too soon after the last (mutator utilization) and slice at\n"
    "                      loop back-edges; work: slices by allocation volume alone,\n"
    "                      so every count in the statistics is identical run to run\n"
    "  --gc-pauses-file=PATH  write every GC pause to PATH, one 'START_NS DURATION_NS\n"
    "                      CPU_START_NS CPU_NS WORK' line each (ns since the run's\n"
    "                      start by wall time, then by the thread's CPU time; the\n"
    "                      collector's work units)\n"
    "  --host-probe-ms=N   N ms (1 to 60000) of a bare clock loop before and after the\n"
    "                      script: the host's longest stall, in the statistics\n"
    "                      (needs --stats or --stats-file)\n"
    "  --frag-file=PATH    after every collection write the heap's free space to PATH,\n"
    "                      one tab-separated line: cycle, bytes_allocated, in_use,\n"
    "                      free, largest_free, then free bytes by block size class\n"
    "                      free_16, free_32, ... where the policy can enumerate its\n"
    "                      free blocks (header '# kith-frag 1'; NA where it cannot tell)\n"
    "  --gc-overhead-limit=PCT|off  thrashing: when between each of the last 5 collections\n"
    "                      the program allocated under (100-PCT)% of the heap on\n"
    "                      average (default 98: 2%), throw out of memory\n"
    "  --pretouch          populate the whole heap at start (Java's -XX:+AlwaysPreTouch),\n"
    "                      so no allocation pays a first-touch page fault; by default\n"
    "                      the heap is reserved and its pages touched as first used\n"
    "  --gc-log            one line per cycle on stderr, like Java's -Xlog:gc\n"
    "  --gc-stress         occasional: a full collection before every allocation;\n"
    "                      continuous: a slice at every allocation, cycles back to\n"
    "                      back (testing; slow)\n"
    "  --gc-stress=move    as --gc-stress, and before every allocation move the next\n"
    "                      8 live objects to new blocks (any policy), so a raw object\n"
    "                      address held across an allocation is caught (testing)\n"
    "  --check-freed       poison freed objects and quarantine their handles, so a\n"
    "                      stale reference fails at once with a clear message (on in\n"
    "                      debug and sanitizer builds and with --gc-stress)\n"
    "  --fail-alloc=N      the N-th allocation request fails as if the heap were full,\n"
    "                      once; --fail-alloc-every=N: every N-th (testing)\n"
    "  --max-depth=N       call-depth limit, 1 to 1000000 (default 10000)\n"
    "  --stats             a statistics table on stderr after the run: every block of\n"
    "                      the JSON (heap, gc, locality, handle table, vm), grouped\n"
    "  --stats=json        the statistics as one JSON object on stderr\n"
    "  --stats-file=PATH   write the JSON statistics to PATH\n"
    "  --stats-timers=on|off  on (default): time every malloc and free (alloc_ns,\n"
    "                      free_ns; two clock reads each); off: keep every count,\n"
    "                      read no clock per operation (for timed runs)\n"
    "  --stats-sources=on|off  on (default): split the requests met immediately into\n"
    "                      recycled (a free's block) and leftover (a block no free had\n"
    "                      returned: a split's rest), heap.immediate_source; off: not\n"
    "                      tracked (null), and counting costs no more than without\n"
    "                      it (for timed runs). Without\n"
    "                      --stats or --stats-file the heap keeps only its bytes in\n"
    "                      use (what the collectors read), unless --frag-file or the\n"
    "                      script (System.heapStats(), or any import) may show counts\n"
    "  --trace=PATH        record every allocation and free to PATH, for kith replay;\n"
    "                      binary (compact, fast) unless PATH ends in .txt; - is\n"
    "                      standard output (mixed with what the script prints)\n"
    "  --trace-format=F    --trace's format, binary or text, whatever PATH ends in\n"
    "                      (kith trace dump prints a binary trace as text)\n"
    "  --compiler-heap=H   experiment knob: the heap of the compiler's scratch data:\n"
    "                      zone (default; a region freed when compilation ends),\n"
    "                      reap, lea or malloc (each piece freed when done); also\n"
    "                      for disasm. The bytecode is the same with every H\n"
    "  --compile-only      compile the script, report its errors, and stop\n"
    "  --compiler-stats    one JSON line on stderr: the compile's seconds and the\n"
    "                      scratch bytes held (peak, mean over requests)\n"
    "\n";

constexpr const char* kReplayOptionsHelp =
    "options of replay:\n"
    "  --heap=POLICY       the policy to replay on (default estranged; not boehm), or\n"
    "                      nothing: the baseline whose malloc returns an address\n"
    "                      with no memory and whose free does nothing, so a\n"
    "                      policy's cost minus its cost is the policy's own\n"
    "  --heap-size=SIZE    its fixed heap (default 64M, at least 16K)\n"
    "  --pretouch          as for run: populate the heap before the replay starts\n"
    "  --stats, --stats=json, --stats-file=PATH, --stats-timers=on|off,\n"
    "  --stats-sources=on|off\n"
    "                      as for run: the heap block, plus a replay block (events,\n"
    "                      events/s, failed requests, resizes in place and moved);\n"
    "                      no gc or vm block\n"
    "  --bare              the policy alone: the statistics layer counts nothing\n"
    "                      (the statistics then have no heap block), so a request\n"
    "                      costs what the policy costs; kith study's cost and\n"
    "                      replay runs use it\n"
    "  --stop-on-failure   stop at the first request the policy cannot meet, exit 70.\n"
    "                      Without it such a request is counted (after the tries\n"
    "                      run's gate makes with --gc=none: once more, then on knuth\n"
    "                      and estranged with defragmentation), its object's free\n"
    "                      is skipped, and the replay goes on\n"
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
  if (command == "run") help += std::string("\n") + kRunOptionsHelp + kConventionsHelp;
  if (command == "replay") help += std::string("\n") + kReplayOptionsHelp + kConventionsHelp;
  if (command == "exec") help += std::string("\n") + kith::cli::kExecOptionsHelp + kConventionsHelp;
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

const std::vector<OptionSpec>& benchContrivedSpecs() {
  using enum OptionArgument;
  using enum kith::cli::OptionValue;
  static const std::vector<OptionSpec> specs = {
      {"--json", none}, {"--heap-size", required, size}, {"--repetitions", required, integer}, {"--fill", required, real}};
  return specs;
}

const std::vector<OptionSpec>& benchDefragSpecs() {
  using enum OptionArgument;
  static const std::vector<OptionSpec> specs = {
      {"--json", none}, {"--policy", required}, {"--seeds", required, kith::cli::OptionValue::integer}};
  return specs;
}

// A benchmark's options; it takes no operands.
std::optional<int> readBenchOptions(std::string_view command, const std::vector<OptionSpec>& specs,
                                    const std::vector<std::string_view>& args, kith::cli::CommandLine& line) {
  if (auto exit = readCommandLine(command, specs, args, OperandPlacement::anywhere, line)) return exit;
  if (line.operands.empty()) return std::nullopt;
  return usageError("'" + std::string(command) + "' takes options only; got '" + std::string(line.operands[0]) + "'");
}

int benchContrived(const std::vector<std::string_view>& args) {
  kith::heap::arenaPretouch() = true;  // a latency benchmark: no first-touch page faults
  bool json = false;
  std::size_t heapBytes = 64u << 20;
  int repetitions = 21;
  double fill = kith::cli::kDefaultContrivedFill;
  kith::cli::CommandLine line;
  if (auto exit = readBenchOptions("bench contrived", benchContrivedSpecs(), args, line)) return *exit;
  for (const kith::cli::GivenOption& given : line.options) {
    std::string spelling = given.spelling();
    std::string_view a = spelling;
    if (a == "--json") {
      json = true;
    } else if (a.starts_with("--heap-size=")) {
      if (auto exit = kith::cli::readSizeOption("--heap-size", a.substr(12), std::size_t{1} << 20, heapBytes))
        return *exit;
    } else if (a.starts_with("--repetitions=")) {
      if (auto exit = kith::cli::readIntegerOption("--repetitions", a.substr(14), 1, 1000, repetitions)) return *exit;
    } else if (a.starts_with("--fill=")) {
      std::optional<double> f = kith::cli::parseReal(a.substr(7));
      if (!f || !(*f > 0 && *f < 1))
        return usageError("--fill wants the objects' share of the heap, a fraction in (0, 1) like 0.6; got '" +
                          std::string(a.substr(7)) + "'");
      fill = *f;
    } else {
      return usageError("unknown option for 'bench contrived': " + spelling);  // a spec without a case
    }
  }
  try {
    auto result = kith::cli::runContrived(heapBytes, repetitions, fill);
    std::fputs(json ? kith::cli::contrivedJson(result).c_str() : kith::cli::contrivedTable(result).c_str(),
               stdout);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "kith: bench contrived: %s\n", e.what());
    return kExitSoftware;
  }
  return kExitOk;
}

int benchDefrag(const std::vector<std::string_view>& args) {
  kith::heap::arenaPretouch() = true;  // as every timing benchmark
  bool json = false;
  std::string policy = "estranged";
  std::size_t seeds = kith::cli::kDefragSeeds;
  kith::cli::CommandLine line;
  if (auto exit = readBenchOptions("bench defrag", benchDefragSpecs(), args, line)) return *exit;
  for (const kith::cli::GivenOption& given : line.options) {
    std::string spelling = given.spelling();
    std::string_view a = spelling;
    if (a == "--json") {
      json = true;
    } else if (a.starts_with("--policy=")) {
      policy = std::string(a.substr(9));
      if (policy != "knuth" && policy != "estranged")
        return usageError("--policy wants knuth or estranged (the buddy heaps); got '" + policy + "'");
    } else if (a.starts_with("--seeds=")) {
      if (auto exit = kith::cli::readIntegerOption("--seeds", a.substr(8), 1, 1000, seeds)) return *exit;
    } else {
      return usageError("unknown option for 'bench defrag': " + spelling);  // a spec without a case
    }
  }
  try {
    auto result = kith::cli::runDefragBench(policy, seeds);
    std::fputs(json ? kith::cli::defragJson(result).c_str() : kith::cli::defragTable(result).c_str(), stdout);
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
    std::printf("%s%s%s%s%s", kCommandsHelp, kRunOptionsHelp, kReplayOptionsHelp, kith::cli::kExecOptionsHelp,
                kConventionsHelp);
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
    const auto& specs = experiment == "defrag" ? benchDefragSpecs() : benchContrivedSpecs();
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
    if (auto exit = readCommandLine(command, {{"--compiler-heap", kith::cli::OptionArgument::required}}, rest,
                                    OperandPlacement::anywhere, line))
      return *exit;
    if (line.help) return printHelp(commandHelp(command));
    // The value first: `--compiler-heap FILE` took the script as its value.
    auto compilerHeap = kith::vm::CompilerHeap::zone;
    for (const auto& given : line.options)
      if (auto heap = kith::vm::compilerHeapNamed(*given.value)) compilerHeap = *heap;
      else return kith::cli::compilerHeapError(*given.value);
    if (line.operands.size() != 1) return usageError("'disasm' takes one script: kith disasm FILE");
    return kith::cli::disassembleScript(std::string(line.operands[0]), compilerHeap);
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
