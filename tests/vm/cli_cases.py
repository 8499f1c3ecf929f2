"""kith run's contract: exit codes 65 / 66 / 70 / 64, the stack trace format, the collectors'
flags, --gc-log and the JSON gc block, and the examples small enough to run as tests.
One case() a test; the row's fields and how its patterns are read: tests/cli/cli_case.py."""
import re

from cli_case import ANY, case

CASES = "{source}/tests/vm/cases"
EXAMPLES = "{source}/examples"
BINARY_TREES = f"{EXAMPLES}/binary_trees.kith"

case("vm.cli.compile_error", f"run {CASES}/compile_errors.kith", exit=65, stderr=(
    r"^[^\n]*compile_errors.kith:1:9: error: expected an expression, found ';'\n"
    r"    let x = ;\n            \^\n"
    r"[^\n]*compile_errors.kith:2:16: error: 'a' is already declared in this scope\n"
    r"    let a = 1; let a = 2;\n                   \^\n$"))
case("vm.cli.runtime_error", f"run {CASES}/runtime_error.kith", exit=70, output=(
    r"^before\nerror: cannot read property 'x' of nil\n  at inner \([^\n]*runtime_error.kith:2\)\n"
    r"  at Outer.call \([^\n]*runtime_error.kith:4\)\n  at <script> \([^\n]*runtime_error.kith:7\)\n$"))
# An error inside a fused instruction (vm/peephole.cpp) names the line of the operation's own part.
FUSED = f"{CASES}/fused_error_lines.kith"
for which, message, line in [("property", "P has no field or method 'missing'", 7),
                             ("pair", "P has no field or method 'missing'", 12),
                             ("store", "P has no field or method 'missing'", 18),
                             ("index", "index 5 out of bounds for length 1", 23),
                             ("operand", "unsupported operand types for *: int and nil", 29),
                             ("locals", "cannot compare int and nil with '<='", 34),
                             ("literal", "cannot compare string and int with '>'", 38),
                             ("constant", "cannot compare string and float with '>'", 42)]:
    case(f"vm.cli.fused_error_line_{which}", f"run {FUSED} {which}", exit=70, stderr=(
        rf"^error: {re.escape(message)}\n  at {which} \([^\n]*fused_error_lines.kith:{line}\)\n"))
# boehm ignores --gc with a note, printed after the run so the error stays stderr's first line.
case("vm.cli.boehm_gc_note_after_error", f"run --heap=boehm --gc=none {CASES}/runtime_error.kith", exit=70,
     stdout=ANY, stderr=r"^error: cannot read property 'x' of nil\n.*kith: note: --heap=boehm collects garbage itself[^\n]*\n$")
case("vm.cli.missing_script", "run /nonexistent/x.kith", exit=66, stderr=r"^kith: cannot read '/nonexistent/x.kith': [^\n]+\n$")
case("vm.cli.unknown_policy", "run --heap=nosuch x.kith", exit=64,
     stderr=r"^kith: unknown heap policy 'nosuch'; valid: list, knuth, estranged[^\n]*\n([^\n]+\n)?$")
case("vm.cli.exit_code", f"{CASES}/exit_code.kith", exit=3, stdout=r"^bye\n$")
case("vm.cli.stats_json", f"run --stats=json {CASES}/exit_code.kith", exit=3, stdout=ANY, stderr=(
    r'"policy": "estranged".*"heap": \{"allocations": [0-9]+.*"satisfied": \{"immediate".*"gc": \{"cycles": 0'
    r'.*"handle_table": \{"bytes": [0-9]+.*"vm": \{"instructions": [0-9]+, "objects_created": [0-9]+, "wall_s"'))
case("vm.cli.disasm", f"disasm {CASES}/exit_code.kith", stdout=r"== <script> .*0000    1 GET_GLOBAL")
# .txt: the text format.
case("vm.cli.trace", f"run --trace={{tmp}}/exit_code.trace.txt {CASES}/exit_code.kith", exit=3, stdout=ANY,
     files={"{tmp}/exit_code.trace.txt": r"^# kith-trace 1\nA 0 0 [0-9]+\n"})

# The collectors behind --gc (gc/): flags, the --gc-log line, the JSON gc block.
for flag in ["--gc=bogus", "--gc-threshold=0", "--gc-threshold=1.5", "--gc-threshold=x", "--gc-step=0",
             "--gc-step=many"]:
    case(f"vm.cli.bad_flag{re.sub('[^a-z0-9]+', '_', flag)}", f"run {flag} {CASES}/exit_code.kith", exit=64,
         stderr=r"^kith: [^\n]+\n([^\n]+\n)?$")
case("vm.cli.gc_log_occasional", f"run --gc=occasional --gc-log --heap-size=1M {BINARY_TREES} 10", stdout=ANY, stderr=(
    r"^\[[0-9]+\.[0-9][0-9][0-9]s\]\[info\]\[gc\] GC\(0\) Pause Full \((Heap Occupancy|Allocation Failure)\) "
    r"[0-9]+K->[0-9]+K\(1024K\) [0-9]+\.[0-9][0-9][0-9]ms \(cpu [0-9]+\.[0-9][0-9][0-9]ms\)\n"))
