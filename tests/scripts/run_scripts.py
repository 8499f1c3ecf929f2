#!/usr/bin/env python3
"""Run Kith test scripts that state their expected output in comments.

usage: run_scripts.py KITH [--heap=POLICY ...] [--gc=COLLECTOR ...] [--jobs N]
                      [--timeout SECONDS] PATHS... [-- EXTRA KITH RUN FLAGS]
       run_scripts.py KITH --self-test [FIXTURE_DIR]

Every script under PATHS (files, or directories searched recursively for *.kith) runs
once per (heap, collector) pair: `KITH run --heap=H [--gc=C] [EXTRA...] SCRIPT`.
Without --heap, every policy `KITH policies` lists is used; without --gc, the VM's
default collector. A requested policy the binary does not list is skipped (if nothing
is left to run, the exit code is 77, CTest's usual "skipped").

The expectation format is LANGUAGE.md's ("Tests in this language"), read as
/work/shared/hooks/expect-run.py reads it:
  // expect: TEXT                 one per stdout line, in order (exact match)
  // expect runtime error: MSG    stderr's first line is `error: MSG`, exit 70
  // expect compile error: MSG    MSG is part of stderr, exit 65, stdout empty
                                  (several such lines: each must appear)
  // kith-flags: FLAGS              run flags this script needs (e.g. --heap-size=256K),
                                  added after the configuration's, whose own value of the
                                  same option they replace (kith refuses two values)
  // kith-needs-collector           skipped under --gc=none (the script relies on
                                  collections to fit its heap)
  // kith-not-on: POLICY ...        skipped on these heap policies (say why beside it)
  // kith-not-with: FLAG ...        skipped when a run flag starts with one of these
                                  (e.g. --gc-stress: a script about natural collections)
Otherwise the script must exit 0. A file whose first line starts with `// module:` is
a module that tests import, not a test itself, and is skipped when searching folders. A run over --timeout seconds (default 60) fails.

Prints one line per failure and a closing `N passed, M failed` line (`, K skipped`
when some were); exit 1 on any
failure, else 0.

--self-test runs the fixture scripts (default: ../scripts_fixtures next to this file).
A fixture whose first line is `// self-test: must fail` carries a wrong expectation on
purpose; the check passes only if the runner reports it as a failure. Fixtures marked
`// self-test: must pass` are right and must pass (so a runner that fails everything
does not pass its own test). Exit 0 if every fixture came out as marked.
"""
import concurrent.futures
import os
import re
import subprocess
import sys

EXIT_COMPILE_ERROR = 65
EXIT_RUNTIME_ERROR = 70
EXIT_SKIPPED = 77

EXPECT_OUTPUT = re.compile(r"// expect: ?(.*)$")
EXPECT_RUNTIME_ERROR = re.compile(r"// expect runtime error: (.+)$")
EXPECT_COMPILE_ERROR = re.compile(r"// expect compile error: (.+)$")
SCRIPT_FLAGS = re.compile(r"^// kith-flags: (.+)$")
NEEDS_COLLECTOR = "// kith-needs-collector"
NOT_ON = re.compile(r"^// kith-not-on: (.+)$")
NOT_WITH = re.compile(r"^// kith-not-with: (.+)$")
SKIPPED = "skipped"

# Names `kith policies` may print that are collectors, not heap policies.
COLLECTOR_NAMES = {"occasional", "continuous", "none"}
FALLBACK_POLICIES = ["list", "knuth", "estranged", "tlsf", "kingsley", "lea", "malloc"]


class Expectation:
    def __init__(self, path):
        self.output, self.runtime_error, self.compile_errors = [], None, []
        self.flags = []  # `// kith-flags: --heap-size=256K ...`: run flags this script needs
        self.needs_collector = False  # skipped under --gc=none (it fills a small heap)
        self.not_on = []  # heap policies the script is skipped on
        self.not_with = []  # run flag prefixes the script is skipped under
        with open(path, encoding="utf-8") as f:
            for line in f:
                line = line.rstrip("\n")
                if line.startswith(NEEDS_COLLECTOR):
                    self.needs_collector = True
                    continue
                m = NOT_ON.search(line)
                if m:
                    self.not_on += m.group(1).split()
                    continue
                m = NOT_WITH.search(line)
                if m:
                    self.not_with += [w for w in m.group(1).split() if w.startswith("--")]
                    continue
                m = SCRIPT_FLAGS.search(line)
                if m:
                    self.flags += m.group(1).split()
                    continue
                m = EXPECT_OUTPUT.search(line)
                if m:
                    self.output.append(m.group(1))
                    continue
                m = EXPECT_RUNTIME_ERROR.search(line)
                if m:
                    self.runtime_error = m.group(1)
                    continue
                m = EXPECT_COMPILE_ERROR.search(line)
                if m:
                    self.compile_errors.append(m.group(1))


    def skipped_with(self, flags):
        return any(flag.startswith(prefix) for flag in flags for prefix in self.not_with)


