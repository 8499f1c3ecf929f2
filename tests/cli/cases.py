"""The command line's contract (CLI.md): exit codes, messages, reports. One case() a test;
the row's fields and how its patterns are read: cli_case.py. Exit codes are sysexits:
64 usage, 65 malformed input, 66 missing input, 70 runtime error, 73 cannot write."""
from cli_case import ANY, case

EXAMPLES = "{source}/examples"
FIXTURES = "{source}/tests/replay/fixtures"  # traces: heap/trace/trace.h; unit tests in tests/replay
BINARY_TREES = f"{EXAMPLES}/binary_trees.kith"

# Bad usage: one line "kith: WHAT IS WRONG" on stderr, at most a hint line after it, exit 64.
USAGE_ERROR = r"^kith: [^\n]+\n([^\n]+\n)?$"
# A policy whose library this build lacks (jemalloc, mimalloc) is a note on stderr, and so is
# the hand-written Kingsley that `kingsley` is measured against (a reference, not a studied policy).
POLICY_NOTES = (r"^(kith: note: (jemalloc|mimalloc) is not in this build: [^\n]+\n)*"
                r"kith: note: kingsley-bsd is a reference, not a studied policy: the hand-written Kingsley "
                r"allocator \(BSD 4\.2 malloc\)[^\n]*\n$")
MISSING_TRACE = r"^kith: cannot read trace '/nonexistent/run.trace': No such file or directory\n$"
DOUBLE_FREE = r"^kith: [^\n]*double_free.txt: line 4: free of object 0, which is not live \(freed twice\?\)\n$"
CUT_SHORT = r"^kith: [^\n]*cut_short.trace: offset 12: the trace ends without its end marker \(cut short\?\)\n$"
SMALL_REPLAYED = r"replayed 6 events on {} in [0-9.]+ s \([0-9.]+M events/s\): 3 allocations \(0 failed here\), 2 frees\n"

case("cli.help", "--help", stdout=r"kith policies.*bench contrived.*bench defrag")
case("cli.help_replay", "--help", stdout=(
    r"kith replay \[OPTIONS\] TRACE.*kith trace dump TRACE.*--trace=PATH.*--trace-format=F.*options of replay:"
    r".*--heap=POLICY.*--heap-size=SIZE.*--pretouch.*--stats-file=PATH.*--stop-on-failure.*65 malformed trace.*66 missing"))
case("cli.help_outputs", "--help", stdout=(
    r"Every PATH an option names is checked before the run starts; - is standard output\.\n"
    r"A PATH that is an input or another option's is refused; a file is replaced only\n.*"
    r"73 an\s+output \(a PATH above,\s+standard output\) cannot be created or written"))
# --version names the commit (git describe at build time), or says it is unknown outside git.
case("cli.version", "--version", stdout=r"^kith [0-9]+\.[0-9]+\.[0-9]+ \(([0-9a-f]{7,}(-dirty)?|commit unknown)\)\n$")
case("cli.policies", "policies", stderr=POLICY_NOTES, stdout=(
    r"^list .*\nknuth .*\nestranged .*\ntlsf .*\nkingsley .*\nkingsley-coalescing .*\nlea .*\nvelox .*\nmedius .*\ndefero .*\n"
    r"malloc [^\n]*\n(jemalloc [^\n]*\n)?(mimalloc [^\n]*\n)?boehm "))
case("cli.policies_notes", "policies", stdout=ANY, stderr=POLICY_NOTES)

# The live graph's locality, measured at each collection (the JSON's locality block).
case("cli.stats_locality", f"run --heap=velox --heap-size=1M --stats=json {BINARY_TREES} 10", stdout=ANY, stderr=(
    r'"locality": \{"cycles": [1-9][0-9]*, "references": [1-9][0-9]*, "same_line": [0-9]+, "same_page": [0-9]+, '
    r'"k_close": [0-9]+, "far": [0-9]+, "pages_touched_mean": [0-9.]+, "pages_touched_max": [1-9][0-9]*\}'))

case("cli.contrived_json", "bench contrived --json --heap-size=8M --repetitions=1",
     stdout=r'^\{"n": [0-9]+,.*"list_ns": [0-9.]+, "knuth_ns": [0-9.]+, "estranged_ns": [0-9.]+, "tlsf_ns": [0-9.]+\}')
# The list's steps are counted: at --fill=0.6 of 2M, 39,320 objects (rounded down to even:
# 39,321 would free the last one into the tail), 19,660 of them freed, and the request walks
# every hole and then takes the tail; 3 samples per policy.
case("cli.contrived_steps", "bench contrived --json --heap-size=2M --repetitions=3", stdout=(
    r'"n": 39320,.*"fill": 0.6, "list_steps": 19661, .*"list_ns_samples": \[[0-9.]+, [0-9.]+, [0-9.]+\]'
    r'.*"tlsf_ns_samples": \[[0-9.]+, [0-9.]+, [0-9.]+\]'))
# bench defrag --json: the format (the values: defrag_json_check.py).
DEFRAG_ROW = r'"moves": [0-9]+, "bytes_moved": [0-9]+, "optimal_bytes": [0-9]+\}'
case("cli.defrag_json", "bench defrag --json --seeds=1",
     stdout=r'^\{"rows": \[' + ", ".join(rf'\{{"k": {k}, {DEFRAG_ROW}' for k in range(4, 13)) + r"\]\}\n$")

for args in ["nosuchcommand", "bench", "bench nosuch", "bench contrived --heap-size=12Q",
             "bench contrived --heap-size=0", "bench contrived --bogus", "policies extra",
             "bench contrived --repetitions=0", "bench contrived --fill=1", "bench contrived --fill=x",
             "run --stats-timers=maybe x.kith", "replay --stats-timers= x.trace", "bench defrag --bogus",
             "bench defrag --policy=tlsf", "bench defrag --seeds=0", "replay", "replay --bogus x.trace",
             "replay a.trace b.trace", "replay --heap=nosuch x.trace", "replay --heap=boehm x.trace",
             "replay --heap-size=1K x.trace", "replay --stats=xml x.trace", "trace", "trace nosuch",
             "trace dump", "trace dump a b", "run --trace-format=xml x.kith", "run --heap=nothing x.kith",
             "trace lifetimes", "trace lifetimes a b", "trace lifetimes --bogus x", "trace lifetimes --json"]:
    case(f"cli.message.{args.replace(' ', '_')}", args, exit=64, stderr=USAGE_ERROR)

