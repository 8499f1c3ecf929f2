"""The command line's contract (CLI.md): exit codes, messages, reports. One case() a test;
the row's fields and how its patterns are read: cli_case.py. Exit codes are sysexits:
64 usage, 65 malformed input, 66 missing input, 70 runtime error, 73 cannot write."""
from cli_case import ANY, case

EXAMPLES = "{source}/examples"
FIXTURES = "{source}/tests/replay/fixtures"  # traces: heap/trace/trace.h; unit tests in tests/replay
BINARY_TREES = f"{EXAMPLES}/binary_trees.kith"

# Bad usage: one line "kith: WHAT IS WRONG" on stderr, at most a hint line after it, exit 64.
USAGE_ERROR = r"^kith: [^\n]+\n([^\n]+\n)?$"
# A policy whose library this build lacks (jemalloc, mimalloc) is a note on stderr.
POLICY_NOTES = r"^(kith: note: (jemalloc|mimalloc) is not in this build: [^\n]+\n)*$"
MISSING_TRACE = r"^kith: cannot read trace '/nonexistent/run.trace': No such file or directory\n$"
DOUBLE_FREE = r"^kith: [^\n]*double_free.txt: line 4: free of object 0, which is not live \(freed twice\?\)\n$"
CUT_SHORT = r"^kith: [^\n]*cut_short.trace: offset 12: the trace ends without its end marker \(cut short\?\)\n$"
SMALL_REPLAYED = r"replayed 6 events on {} in [0-9.]+ s \([0-9.]+M events/s\): 3 allocations \(0 failed here\), 2 frees\n"

case("cli.help", "--help", stdout=r"kith policies.*bench contrived.*bench defrag")
case("cli.help_replay", "--help", stdout=(
    r"kith replay \[OPTIONS\] TRACE.*kith trace dump TRACE.*--trace=PATH.*--trace-format=F.*options of replay:"
    r".*--heap=POLICY.*--heap-size=SIZE.*--pretouch.*--stats-file=PATH.*--stop-on-failure.*65 malformed trace.*66 missing"))