def first_difference(got, want):
    for i, (a, b) in enumerate(zip(got, want)):
        if a != b:
            return f"stdout line {i + 1}: got {a!r}, want {b!r}"
    if len(got) != len(want):
        extra = f"; next got line {got[len(want)]!r}" if len(got) > len(want) else ""
        return f"got {len(got)} stdout lines, want {len(want)}{extra}"
    return None


def check(kith, path, flags, timeout):
    """Runs one script; returns None if it met its expectations, else why not."""
    try:
        want = Expectation(path)
    except (OSError, UnicodeDecodeError) as e:
        return f"cannot read script: {e}"
    if want.needs_collector and "--gc=none" in flags:
        return SKIPPED
    if any(f"--heap={policy}" in flags for policy in want.not_on):
        return SKIPPED
    if want.skipped_with(flags):
        return SKIPPED
    own = {flag.split("=", 1)[0] for flag in want.flags}
    flags = [flag for flag in flags if flag.split("=", 1)[0] not in own]
    try:
        p = subprocess.run([kith, "run", *flags, *want.flags, path], capture_output=True, timeout=timeout)
    except subprocess.TimeoutExpired:
        return f"timeout after {timeout} s"
    except OSError as e:
        return f"cannot run {kith}: {e}"
    stdout = p.stdout.decode("utf-8", errors="replace")
    stderr = p.stderr.decode("utf-8", errors="replace")
    got = stdout.splitlines()
    stderr_head = stderr.strip()[:300]
    if p.returncode < 0:
        return f"killed by signal {-p.returncode}: {stderr_head!r}"

    if want.compile_errors:
        if p.returncode != EXIT_COMPILE_ERROR:
            return f"want compile error exit {EXIT_COMPILE_ERROR}, got exit {p.returncode}: {stderr_head!r}"
        for message in want.compile_errors:
            if message not in stderr:
                return f"want compile error containing {message!r}, got {stderr_head!r}"
        if got:
            return f"compile error but stdout has output: {got[0]!r}"
        return None

    if want.runtime_error is not None:
        first = stderr.splitlines()[0] if stderr else ""
        if p.returncode != EXIT_RUNTIME_ERROR or first != "error: " + want.runtime_error:
            return (f"want runtime error {want.runtime_error!r} exit {EXIT_RUNTIME_ERROR}, "
                    f"got exit {p.returncode}: {first!r}")
    elif p.returncode != 0:
        return f"exit {p.returncode}: {stderr_head!r}"
    return first_difference(got, want.output)


MODULE_MARKER = "// module:"


def is_module(path):
    """A file whose first line starts with `// module:` is imported by tests, not one."""
    with open(path, encoding="utf-8", errors="replace") as f:
        return f.readline().startswith(MODULE_MARKER)


def collect(paths):
    files = []
    for t in paths:
        if os.path.isdir(t):
            for root, dirs, names in os.walk(t):
                dirs.sort()
                files += [os.path.join(root, n) for n in sorted(names)
                          if n.endswith(".kith") and not is_module(os.path.join(root, n))]
        elif os.path.isfile(t):
            files.append(t)
        else:
            sys.exit(f"run_scripts.py: no such file or directory: {t}")
    return sorted(files)


def listed_policies(kith):
    """Heap policy names from `KITH policies` (first word of each line)."""
    try:
        p = subprocess.run([kith, "policies"], capture_output=True, text=True, timeout=60)
    except (OSError, subprocess.TimeoutExpired):
        return None
    if p.returncode != 0:
        return None
    names = []
    for line in p.stdout.splitlines():
        words = line.split()
        if not words or line[0].isspace():
            continue
        name = words[0].rstrip(":")
        if name in ("heap", "policy") and len(words) > 1:
            name = words[1]
        if name in ("gc", "collector", "collectors") or name in COLLECTOR_NAMES:
            continue
        if re.fullmatch(r"[a-z][a-z0-9_-]*", name):
            names.append(name)
    return names or None