case("vm.cli.gc_log_continuous", f"run --gc=continuous --gc-log --heap-size=1M {BINARY_TREES} 10", stdout=ANY, stderr=(
    r"^\[[0-9]+\.[0-9][0-9][0-9]s\]\[info\]\[gc\] GC\(0\) Incremental Cycle \(Heap Occupancy\) [0-9]+K->[0-9]+K\(1024K\) "
    r"[0-9]+ slices [0-9.]+ms \(longest [0-9.]+ms\) cpu [0-9.]+ms \(longest [0-9.]+ms\) in [0-9.]+ms"))
case("vm.cli.stats_json_continuous", f"run --gc=continuous --stats=json --heap-size=1M {BINARY_TREES} 10",
     stdout=ANY, stderr=(
         r'"collector": "continuous".*"gc": \{"cycles": [1-9][0-9]*, "objects_freed": [1-9][0-9]*, "bytes_freed": [1-9][0-9]*, '
         r'"pause_ms": \{"total": [0-9.e+-]+, "mean": [0-9.e+-]+, "p99": [0-9.e+-]+, "max": [0-9.e+-]+\}, '
         r'"pause_cpu_ms": \{"total": [0-9.e+-]+, "mean": [0-9.e+-]+, "p99": [0-9.e+-]+, "max": [0-9.e+-]+\},\n'
         r'  "mmu": \{"1ms": [0-9.e+-]+, "10ms": [0-9.e+-]+, "100ms": [0-9.e+-]+\}, '
         r'"mmu_cpu": \{"1ms": [0-9.e+-]+, "10ms": [0-9.e+-]+, "100ms": [0-9.e+-]+\},\n'
         r'  "host_gap": \{"max_ms": [0-9.e+-]+, "pauses_long_by_host": [0-9]+\}, "forced_completions": [0-9]+'))

# The examples, small enough to run as tests.
case("vm.example.fib", f"{EXAMPLES}/fib.kith 20", stdout=r"^fib\(20\) = 6765\n")
case("vm.example.method_calls", f"{EXAMPLES}/method_calls.kith 1000", stdout=r"Counter: 249500 \(expected 249500\) ok")
case("vm.example.binary_trees", f"{BINARY_TREES} 6", stdout=(
    r"^stretch tree of depth 7\t check: 255\n64\t trees of depth 4\t check: 1984\n16\t trees of depth 6\t check: 2032\n"
    r"long lived tree of depth 6\t check: 127\n$"))
# binary_trees at depth 10 in a 1M heap: only a collector that frees makes it fit.
for collector in ["occasional", "continuous"]:
    case(f"vm.example.binary_trees_1M_{collector}", f"run --gc={collector} --heap-size=1M {BINARY_TREES} 10",
         stdout=r"long lived tree of depth 10\t check: 2047\n$")

# Traces fold: a 10,000-deep recursion is four lines, not 10,001.
case("vm.cli.trace_folds_repeats", f"run {CASES}/endless_recursion.kith", exit=70, stderr=(
    r"^error: stack overflow\n  at down \([^\n]*endless_recursion.kith:2\)\n"
    r"  \.\.\. repeated 9998 more times\n  at <script> \([^\n]*endless_recursion.kith:3\)\n$"))
case("vm.cli.trace_keeps_first_and_last_fifty", f"run {CASES}/mutual_recursion.kith", exit=70, stderr=(
    r"^error: stack overflow\n(  at p(i|o)ng \([^\n]*\)\n){50}  \.\.\. 9900 frames omitted\n"
    r"(  at p(i|o)ng \([^\n]*\)\n){49}  at <script> \([^\n]*mutual_recursion.kith:5\)\n$"))
# Two blocks left open end at one place: one error there, not two.
case("vm.cli.one_error_per_place", f"run {CASES}/two_unclosed_blocks.kith", exit=65, stderr=(
    r"^[^\n]*two_unclosed_blocks.kith:4:1: error: expected '}' after the block, found end of file\n$"))
case("vm.cli.byte_order_mark_skipped", f"run {CASES}/byte_order_mark.kith", stdout=r"^after a byte-order mark\n$")
# Only regular files are source: a device could give bytes without end.
case("vm.cli.device_is_not_a_script", "run /dev/zero", exit=66,
     stderr=r"^kith: cannot read '/dev/zero': not a regular file\n$")
# A failed request is one X event in the trace, however often the gate retried it.
case("vm.cli.trace_one_failure_event", "run --trace={tmp}/huge.txt " + CASES + "/huge_array.kith", exit=70,
     stderr=r"^error: out of memory: requested 800000024 bytes\n",
     files={"{tmp}/huge.txt": r"^(?!(?:.*\nX ){2}).*\nX [0-9]+ 800000024\n"})
# When not even the preallocated error could be made, the report still names the failure.
case("vm.cli.fail_every_allocation", f"run --fail-alloc-every=1 {CASES}/exit_code.kith", exit=70,
     stderr=r"^error: out of memory: requested [0-9]+ bytes\n$")
# An uncaught Error subclass is named on the line after the message.
case("vm.cli.error_subclass_named", f"run {CASES}/error_subclass.kith", exit=70, stderr=(
    r"^error: bad token\n  thrown as ParseError\n  at parse \([^\n]*error_subclass.kith:3\)\n"
    r"  at <script> \([^\n]*error_subclass.kith:4\)\n$"))