case("cli.version", "--version", stdout=r"^kith [0-9]+\.[0-9]+\.[0-9]+")
case("cli.policies", "policies", stderr=POLICY_NOTES, stdout=(
    r"^list .*\nknuth .*\nestranged .*\ntlsf .*\nkingsley .*\nlea .*\nvelox .*\nmedius .*\ndefero .*\n"
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
case("cli.replay_stdin", "replay --heap=knuth -", stdin=f"{FIXTURES}/small.txt",
     stdout="^" + SMALL_REPLAYED.format("knuth") + "$")
# --stats=json: CLI.md's heap block and a replay block, no gc or vm block.
case("cli.replay_json", f"replay --heap=list --heap-size=1M --stats=json {FIXTURES}/small.txt", stdout=ANY,
     absent=r'"gc"|"vm"', stderr=(
         r'^\{"policy": "list", "heap_size": 1048576, "trace": "[^"]*small.txt",\n "heap": \{"allocations": 3, "frees": 2, '
         r'.*"satisfied": \{"immediate": [0-9]+, "split": [0-9]+, "glue": [0-9]+, "defrag": [0-9]+, "failed": 0\}'
         r'.* "replay": \{"format": "text", "events": 6, .*"recorded_failures": 1, "failed_allocations": 0, .*\}\}\n$'))
# --bare: the policy alone, nothing counted, so the statistics say so instead of a heap block of zeros.
case("cli.replay_bare_json", f"replay --bare --heap=knuth --heap-size=1M --stats=json {FIXTURES}/small.txt",
     stdout=ANY, absent=r'"heap":', stderr=(
         r'^\{"policy": "knuth", "heap_size": 1048576, "trace": "[^"]*small.txt",\n "bare": true,\n'
         r' "replay": \{"format": "text", "events": 6, "allocations": 3, "frees": 2, .*\}\}\n$'))
case("cli.replay_stats_table", f"replay --heap=lea --stats {FIXTURES}/small.txt", stdout=ANY,
     stderr=r"^--- kith replay statistics ---\npolicy +lea .*\nallocations +3 .*satisfied +immediate .*\nreplay +6 events")
# A request the policy cannot meet: counted, the replay goes on (exit 0) ...
case("cli.replay_failure_counted", f"replay --heap=estranged --heap-size=64K --stats=json {FIXTURES}/too_big.txt",
     output=r'^replayed 3 events on estranged .*: 3 allocations \(1 failed here\), 0 frees\n.*"failed_allocations": 1, .*$')
# ... unless --stop-on-failure: exit 70, naming where.
case("cli.replay_stop_on_failure", f"replay --heap=tlsf --heap-size=64K --stop-on-failure {FIXTURES}/too_big.txt",
     exit=70, output=(
         r"^replayed 2 events on tlsf .*\nkith: [^\n]*too_big.txt: line 3: --heap=tlsf could not satisfy the allocation "
         r"of 1000000 bytes; replay stopped \(--stop-on-failure\)\n$"))
case("cli.replay_stats_file_unwritable", f"replay --stats-file=/nonexistent/s.json {FIXTURES}/small.txt", exit=73,
     stdout=ANY, stderr=r"^kith: cannot write statistics to '/nonexistent/s.json'\n$")
# trace dump: a text trace comes back as the same events (comments dropped).
case("cli.trace_dump", f"trace dump {FIXTURES}/small.txt",
     stdout=r"^# kith-trace 1\nA 0 0 24\nA 1 1 48\nF 2 0\nX 3 100000000\nA 4 2 4096\nF 5 1\n$")
case("cli.run_trace_unwritable", f"run --trace=/nonexistent/t.trace {EXAMPLES}/fib.kith", exit=73,
     stderr=r"^kith: cannot write trace '/nonexistent/t.trace': No such file or directory\n$")

# Object demographics: kith trace lifetimes and kith run --frag-file (heap/trace/object_lifetimes.h,
# gc/fragmentation_log.h); demographics_check.py compares them with the run they describe.
case("cli.trace_lifetimes_json", f"trace lifetimes --json {FIXTURES}/small.txt", stdout=(
    r'^\{"objects": 3, "freed": 2, "freed_bytes": 72, "live_at_end": 1, "live_at_end_bytes": 4096, "failed": 1, '
    r'"bytes_allocated": 4168,\n "histogram": \[\{"age_bytes_le": 48, "objects": 1, "bytes": 24\},\n'
    r'  \{"age_bytes_le": 4096, "objects": 1, "bytes": 48\}\]\}\n$'))
case("cli.trace_lifetimes_malformed", f"trace lifetimes {FIXTURES}/double_free.txt", exit=65, stderr=DOUBLE_FREE)
case("cli.trace_lifetimes_missing", "trace lifetimes /nonexistent/run.trace", exit=66, stderr=MISSING_TRACE)
case("cli.frag_file_unwritable", f"run --frag-file=/nonexistent/f.tsv {EXAMPLES}/fib.kith", exit=73,
     stderr=r"^kith: cannot write fragmentation samples to '/nonexistent/f.tsv': No such file or directory\n$")

# kith repl with standard input not a terminal: lines without prompts, each input's value
# or error in order, the session and its globals surviving errors, and `exit` ending it.
REPL_SESSION = "{source}/tests/cli/repl_session.txt"
case("cli.repl_stdin", "repl --heap=knuth", stdin=REPL_SESSION, output=(
    r"^3\n82\nprinted\nerror: unsupported operand types for \+: int and nil\n  at <script> \(<repl>:1\)\n42\n"
    r"<repl>:1:11: error: expected ';' after the variable declaration, found '2'\n[^\n]*\n[^\n]*\n"
    r"knuth\ntext;\n$"))
case("cli.repl_gc_option", "repl --heap=tlsf --gc=none", stdin=REPL_SESSION, stdout=r"\ntlsf\n", stderr=ANY)
case("cli.repl_system_exit", "repl", stdin="{source}/tests/cli/repl_exit_code.txt", exit=3, stdout="^before\n$")
case("cli.repl_script_refused", "repl x.kith", exit=64, stderr=USAGE_ERROR)
case("cli.repl_reports_refused", "repl --stats", exit=64, stderr=USAGE_ERROR)
case("cli.repl_help", "repl --help", stdout=r"^usage: kith repl \[OPTIONS\]")
case("cli.repl_in_help", "--help", stdout=r"kith repl \[OPTIONS\]")
