"""`kith exec`'s command line (CLI.md): one row per case, run by tests/cli/run_case.py
(row format: tests/cli/cli_case.py). The checks that need the test programs, a side
effect or a comparison are in exec_check.py."""
from cli_case import ANY, case

HINT = r"\(see kith --help\)\n$"

case("exec.help", "exec --help", stdout=r"^usage:\n  kith exec \[OPTIONS\] -- COMMAND \[ARGS...\].*options of exec.*"
     r"--heap=POLICY.*--heap-size=SIZE.*--stats .*--stats=json.*--stats-file=PATH.*--trace=PATH.*--check.*"
     r"128\+N.*127.*126.*LD_PRELOAD=libkith_malloc.so KITH_HEAP=POLICY")
case("exec.in_help", "--help", stdout=r"kith exec \[OPTIONS\] -- COMMAND \[ARGS...\].*options of exec")
case("exec.misspelled_command", "exe -- true", exit=64, stderr=r"^kith: unknown command 'exe'\ndid you mean 'exec'\?\n$")

# Hostile inputs: nothing to run, nothing there, nothing runnable.
case("exec.no_command", "exec", exit=64,
     stderr=r"^kith: 'exec' needs a command to run: kith exec \[OPTIONS\] -- COMMAND \[ARGS...\]\n" + HINT)
case("exec.no_command_after_options", "exec --heap=tlsf --", exit=64, stderr=r"^kith: 'exec' needs a command to run")
case("exec.missing_command", "exec -- kith-no-such-command-here", exit=127,
     stderr=r"^kith: kith-no-such-command-here: command not found\n$")
case("exec.missing_path", "exec -- {tmp}/no/such/program", exit=127,
     stderr=r"^kith: [^\n]*/no/such/program: No such file or directory\n$")
case("exec.not_executable", "exec -- {source}/README.md", exit=126,
     stderr=r"^kith: [^\n]*README.md: Permission denied\n$")
case("exec.directory", "exec -- {source}", exit=126, stderr=r"^kith: [^\n]*: Permission denied\n$")

# COMMAND's end is kith's: its status, 128+N for signal N.
case("exec.exit_status", "exec -- sh -c 'exit 3'", exit=3)
case("exec.killed_by_term", "exec -- sh -c 'kill -TERM $$'", exit=143)
case("exec.killed_by_kill", "exec --heap=lea -- sh -c 'kill -KILL $$'", exit=137)
case("exec.arguments", "exec -- sh -c 'echo \"$0|$1|$2\"' a 'b c' --heap=knuth", stdout=r"^a\|b c\|--heap=knuth\n$")
case("exec.options_end_at_command", "exec --heap=tlsf sh -c 'echo $KITH_HEAP'", stdout=r"^tlsf\n$")
case("exec.environment", "exec --heap=lea --heap-size=64M -- sh -c 'echo $KITH_HEAP $KITH_HEAP_SIZE $LD_PRELOAD'",
     stdout=r"^lea 67108864 /[^ ]*/libkith_malloc\.so\n$")
case("exec.root_pid", "exec -- sh -c 'test $KITH_ROOT_PID = $$ && echo root'", stdout=r"^root\n$")

# Options checked before COMMAND runs.
case("exec.unknown_policy", "exec --heap=tslf -- true", exit=64,
     stderr=r"^kith: unknown heap policy 'tslf': no such policy; the policies a program can use are list, knuth, "
            r"estranged, tlsf, .*\ndid you mean 'tlsf'\?\n$")
case("exec.boehm_refused", "exec --heap=boehm -- true", exit=64,
     stderr=r"^kith: --heap=boehm cannot be a program's malloc: it collects garbage itself and never takes the "
            r"program's free\(\)[^\n]*\n" + HINT)
case("exec.nothing_refused", "exec --heap=nothing -- true", exit=64,
     stderr=r"^kith: --heap=nothing cannot be a program's malloc: it is the replay baseline[^\n]*\n" + HINT)
case("exec.misspelled_option", "exec --stast -- true", exit=64,
     stderr=r"^kith: unknown option for 'exec': --stast\ndid you mean '--stats'\?\n$")
case("exec.stats_value", "exec --stats=xml -- true", exit=64, stderr=r"^kith: --stats takes =json or nothing; got '--stats=xml'\n")
case("exec.stats_file_stdout", "exec --stats-file=- -- true", exit=64,
     stderr=r"^kith: --stats-file=- would mix into COMMAND's standard output; name a file \(or --stats=json: standard error\)\n")
case("exec.heap_size_small", "exec --heap-size=1K -- true", exit=64, stderr=r"^kith: --heap-size must be at least 16K; got '1K'\n")
case("exec.heap_size_malformed", "exec --heap-size=lots -- true", exit=64, stderr=r"^kith: --heap-size wants a size like")
case("exec.heap_size_unreservable", "exec --heap-size=4096T -- true", exit=64,
     stderr=r"^kith: --heap-size: cannot reserve a heap of 4503599627370496 bytes: the system refused the mapping")
case("exec.stats_file_unwritable", "exec --stats-file={tmp}/no/dir/s.json -- true", exit=73,
     stderr=r"^kith: [^\n]*/no/dir/s.json: No such file or directory\n$")
case("exec.trace_unwritable", "exec --trace={tmp}/no/dir/t.trace -- true", exit=73,
     stderr=r"^kith: [^\n]*/no/dir/t.trace: No such file or directory\n$")