# import: a stack trace names the file each frame is in (LANGUAGE.md, Modules).
case("cli.import_trace", "run {source}/tests/scripts/modules/import_uncaught_in_module.kith", exit=70, output=(
    r"^before\nerror: module failed 7\n  at fail \([^\n]*lib/throws.kith:3\)\n  at <script> \([^\n]*lib/throws.kith:5\)\n"
    r"  at <script> \([^\n]*import_uncaught_in_module.kith:3\)\n$"))

# A missing, unreadable or directory trace: exit 66 with the reason.
case("cli.replay_missing", "replay /nonexistent/run.trace", exit=66, stderr=MISSING_TRACE)
case("cli.replay_directory", f"replay {FIXTURES}", exit=66,
     stderr=r"^kith: cannot read trace '[^']*fixtures': it is a directory\n$")
case("cli.trace_dump_missing", "trace dump /nonexistent/run.trace", exit=66, stderr=MISSING_TRACE)
# A malformed trace: exit 65, the file, the line (text) or byte offset (binary), and what is wrong.
case("cli.replay_malformed_text", f"replay {FIXTURES}/double_free.txt", exit=65, stderr=DOUBLE_FREE)
case("cli.replay_malformed_binary", f"replay {FIXTURES}/cut_short.trace", exit=65, stderr=CUT_SHORT)
case("cli.replay_not_a_trace", f"replay {EXAMPLES}/fib.kith", exit=65,
     stderr=r"^kith: [^\n]*fib.kith: line 1: expected the header '# kith-trace 1', found '[^\n]*'\n$")
case("cli.trace_dump_malformed", f"trace dump {FIXTURES}/cut_short.trace", exit=65, stdout=ANY, stderr=CUT_SHORT)
# A good trace: the summary line; the recorder's failure is skipped, not replayed.
case("cli.replay_small", f"replay --heap=tlsf {FIXTURES}/small.txt", stdout="^" + SMALL_REPLAYED.format("tlsf") + "$")
# --pretouch, as for run: the same replay on a heap populated up front.
case("cli.replay_pretouch", f"replay --pretouch --heap=kingsley --heap-size=1M {FIXTURES}/small.txt",
     stdout="^" + SMALL_REPLAYED.format("kingsley") + "$")
# Heap Layers §6.1 and §8 on a trace: the hand-written Kingsley (a reference) and Kingsley
# with coalescing, which splits every request from a bigger block and counts its steps.
case("cli.replay_kingsley_bsd", f"replay --heap=kingsley-bsd --heap-size=1M {FIXTURES}/small.txt",
     stdout="^" + SMALL_REPLAYED.format("kingsley-bsd") + "$")
case("cli.replay_kingsley_coalescing", f"replay --heap=kingsley-coalescing --heap-size=1M --stats=json {FIXTURES}/small.txt",
     stdout="^" + SMALL_REPLAYED.format("kingsley-coalescing") + "$", stderr=(
         r'^\{"policy": "kingsley-coalescing", .*"size_histogram": \{"24": 1, "56": 1, "4104": 1\},'
         r'.*"satisfied": \{"immediate": 0, "split": 3, "glue": 0, "defrag": 0, "failed": 0\},'
         r'.*"steps": \{"malloc": \{"count": 3, "mean": 3, "max": 3, .*"free": \{"count": 2, "mean": 1.5, "max": 2, '))
case("cli.replay_stdin", "replay --heap=knuth -", stdin=f"{FIXTURES}/small.txt",
     stdout="^" + SMALL_REPLAYED.format("knuth") + "$")
# --stats=json: CLI.md's heap block and a replay block, no gc or vm block.
case("cli.replay_json", f"replay --heap=list --heap-size=1M --stats=json {FIXTURES}/small.txt", stdout=ANY,
     absent=r'"gc"|"vm"', stderr=(
         r'^\{"policy": "list", "heap_size": 1048576, "trace": "[^"]*small.txt",\n "heap": \{"allocations": 3, "frees": 2, '
         r'.*"satisfied": \{"immediate": [0-9]+, "split": [0-9]+, "glue": [0-9]+, "defrag": [0-9]+, "failed": 0\}'
         r'.* "replay": \{"format": "text", "events": 6, .*"recorded_failures": 1, "failed_allocations": 0, .*\}\}\n$'))
# Where immediate requests' blocks came from: the first 16 bytes split the arena, the second
# takes the upper half that split left over (not recycling), the third the block just freed.
case("cli.replay_immediate_source", f"replay --heap=knuth --heap-size=1M --stats=json {FIXTURES}/leftover.txt",
     stdout=ANY, stderr=r'"satisfied": \{"immediate": 2, "split": 1, .*\}, "immediate_source": \{"recycled": 1, "leftover": 1\}')
case("cli.replay_immediate_source_table", f"replay --heap=estranged --heap-size=1M --stats {FIXTURES}/leftover.txt",
     stdout=ANY, stderr=r'\n  immediate from +recycled 1, leftover 1 \(a block no free had returned\)\n')
# The coalescing heaps: one large request leaves the arena's last few hundred bytes, ten small
# ones carve them and the tenth takes the last block whole (a leftover), then a freed block
# is taken again (recycled). The heap sizes put the same bytes at the end of list's and tlsf's.
case("cli.replay_immediate_source_list", f"replay --heap=list --heap-size=16416 --stats=json {FIXTURES}/leftover_end.txt",
     stdout=ANY, stderr=r'"satisfied": \{"immediate": 2, "split": 10, .*\}, "immediate_source": \{"recycled": 1, "leftover": 1\}')
case("cli.replay_immediate_source_tlsf", f"replay --heap=tlsf --heap-size=16384 --stats=json {FIXTURES}/leftover_end.txt",
     stdout=ANY, stderr=r'"satisfied": \{"immediate": 2, "split": 10, .*\}, "immediate_source": \{"recycled": 1, "leftover": 1\}')