def run_all(kith, files, configs, jobs, timeout):
    passed = failed = skipped = 0
    work = [(f, flags) for flags in configs for f in files]
    with concurrent.futures.ThreadPoolExecutor(max_workers=max(1, jobs)) as pool:
        futures = [pool.submit(check, kith, f, flags, timeout) for f, flags in work]
        for (f, flags), fut in zip(work, futures):
            err = fut.result()
            if err == SKIPPED:
                skipped += 1
            elif err:
                failed += 1
                print(f"FAIL {f} [{' '.join(flags)}]: {err}", flush=True)
            else:
                passed += 1
    return passed, failed, skipped


def self_test(kith, fixture_dir, timeout):
    files = collect([fixture_dir])
    if not files:
        print(f"self-test: no fixtures in {fixture_dir}")
        return 1
    bad = 0
    for f in files:
        with open(f, encoding="utf-8") as fh:
            marker = fh.readline().strip()
        if marker not in ("// self-test: must fail", "// self-test: must pass"):
            print(f"self-test: {f}: first line must be '// self-test: must fail' or '... must pass'")
            bad += 1
            continue
        err = check(kith, f, [], timeout)
        must_fail = marker.endswith("must fail")
        if must_fail and err is None:
            print(f"self-test FAIL {f}: a wrong expectation was not caught")
            bad += 1
        elif not must_fail and err is not None:
            print(f"self-test FAIL {f}: a right expectation was rejected: {err}")
            bad += 1
        else:
            print(f"self-test ok {f}: {'caught: ' + err if err else 'passed'}")
    print(f"{len(files) - bad} passed, {bad} failed")
    return 1 if bad else 0


def main(argv):
    extra = []
    if "--" in argv:
        i = argv.index("--")
        argv, extra = argv[:i], argv[i + 1:]
    if not argv or argv[0] in ("-h", "--help"):
        print(__doc__)
        return 0 if argv else 64
    kith, rest = argv[0], argv[1:]
    heaps, gcs, paths = [], [], []
    jobs, timeout, selftest = 2, 60.0, False
    it = iter(rest)
    for a in it:
        if a.startswith("--heap="):
            heaps.append(a[len("--heap="):])
        elif a.startswith("--gc="):
            gcs.append(a[len("--gc="):])
        elif a == "--jobs" or a == "--timeout":
            value = next(it, None)
            if value is None:
                sys.exit(f"run_scripts.py: {a} needs a value")
            if a == "--jobs":
                jobs = int(value)
            else:
                timeout = float(value)
        elif a.startswith("--jobs="):
            jobs = int(a[len("--jobs="):])
        elif a.startswith("--timeout="):
            timeout = float(a[len("--timeout="):])
        elif a == "--self-test":
            selftest = True
        elif a.startswith("--"):
            sys.exit(f"run_scripts.py: unknown option {a} (kith flags go after --)")
        else:
            paths.append(a)

    if selftest:
        here = os.path.dirname(os.path.abspath(__file__))
        fixture_dir = paths[0] if paths else os.path.join(here, "..", "scripts_fixtures")
        return self_test(kith, fixture_dir, timeout)
    if not paths:
        sys.exit("run_scripts.py: no scripts given")
    files = collect(paths)

    available = listed_policies(kith)
    if heaps:
        if available is not None:
            missing = [h for h in heaps if h not in available]
            for h in missing:
                print(f"SKIP heap {h}: not listed by `{kith} policies`")
            heaps = [h for h in heaps if h not in missing]
            if not heaps:
                return EXIT_SKIPPED
    else:
        heaps = available or FALLBACK_POLICIES
    configs = [[f"--heap={h}"] + ([f"--gc={g}"] if g else []) + extra
               for h in heaps for g in (gcs or [None])]
    passed, failed, skipped = run_all(kith, files, configs, jobs, timeout)
    print(f"{passed} passed, {failed} failed" + (f", {skipped} skipped" if skipped else ""))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