# What the processes write.
case("exec.stats_json", "exec --heap=tlsf --stats=json -- sh -c 'exit 0'", stderr=(
    r'^\{"policy": "tlsf", "heap_size": 1073741824, "check": false,\n "process": \{"pid": [0-9]+, "command": "sh", '
    r'"peak_rss_bytes": [0-9]+\},\n "heap": \{"allocations": [0-9]+, "frees": [0-9]+, .*"satisfied": \{"immediate": .*'
    r'"steps": \{"malloc": .*"reallocs": \{"in_place": [0-9]+, "moved": [0-9]+\}, "aligned_requests": [0-9]+, '
    r'"peak_requested_bytes": [0-9]+, "memory_consumption_bytes": [0-9]+, "arena_resident_bytes": [0-9]+\}\}\n$'))
case("exec.stats_table", "exec --stats -- sh -c 'exit 0'", stderr=(
    r"^kith exec: process [0-9]+ \(sh\), policy estranged, heap 1073741824 bytes\nheap\n  allocations .*"
    r"  reallocs            [0-9]+ in place, [0-9]+ moved\n  aligned requests    [0-9]+\n"
    r"  peak requested      [0-9]+ bytes live, as the program asked for them\n"
    r"  memory consumption  [0-9]+ bytes, the highest arena offset a block reached \([0-9]+ bytes of the arena "
    r"resident at exit\) \(peak RSS [0-9]+ bytes\)\n$"))
case("exec.stats_malloc_policy", "exec --heap=malloc --stats=json -- sh -c 'exit 0'",
     stderr=r'"policy": "malloc".*"memory_consumption_bytes": null, "arena_resident_bytes": null\}\}\n$')
case("exec.stats_file", "exec --heap=knuth --stats-file={tmp}/s.json -- sh -c 'exit 0'",
     files={"{tmp}/s.json": r'^\{"policy": "knuth".*"command": "sh".*"memory_consumption_bytes": [0-9]+, "arena_resident_bytes": [0-9]+\}\}\n$'})
case("exec.stats_at_exit_when_stderr_closed", "exec --stats=json -- ls {source}/README.md",
     stdout=r"README.md\n$", stderr=r'"command": "ls"')
case("exec.trace_text", "exec --heap=tlsf --trace={tmp}/t.txt -- sh -c 'exit 0'",
     files={"{tmp}/t.txt": r"^# kith-trace 1\n(A [0-9]+ [0-9]+ [0-9]+\n|F [0-9]+ [0-9]+\n)+"})
# A realloc is recorded as what it was: R in place, M moved (heap/trace/trace_text.h).
case("exec.trace_reallocs", "exec --heap=tlsf --trace={tmp}/t.txt -- perl -e '$s .= \"x\" x 100 for 1 .. 200; print length $s'",
     stdout=r"^20000$", files={"{tmp}/t.txt": r"(?s)^# kith-trace 1\n(?=.*\nR [0-9]+ [0-9]+ [0-9]+\n)(?=.*\nM [0-9]+ [0-9]+ [0-9]+\n)"})
case("exec.by_hand_refused_policy", "exec -- env KITH_HEAP=boehm sh -c 'echo unreached'", exit=64,
     stderr=r"^kith: KITH_HEAP=boehm: it collects garbage itself")
# --heap=malloc with nothing to count, record or check is glibc alone: nothing preloaded
# (braces doubled: the row is a format string for {tmp} and {source}).
case("exec.malloc_bare", "exec --heap=malloc -- sh -c 'echo ${{LD_PRELOAD:-nothing preloaded}}'",
     stdout=r"^nothing preloaded\n$")
case("exec.malloc_counted", "exec --heap=malloc --stats-file={tmp}/s.json -- sh -c 'echo $LD_PRELOAD'",
     stdout=r"^/[^ ]*/libkith_malloc\.so\n$", files={"{tmp}/s.json": r'"policy": "malloc"'})

# A user's files (docs/RELIABILITY.md): an output that is another output or a file COMMAND is
# given is refused before COMMAND runs (64), and an earlier file is replaced only by a whole one
# (preload/whole_file.h): not emptied by the check before COMMAND runs, nor when COMMAND cannot run.
case("exec.own.two_outputs_one_file", "exec --stats-file={tmp}/s.out --trace={tmp}/./s.out -- true", exit=64,
     stderr=r"^kith: --stats-file=[^\n]*s.out and --trace=[^\n]*s.out are the same file\n", files={"{tmp}/s.out": None})
case("exec.own.output_is_an_argument", "exec --stats-file={tmp}/data.txt -- sort {tmp}/data.txt", exit=64,
     given={"{tmp}/data.txt": "b\na\n"}, files={"{tmp}/data.txt": r"^b\na\n$"},
     stderr=r"^kith: --stats-file=[^\n]*data.txt is an argument of COMMAND '[^\n]*data.txt': the output would replace it\n")
case("exec.own.output_is_the_program", "exec --trace={tmp}/prog.sh -- {tmp}/prog.sh", exit=64,
     given={"{tmp}/prog.sh": "#!/bin/sh\n"}, files={"{tmp}/prog.sh": r"^#!/bin/sh\n$"},
     stderr=r"^kith: --trace=[^\n]*prog.sh is the program '[^\n]*prog.sh': the output would replace it\n")
case("exec.own.earlier_stats_kept_when_command_missing", "exec --stats-file={tmp}/prev.json -- {tmp}/no/such/program",
     exit=127, given={"{tmp}/prev.json": "earlier\n"}, files={"{tmp}/prev.json": r"^earlier\n$"}, stderr=ANY)
case("exec.own.stats_replaced_whole", "exec --stats-file={tmp}/prev.json -- true",
     given={"{tmp}/prev.json": "earlier\n"}, files={"{tmp}/prev.json": r'^\{"policy": "estranged"'})