case("cli.replay_immediate_source_lea_table", f"replay --heap=lea --heap-size=16416 --stats {FIXTURES}/leftover_end.txt",
     stdout=ANY, stderr=r'\n  immediate from +recycled 1, leftover 1 \(a block no free had returned\)\n')
# The Allotheque policies report no outcomes: no immediate requests to split.
case("cli.replay_immediate_source_untracked", f"replay --heap=velox --heap-size=1M --stats=json {FIXTURES}/leftover.txt",
     stdout=ANY, stderr=r'"satisfied": \{[^}]*\}, "immediate_source": null')
# --stats-sources=off: counted as before the sources existed, the source left unknown, and said so.
case("cli.replay_immediate_source_off", f"replay --heap=knuth --heap-size=1M --stats=json --stats-sources=off {FIXTURES}/leftover.txt",
     stdout=ANY, stderr=r'"satisfied": \{"immediate": 2, [^}]*\}, "immediate_source": null')
case("cli.replay_immediate_source_off_table", f"replay --heap=knuth --heap-size=1M --stats --stats-sources=off {FIXTURES}/leftover.txt",
     stdout=ANY, stderr=r'\n  immediate from +not tracked \(--stats-sources=off\)\n')
case("cli.run_stats_sources_bad", "run --stats-sources=maybe {source}/examples/binary_trees.kith 2", exit=64,
     stderr=r"^kith: --stats-sources wants on or off; got 'maybe'\n")
# --bare: the policy alone, nothing counted, so the statistics say so instead of a heap block of zeros.
case("cli.replay_bare_json", f"replay --bare --heap=knuth --heap-size=1M --stats=json {FIXTURES}/small.txt",
     stdout=ANY, absent=r'"heap":', stderr=(
         r'^\{"policy": "knuth", "heap_size": 1048576, "trace": "[^"]*small.txt",\n "bare": true,\n'
         r' "replay": \{"format": "text", "events": 6, "allocations": 3, "frees": 2, .*\}\}\n$'))
# --stats-timers=off: counting without timing, every count kept and no clock read per request.
case("cli.replay_counts_untimed", f"replay --heap=kingsley --heap-size=1M --stats=json --stats-timers=off {FIXTURES}/small.txt",
     stdout=ANY, stderr=(
         r'"heap": \{"allocations": 3, "frees": 2, .*"size_histogram": \{"32": 1, "64": 1, "4096": 1\},'
         r'.*"op_timers": false, "alloc_ns": \{"count": 0, .*"free_ns": \{"count": 0, '))
case("cli.replay_stats_table", f"replay --heap=lea --stats {FIXTURES}/small.txt", stdout=ANY,
     stderr=r"^--- kith replay statistics ---\npolicy +lea .*\nheap\n  allocations +3 .*  satisfied +immediate .*"
            r"\nreplay\n  events +6 in ")
# A request the policy cannot meet: counted, the replay goes on (exit 0) ...
case("cli.replay_failure_counted", f"replay --heap=estranged --heap-size=64K --stats=json {FIXTURES}/too_big.txt",
     output=r'^replayed 3 events on estranged .*: 3 allocations \(1 failed here\), 0 frees\n.*"failed_allocations": 1, .*$')
# ... unless --stop-on-failure: exit 70, naming where.
case("cli.replay_stop_on_failure", f"replay --heap=tlsf --heap-size=64K --stop-on-failure {FIXTURES}/too_big.txt",
     exit=70, output=(
         r"^replayed 2 events on tlsf .*\nkith: [^\n]*too_big.txt: line 3: --heap=tlsf could not satisfy the allocation "
         r"of 1000000 bytes; replay stopped \(--stop-on-failure\)\n$"))
case("cli.replay_stats_file_unwritable", f"replay --stats-file=/nonexistent/s.json {FIXTURES}/small.txt", exit=73,
     stderr=r"^kith: /nonexistent/s.json: No such file or directory\n$")
# trace dump: a text trace comes back as the same events (comments dropped).
case("cli.trace_dump", f"trace dump {FIXTURES}/small.txt",
     stdout=r"^# kith-trace 1\nA 0 0 24\nA 1 1 48\nF 2 0\nX 3 100000000\nA 4 2 4096\nF 5 1\n$")
case("cli.run_trace_unwritable", f"run --trace=/nonexistent/t.trace {EXAMPLES}/fib.kith", exit=73,
     stderr=r"^kith: /nonexistent/t.trace: No such file or directory\n$")

# Object demographics: kith trace lifetimes and kith run --frag-file (heap/trace/object_lifetimes.h,
# gc/fragmentation_log.h); demographics_check.py compares them with the run they describe.
case("cli.trace_lifetimes_json", f"trace lifetimes --json {FIXTURES}/small.txt", stdout=(
    r'^\{"objects": 3, "freed": 2, "freed_bytes": 72, "live_at_end": 1, "live_at_end_bytes": 4096, "failed": 1, "resized": 0, "peak_live_bytes": 4144, '
    r'"bytes_allocated": 4168,\n "histogram": \[\{"age_bytes_le": 48, "objects": 1, "bytes": 24\},\n'
    r'  \{"age_bytes_le": 4096, "objects": 1, "bytes": 48\}\]\}\n$'))
case("cli.trace_lifetimes_malformed", f"trace lifetimes {FIXTURES}/double_free.txt", exit=65, stderr=DOUBLE_FREE)
case("cli.trace_lifetimes_missing", "trace lifetimes /nonexistent/run.trace", exit=66, stderr=MISSING_TRACE)
case("cli.frag_file_unwritable", f"run --frag-file=/nonexistent/f.tsv {EXAMPLES}/fib.kith", exit=73,
     stderr=r"^kith: /nonexistent/f.tsv: No such file or directory\n$")

# Conventional options (CLI.md, Conventions).
FIB = f"{EXAMPLES}/fib.kith"
FIB_5 = r"^fib\(5\) = 5\ntime: [^\n]+\n$"
# Bare kith: a short usage, not the whole help.
case("cli.bare_usage", "", exit=64, stderr=r"^usage: kith [^\n]+\n( +kith [^\n]+\n){2}$")
# --opt value is --opt=value, for every command's options.
case("cli.option_value_as_next_word", f"run --heap knuth --heap-size 1M --stats-file {{tmp}}/s.json {FIB} 5",
     stdout=FIB_5, files={"{tmp}/s.json": r'^\{"policy": "knuth", "collector": "occasional", "heap_size": 1048576,'})
case("cli.implied_run_option_value", f"--gc none {FIB} 5", stdout=FIB_5)
case("cli.replay_option_value", f"replay --heap tlsf {FIXTURES}/small.txt", stdout="^" + SMALL_REPLAYED.format("tlsf") + "$")
case("cli.replay_option_after_trace", f"replay {FIXTURES}/small.txt --heap tlsf",
     stdout="^" + SMALL_REPLAYED.format("tlsf") + "$")
case("cli.bench_option_value", "bench defrag --json --seeds 1 --policy knuth", stdout=r'^\{"rows": \[')
# An optional value only after '=': `--stats json` is --stats and a script named json.
case("cli.optional_value_needs_equals", "run --stats json", exit=66,
     stderr=r"^kith: cannot read 'json': No such file or directory\n$")
# -- ends the options: what follows is the script and its arguments.
case("cli.double_dash", "run -- --heap=x", exit=66, stderr=r"^kith: cannot read '--heap=x': No such file or directory\n$")
case("cli.double_dash_script_args", f"-- {FIB} 5", stdout=FIB_5)
case("cli.disasm_double_dash", f"disasm -- {FIB}", stdout=r"^== <script> ")
# `--compiler-heap FILE` takes the script as the option's value: the value is what is wrong.
case("cli.disasm_compiler_heap_takes_the_script", f"disasm --compiler-heap {FIB}", exit=64,
     stderr=r"^kith: --compiler-heap wants zone, reap, lea, malloc; got '[^']*fib[^']*'\n\(see kith --help\)\n$")
# kith PATH runs any existing file; a directory is an unreadable input; a word that is
# neither a command nor a file stays an unknown command.
case("cli.implied_run_directory", "/tmp", exit=66, stderr=r"^kith: cannot read '/tmp': Is a directory\n$")
case("cli.implied_run_extensionless", f"{{source}}/tests/cli/cli_case.py", exit=65, stderr=r"^[^\n]*cli_case.py:1:")
case("cli.unknown_command", "nosuchword", exit=64, stderr=r"^kith: unknown command 'nosuchword'\n\(see kith --help\)\n$")
# kith run - (and kith -) read the script from standard input; messages call it <stdin>.
case("cli.run_stdin", "run - 5", stdin=FIB, stdout=FIB_5)
case("cli.implied_run_stdin", "- 5", stdin=FIB, stdout=FIB_5)
case("cli.run_stdin_compile_error", "run -", stdin="{source}/tests/scripts/compile_errors/assign_to_literal.kith",
     exit=65, stderr=r"^<stdin>:1:3: error: invalid assignment target\n")
# Near misses suggest the nearest name, on the hint line.
for name, argv, hint in [
        ("option", "run --hep=knuth x.kith", "did you mean '--heap=knuth'\\?"),
        ("implied_run_option", "--gc-lg x.kith", "did you mean '--gc-log'\\?"),
        ("replay_option", "replay --stop-on-failur x.trace", "did you mean '--stop-on-failure'\\?"),
        ("policy", "run --heap=estrange x.kith", "did you mean 'estranged'\\?"),
        ("replay_policy", "replay --heap=nothin x.trace", "did you mean 'nothing'\\?"),
        ("collector", "run --gc=continous x.kith", "did you mean 'continuous'\\?"),
        ("command", "rnu x.kith", "did you mean 'run'\\?"),
        ("command_prefix", "pol", "did you mean 'policies'\\?"),
        ("benchmark", "bench defrg", "did you mean 'defrag'\\?"),
        ("trace_subcommand", "trace dmp x", "did you mean 'dump'\\?")]:
    case(f"cli.suggest.{name}", argv, exit=64, stderr=rf"^kith: [^\n]+\n{hint}\n$")
# Conflicting options: one line naming both.
case("cli.conflict_stats", "run --stats --stats=json x.kith", exit=64,
     stderr=r"^kith: conflicting options: --stats and --stats=json \(give --stats once\)\n[^\n]*\n$")
case("cli.conflict_heap", "run --heap=knuth --heap list x.kith", exit=64,
     stderr=r"^kith: conflicting options: --heap=knuth and --heap=list")
case("cli.conflict_replay", "replay --heap=knuth x.trace --heap=tlsf", exit=64,
     stderr=r"^kith: conflicting options: --heap=knuth and --heap=tlsf")
case("cli.repeat_same_value", f"run --gc=none --gc none {FIB} 5", stdout=FIB_5)
for args in ["run --heap-size", "run --stats-file= x.kith", "run --gc-log=yes x.kith", "run --stats=xml x.kith",
             "run --gc-stress=fast x.kith", "replay --heap", "bench contrived extra", "disasm a b",
             "trace dump --json x", "run -x x.kith"]:
    case(f"cli.message.{args.replace(' ', '_')}", args, exit=64, stderr=USAGE_ERROR)
# kith COMMAND --help: that command's usage and options on stdout, exit 0.
case("cli.run_help", "run --help", stdout=r"^usage:\n  kith run \[OPTIONS\] FILE.*options of run:.*--heap=POLICY.*-- ends")
case("cli.run_help_after_options", "run --heap knuth -h", stdout=r"^usage:\n  kith run ")
case("cli.implied_run_help", "--gc=none --help", stdout=r"^usage:\n  kith run ")
case("cli.replay_help", "replay --help", stdout=r"^usage:\n  kith replay \[OPTIONS\] TRACE.*options of replay:.*--bare",
     absent="options of run")
case("cli.trace_help", "trace lifetimes --help", stdout=r"^usage:\n  kith trace dump.*kith trace lifetimes")
case("cli.bench_help", "bench defrag --help", stdout=r"^usage:\n  kith bench defrag \[--json\][^\n]*\n( {30,}[^\n]+\n)+$")
case("cli.policies_help", "policies --help", stdout=r"^usage:\n  kith policies ")
case("cli.disasm_help", "disasm --help", stdout=r"^usage:\n  kith disasm ")
# After the script, --help is the script's own argument.
case("cli.help_after_script_is_an_argument", f"run {FIB} --help", exit=70, stdout=ANY, stderr=r"^error: ")

# Outputs (CLI.md, exit 73): every file an option names is created before the script
# runs — a path that cannot be written stops the run before its first line of output —
# and a failed write or close of any output is `kith: PATH: REASON`.
SCRIPTS = "{source}/tests/cli/scripts"
PRINTS_FIRST = f"{SCRIPTS}/prints_first.kith"
for option in ("--stats-file", "--gc-pauses-file", "--frag-file", "--trace"):
    name = option[2:].replace("-", "_")
    case(f"cli.output.{name}_is_a_directory", f"run {option}={{tmp}} {PRINTS_FIRST}", exit=73,
         stderr=r"^kith: [^\n]*kith-cli-[^\n]*: Is a directory\n$")
    case(f"cli.output.{name}_full", f"run {option}=/dev/full {PRINTS_FIRST}", exit=73,
         stdout=r"^the script ran\n$", stderr=r"^kith: /dev/full: No space left on device\n$")
# The second of several files fails: nothing runs either.
case("cli.output.second_file_unwritable", f"run --stats-file={{tmp}}/s.json --trace=/nonexistent/t {PRINTS_FIRST}",
     exit=73, stderr=r"^kith: /nonexistent/t: No such file or directory\n$")
case("cli.output.replay_stats_file_is_a_directory", f"replay --stats-file={{tmp}} {FIXTURES}/small.txt", exit=73,
     stderr=r"^kith: [^\n]*kith-cli-[^\n]*: Is a directory\n$")
case("cli.output.replay_stats_file_full", f"replay --stats-file=/dev/full {FIXTURES}/small.txt", exit=73,
     stdout="^" + SMALL_REPLAYED.format("estranged") + "$", stderr=r"^kith: /dev/full: No space left on device\n$")
# "-" is standard output wherever an option names a file written.
case("cli.output.stats_file_stdout", f"run --stats-file=- {PRINTS_FIRST}",
     stdout=r'^the script ran\n\{"policy": "estranged", .*"vm": \{"instructions": [0-9]+, .*\}\}\n$')
case("cli.output.replay_stats_file_stdout", f"replay --stats-file=- {FIXTURES}/small.txt",
     stdout="^" + SMALL_REPLAYED.format("estranged") + r'\{"policy": "estranged", .*"replay": \{.*\}\}\n$')
case("cli.output.trace_stdout", f"run --trace=- --trace-format=text {SCRIPTS}/allocates_quietly.kith",
     stdout=r"^# kith-trace 1\nA 0 0 [0-9]+\n.*A 2[0-9]{3} ")
case("cli.output.pauses_stdout", f"run --gc-pauses-file=- {SCRIPTS}/allocates_quietly.kith",
     stdout=r"^# kith-gc-pauses 2\n# collector occasional\n# run_ns [0-9]+\n# run_cpu_ns [0-9]+\n"
            r"# start_ns duration_ns cpu_start_ns cpu_ns work\n")
# Format 2: each pause by wall and by the thread's CPU time, and its work units.
case("cli.output.pauses_both_clocks", f"run --gc=continuous --heap-size=1M --gc-pauses-file=- {BINARY_TREES} 10",
     stdout=r"\n# start_ns duration_ns cpu_start_ns cpu_ns work\n([0-9]+ [0-9]+ [0-9]+ [0-9]+ [0-9]+\n)+$")
# Without a collector of the VM's own the list is the header alone.
case("cli.output.pauses_none", f"run --gc=none --gc-pauses-file=- {SCRIPTS}/allocates_quietly.kith",
     stdout=r"^# kith-gc-pauses 2\n# collector none\n# run_ns [0-9]+\n# run_cpu_ns [0-9]+\n"
            r"# start_ns duration_ns cpu_start_ns cpu_ns work\n$")
case("cli.output.frag_stdout", f"run --frag-file=- {SCRIPTS}/allocates_quietly.kith",
     stdout=r"^# kith-frag 1\n# policy estranged\n")
case("cli.output.stats_file_written", f"run --stats-file={{tmp}}/s.json {PRINTS_FIRST}", stdout=r"^the script ran\n$",
     files={"{tmp}/s.json": r'^\{"policy": "estranged", .*"heap": \{"allocations": [0-9]+, .*\}\}\n$'})

# --stats: every block of the JSON, grouped under headings.
case("cli.stats_table_groups", f"run --gc=continuous --stats {PRINTS_FIRST}", stdout=ANY, stderr=(
    r"^--- kith statistics ---\npolicy +estranged \(heap 67108864 bytes\), collector continuous\n"
    r"heap\n  allocations +[0-9]+ .*\n  bytes in use +[0-9]+ \(peak [0-9]+\)\n.*"
    r"  block sizes +[0-9]+: [0-9]+.*\n  alloc ns +mean .*\n  free ns +mean .*\n.*"
    r"  fragmentation +internal [0-9]+ bytes, external at failure [0-9.]+\n"
    r"gc\n  cycles .*\n  pauses ms .*\n  pauses cpu ms +total [0-9.]+, mean [0-9.]+, p99 [0-9.]+, max [0-9.]+\n"
    r"  mmu +1ms [0-9.]+, 10ms [0-9.]+, 100ms [0-9.]+\n  mmu cpu +1ms [0-9.]+, 10ms [0-9.]+, 100ms [0-9.]+\n"
    r"  host gap +max [0-9.]+ ms; [0-9]+ pauses over 0.1 ms by wall time only\n"
    r"  counts +slices [0-9]+, deferred slices [0-9]+, forced completions [0-9]+, peak live bytes [0-9]+\n"
    r"  parameters +work per slice 4096, start occupancy 0.5, pacing time, pacing fraction 0.5, min slice bytes 256\n"
    r"locality\n  references +[0-9]+ in [0-9]+ cycles: same line .*\n  pages touched .*\n"
    r"handle table \(outside the heap\)\n  slots +[0-9]+ bytes in [0-9]+ chunks, [0-9]+ live\n"
    r"vm\n  instructions +[0-9]+\n  objects created +[0-9]+\n  wall time +[0-9.]+ s .*\n$"))
# The work per slice by default follows the pacing (gc/continuous_collector.h): the
# whole bound under work pacing, a backstop to the CPU-time limit under time pacing;
# --gc-step sets it under either.
case("cli.stats_work_per_slice_work_pacing", f"run --gc=continuous --gc-pacing=work --stats {PRINTS_FIRST}",
     stdout=ANY, stderr=r"\n  parameters +work per slice 1024, start occupancy 0.5, pacing work,")
case("cli.stats_work_per_slice_given", f"run --gc=continuous --gc-step=300 --stats {PRINTS_FIRST}",
     stdout=ANY, stderr=r"\n  parameters +work per slice 300, start occupancy 0.5, pacing time,")
case("cli.stats_table_untimed", f"run --heap=list --stats --stats-timers=off {PRINTS_FIRST}", stdout=ANY,
     stderr=r"\n  alloc ns +not timed \(--stats-timers=off\)\n  free ns +not timed .*\n  parameters +occupancy threshold 0.75\n")

# kith repl with standard input not a terminal: lines without prompts, each input's value
# or error in order, the session and its globals surviving errors, and `exit` ending it.
REPL_SESSION = "{source}/tests/cli/repl_session.txt"
case("cli.repl_stdin", "repl --heap=knuth", stdin=REPL_SESSION, exit=65, output=(
    r"^3\n82\nprinted\nerror: unsupported operand types for \+: int and nil\n  at <script> \(<repl>:1\)\n42\n"
    r"<repl>:1:11: error: expected ';' after the variable declaration, found '2'\n[^\n]*\n[^\n]*\n"
    r"knuth\ntext;\n$"))
case("cli.repl_gc_option", "repl --heap=tlsf --gc=none", stdin=REPL_SESSION, exit=65, stdout=r"\ntlsf\n", stderr=ANY)
case("cli.repl_system_exit", "repl", stdin="{source}/tests/cli/repl_exit_code.txt", exit=3, stdout="^before\n$")
case("cli.repl_script_refused", "repl x.kith", exit=64, stderr=USAGE_ERROR)
case("cli.repl_reports_refused", "repl --stats", exit=64, stderr=USAGE_ERROR)
case("cli.repl_help", "repl --help", stdout=r"^usage: kith repl \[OPTIONS\]")
case("cli.repl_in_help", "--help", stdout=r"kith repl \[OPTIONS\]")
# repl reads run's options, and names itself in their errors.
case("cli.repl_unknown_option", "repl --hep=knuth", exit=64,
     stderr=r"^kith: unknown option for 'repl': --hep=knuth\ndid you mean '--heap=knuth'\?\n$")

# --- A user's files (docs/RELIABILITY.md): no output replaces an input or another
# output, and a refused run touches no file. Each row gives the files it must not destroy.
SCRIPT, SCRIPT_KEPT = 'print("hi");\n', r'^print\("hi"\);\n$'
EARLIER, EARLIER_KEPT = '{"earlier": true}\n', r'^\{"earlier": true\}\n$'
TRACE_TEXT, TRACE_KEPT = "# kith-trace 1\nA 0 0 24\nF 1 0\n", r"^# kith-trace 1\nA 0 0 24\nF 1 0\n$"
GIVEN_SCRIPT = {"{tmp}/s.kith": SCRIPT}
# An output that is the script, by another spelling of the same file: refused before the run.
for option in ("--trace", "--stats-file", "--gc-pauses-file", "--frag-file"):
    name = option[2:].replace("-", "_")
    case(f"cli.own.{name}_is_the_script", f"run {option}=s.kith {{tmp}}/s.kith", exit=64, given=GIVEN_SCRIPT,
         files={"{tmp}/s.kith": SCRIPT_KEPT}, stderr=(
             rf"^kith: {option}=s.kith is the script '[^']*/s.kith': the output would replace it\n"
             rf"\(give {option} another path\)\n$"))
case("cli.own.compile_only_stats_file_is_the_script", "run --compile-only --stats-file=./s.kith s.kith", exit=64,
     given=GIVEN_SCRIPT, files={"{tmp}/s.kith": SCRIPT_KEPT},
     stderr=r"^kith: --stats-file=./s.kith is the script 's.kith': the output would replace it\n")
case("cli.own.stats_file_is_the_script_on_stdin", "run --stats-file=s.kith -", stdin="{tmp}/s.kith", exit=64,
     given=GIVEN_SCRIPT, files={"{tmp}/s.kith": SCRIPT_KEPT},
     stderr=r"^kith: --stats-file=s.kith is the script on standard input: the output would replace it\n")
case("cli.own.replay_stats_file_is_the_trace", "replay --stats-file=t.txt {tmp}/t.txt", exit=64,
     given={"{tmp}/t.txt": TRACE_TEXT}, files={"{tmp}/t.txt": TRACE_KEPT},
     stderr=r"^kith: --stats-file=t.txt is the trace '[^']*/t.txt': the output would replace it\n")
# A module that is an output: not imported (a runtime error where the import is), and the
# output not written, so the module is as it was — the trace, written as the script ran, too.
MODULES = {"{tmp}/main.kith": 'import "mods/m2.kith";\nprint(m2);\n', "{tmp}/mods/m2.kith": "let m2 = 2;\n"}
for option in ("--stats-file", "--trace"):
    case(f"cli.own.{option[2:].replace('-', '_')}_is_a_module", f"run {option}=mods/m2.kith main.kith", exit=70,
         given=MODULES, files={"{tmp}/mods/m2.kith": r"^let m2 = 2;\n$"}, stderr=(
             rf"^error: cannot import 'mods/m2.kith': it is the output file of {option}\n"
             r"  at <script> \([^\n]*main.kith:1\)\n"
             r"kith: mods/m2.kith: not written: the script imports it as a module\n$"))
# Two outputs on one path: refused before the run, by identity or by the normalized path.
case("cli.own.two_outputs_one_new_path", "run --trace=same.out --stats-file=same.out s.kith", exit=64,
     given=GIVEN_SCRIPT, files={"{tmp}/same.out": None}, stderr=(
         r"^kith: --stats-file=same.out and --trace=same.out are the same file\n"
         r"\(give each output a path of its own\)\n$"))
case("cli.own.two_outputs_one_file", "run --gc-pauses-file=p.out --frag-file=./p.out s.kith", exit=64,
     given={**GIVEN_SCRIPT, "{tmp}/p.out": EARLIER}, files={"{tmp}/p.out": EARLIER_KEPT},
     stderr=r"^kith: --gc-pauses-file=p.out and --frag-file=./p.out are the same file\n")
case("cli.own.two_outputs_one_path_through_dotdot", "run --stats-file=d/../x.json --frag-file=x.json s.kith",
     exit=64, given={**GIVEN_SCRIPT, "{tmp}/d/": ""}, files={"{tmp}/x.json": None},
     stderr=r"^kith: --stats-file=d/../x.json and --frag-file=x.json are the same file\n")
case("cli.own.two_outputs_standard_output", "run --trace=- --stats-file=- s.kith", exit=64, given=GIVEN_SCRIPT,
     stderr=r"^kith: --stats-file=- and --trace=- both write standard output\n")
# What replaces nothing may be shared.
case("cli.own.two_outputs_dev_null", "run --trace=/dev/null --stats-file=/dev/null s.kith", given=GIVEN_SCRIPT,
     stdout=r"^hi\n$")
# A refused run touches no file: an earlier output stays whole when a later one cannot be
# written, the trace is malformed, or the script does not compile.
case("cli.own.unwritable_output_keeps_an_earlier_file", "run --stats-file=prev.json --trace=missing/x s.kith",
     exit=73, given={**GIVEN_SCRIPT, "{tmp}/prev.json": EARLIER}, files={"{tmp}/prev.json": EARLIER_KEPT},
     stderr=r"^kith: missing/x: No such file or directory\n$")
case("cli.own.directory_output_keeps_an_earlier_file", "run --stats-file=prev.json --gc-pauses-file=adir s.kith",
     exit=73, given={**GIVEN_SCRIPT, "{tmp}/prev.json": EARLIER, "{tmp}/adir/": ""},
     files={"{tmp}/prev.json": EARLIER_KEPT}, stderr=r"^kith: adir: Is a directory\n$")
case("cli.own.malformed_trace_keeps_an_earlier_file", f"replay --stats-file=prev.json {FIXTURES}/cut_short.trace",
     exit=65, given={"{tmp}/prev.json": EARLIER}, files={"{tmp}/prev.json": EARLIER_KEPT}, stderr=CUT_SHORT)
case("cli.own.compile_error_keeps_an_earlier_file", "run --stats-file=prev.json --trace=new.trace bad.kith", exit=65,
     given={"{tmp}/bad.kith": "let = 1;\n", "{tmp}/prev.json": EARLIER},
     files={"{tmp}/prev.json": EARLIER_KEPT, "{tmp}/new.trace": None}, stderr=r"^bad.kith:1:5: error: ")
case("cli.own.unmappable_heap_keeps_an_earlier_file", "run --stats-file=prev.json --heap-size=16000000T s.kith",
     exit=64, given={**GIVEN_SCRIPT, "{tmp}/prev.json": EARLIER}, files={"{tmp}/prev.json": EARLIER_KEPT},
     stderr=r"^kith: --heap-size: cannot reserve a heap of [0-9]+ bytes: the system refused the mapping")
# A run that fails as it runs (exit 70) still writes its outputs: the statistics of a failed run.
case("cli.own.runtime_error_writes_the_outputs", "run --stats-file=prev.json fails.kith", exit=70,
     given={"{tmp}/fails.kith": "print(nil + 1);\n", "{tmp}/prev.json": EARLIER},
     files={"{tmp}/prev.json": r'^\{"policy": "estranged", '}, stderr=r"^error: unsupported operand types")

# Options (issue 40): an option without its value says so in the REPL too; --version and
# --help are suggested for their near misses; a size says why it is refused, and two
# spellings of one size are one value; --trace-format needs --trace.
for option in ("--heap-size", "--heap", "--gc", "--max-depth"):
    case(f"cli.own.repl_{option[2:].replace('-', '_')}_needs_a_value", f"repl {option}", exit=64, absent="<repl>",
         stderr=rf"^kith: {option} needs a value: {option}=VALUE or {option} VALUE\n\(see kith --help\)\n$")
for word, hint in (("--versio", "--version"), ("--verison", "--version"), ("--hepl", "--help"),
                   ("run --hepl", "--help")):
    case(f"cli.own.suggest_{word.replace(' ', '_').replace('-', '')}", word, exit=64,
         stderr=rf"^kith: unknown option[^\n]*{word.split()[-1]}'?\ndid you mean '{hint}'\?\n$")
for command, minimum in (("run", "16K"), ("replay", "16K"), ("bench contrived", "1M")):
    name = command.replace(" ", "_")
    operand = {"run": " x.kith", "replay": " x.trace"}.get(command, "")
    case(f"cli.own.{name}_heap_size_too_large", f"{command} --heap-size=99999999999T{operand}", exit=64,
         stderr=r"^kith: --heap-size is too large: '99999999999T' is more than 2\^64 - 1 bytes\n")
    case(f"cli.own.{name}_heap_size_zero", f"{command} --heap-size=0{operand}", exit=64,
         stderr=rf"^kith: --heap-size must be at least {minimum}; got '0'\n")
case("cli.own.one_size_two_spellings", f"run --heap-size=16K --heap-size=16384 --gc-threshold=0.5 --gc-threshold=.50 {FIB} 5",
     stdout=FIB_5)
case("cli.own.replay_one_size_two_spellings", f"replay --heap=tlsf --heap-size=1M --heap-size 1024K {FIXTURES}/small.txt",
     stdout="^" + SMALL_REPLAYED.format("tlsf") + "$")
# exec compares a repeated --heap-size as sizes, as run and replay do (it compared the text).
case("cli.own.exec_one_size_two_spellings", "exec --heap-size=1G --heap-size 1024M -- sh -c 'echo $KITH_HEAP_SIZE'",
     stdout=r"^1073741824\n$")
case("cli.own.exec_two_sizes_conflict", "exec --heap-size=1G --heap-size=512M -- true", exit=64,
     stderr=r"^kith: conflicting options: --heap-size=1G and --heap-size=512M \(give --heap-size once\)\n")
case("cli.own.trace_format_needs_a_trace", f"run --trace-format=text {FIB} 5", exit=64,
     stderr=r"^kith: --trace-format is the format of --trace's file; it needs --trace=PATH too\n")
# --- kith repl reading standard input (issue 40: items 11, 12, 14) ---------------------------
# The exit status is the last failed input's, as `kith run` would exit for it: 65 for a
# compile error, 70 for a runtime error (0 when none failed).
case("cli.repl_last_failure_runtime", "repl", stdin="{source}/tests/cli/repl_compile_then_runtime.txt", exit=70,
     stdout="^after both\n$", stderr=r"^<repl>:1:11: error: .*\nerror: unsupported operand types")
case("cli.repl_last_failure_compile", "repl", stdin="{source}/tests/cli/repl_runtime_then_compile.txt", exit=65,
     stdout="^after both\n$", stderr=r"^error: unsupported operand types.*\n<repl>:1:11: error: ")
# Input left unfinished at the end is a compile error, not dropped.
case("cli.repl_unfinished_at_end", "repl", stdin="{source}/tests/cli/repl_unfinished.txt", exit=65,
     stderr=r"^<repl>:3:1: error: [^\n]*found end of file\n")
# A block comment may span lines; one left open at the end is the lexer's error.
case("cli.repl_block_comment_lines", "repl", stdin="{source}/tests/cli/repl_block_comment.txt", exit=65,
     stdout="^2\nno /\\* comment here\n$", stderr=r"^<repl>:1:1: error: unterminated block comment\n")
# The echo shows every byte of a string, NUL too.
case("cli.repl_echo_nul", "repl", stdin="{source}/tests/cli/repl_nul_echo.txt", stdout="^a\x00b\n\\[x\x00y, 1\\]\n$")
# A full heap can be emptied: the inputs that fail for want of memory keep none of it
# (their constants are no roots), and an input runs without allocating.
case("cli.repl_full_heap_emptied", "repl --heap-size=16K", stdin="{source}/tests/cli/repl_full_heap.txt", exit=70,
     stdout=r"(^|\n)freed\n$", stderr=ANY)
# kith disasm: the whole listing after a NUL in a constant, and control characters escaped.
case("cli.disasm_control_bytes", "disasm {source}/tests/cli/scripts/control_bytes.kith",
     stdout=(r'CONSTANT +[0-9]+ "a\\0b"\n.*CONSTANT +[0-9]+ "\\u\{1B\}\[31mred\\u\{1B\}\[0m\\t\\r\\u\{7F\}\\u\{9B\}"\n'
             r'.*CONSTANT +[0-9]+ "after"\n'), absent="\x1b")

# --host-probe-ms: a bare clock loop before and after the script, the host's stalls in
# the statistics (docs/COLLECTORS.md); its value is a count of ms, and it reports only
# in the statistics, so without them it is refused.
for value in ("0", "-5", "x", "60001"):
    case(f"cli.host_probe_bad_value_{value.lstrip('-')}{'_negative' if value.startswith('-') else ''}",
         f"run --host-probe-ms={value} --stats {PRINTS_FIRST}", exit=64,
         stderr=rf"^kith: --host-probe-ms wants a number from 1 to 60000; got '{value}'\n[^\n]+\n$")
case("cli.host_probe_bad_value_empty", f"run --host-probe-ms= --stats {PRINTS_FIRST}", exit=64,
     stderr=r"^kith: --host-probe-ms needs a value; got an empty one\n[^\n]+\n$")
case("cli.host_probe_needs_statistics", f"run --host-probe-ms=5 {PRINTS_FIRST}", exit=64,
     stderr=r"^kith: --host-probe-ms reports in the statistics: [^\n]+\n[^\n]+\n$")
HOST_PROBE_GAPS = (r'"longest_gap_ms": [0-9.e+-]+, "gaps_over_100us": [0-9]+, '
                   r'"longest_cpu_gap_ms": [0-9.e+-]+, "cpu_gaps_over_100us": [0-9]+')
case("cli.host_probe_json", f"run --host-probe-ms=5 --stats=json {PRINTS_FIRST}", stdout=r"^the script ran\n$",
     stderr=(r'"vm": \{[^\n]*\},\n "host_probe": \{"ms": 5, ' + HOST_PROBE_GAPS + ', '
             r'"before": \{' + HOST_PROBE_GAPS + r', "readings": [1-9][0-9]*\}, '
             r'"after": \{' + HOST_PROBE_GAPS + r', "readings": [1-9][0-9]*\}\}\}\n$'))
case("cli.host_probe_table", f"run --host-probe-ms=2 --stats {PRINTS_FIRST}", stdout=ANY,
     stderr=(r"\nhost probe \(2 ms of a bare clock loop before and after\)\n"
             r"  before +longest gap [0-9.]+ ms, [0-9]+ gaps over 0.1 ms; by CPU time [0-9.]+ ms, [0-9]+\n"
             r"  after +longest gap [0-9.]+ ms, [0-9]+ gaps over 0.1 ms; by CPU time [0-9.]+ ms, [0-9]+\n$"))
case("cli.repl_host_probe_refused", "repl --host-probe-ms=5", exit=64,
     stderr=r"^kith: 'repl' writes no reports \([^\n]*--host-probe-ms\)[^\n]*\n[^\n]+\n$")
