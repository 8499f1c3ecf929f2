#!/usr/bin/env python3
"""Checks of how kith's outputs treat the files already there (docs/RELIABILITY.md,
"A user's files") that a case row cannot express: no temporary file is left by any
way a run ends (done, refused, a write that fails, killed by a signal), a file
replaced keeps its mode and a symbolic link stays a link, and a read-only file is
not replaced.

usage: user_files_check.py KITH SOURCE_DIR
Prints "ok", or one line per failed check (exit 1).
"""
import os
import resource
import signal
import stat
import subprocess
import sys
import tempfile
import time

EARLIER = '{"earlier": true}\n'


def run(kith, args, cwd, **kwargs):
    return subprocess.run([kith] + args, cwd=cwd, stdin=subprocess.DEVNULL, capture_output=True, text=True, **kwargs)


def write(path, text):
    with open(path, "w") as f:
        f.write(text)


def read(path):
    with open(path) as f:
        return f.read()


def leftovers(directory):
    """The temporary files an output left in `directory` (cli/output_file.h names them .NAME.kith-XXXXXX)."""
    return sorted(name for name in os.listdir(directory) if ".kith-" in name)


def check_no_temporary_left(kith, scripts, failures):
    """Every way a run ends that returns: done, refused before the run, a compile error."""
    quiet = os.path.join(scripts, "allocates_quietly.kith")
    outputs = ["--stats-file=s.json", "--trace=t.bin", "--gc-pauses-file=p.txt", "--frag-file=f.tsv"]
    for what, args, code in [("a run that ends", outputs + [quiet], 0),
                             ("a run refused for an output", outputs + ["--trace=missing/x", quiet], 73),
                             ("a compile error", outputs + ["bad.kith"], 65)]:
        with tempfile.TemporaryDirectory() as tmp:
            write(os.path.join(tmp, "bad.kith"), "let = 1;\n")
            if what == "a run refused for an output":
                args = [a for a in args if a != "--trace=t.bin"]
            p = run(kith, args, tmp)
            if p.returncode != code or leftovers(tmp):
                failures.append(f"{what}: exit {p.returncode} (expected {code}), left {leftovers(tmp)}: {p.stderr!r}")


def limit_file_size(ignore_signal):
    """For the child: files may grow to 2 KiB; past it a write fails (SIGXFSZ ignored) or the signal kills."""
    def limit():
        resource.setrlimit(resource.RLIMIT_FSIZE, (2048, 2048))
        if ignore_signal:
            signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
    return limit


def check_failed_write(kith, scripts, failures):
    """A trace that grows past the file size limit: the earlier trace stays, nothing is left."""
    quiet = os.path.join(scripts, "allocates_quietly.kith")
    for ignore_signal, expected in [(True, 73), (False, -signal.SIGXFSZ)]:
        with tempfile.TemporaryDirectory() as tmp:
            write(os.path.join(tmp, "t.txt"), "# kith-trace 1\n")
            p = run(kith, ["--trace=t.txt", "--stats-file=s.json", quiet], tmp,
                    preexec_fn=limit_file_size(ignore_signal))
            how = "failing with EFBIG" if ignore_signal else "killed by SIGXFSZ"
            # stdio may lose the reason of a write its buffer made: GNU's "write error" then.
            message_ok = not ignore_signal or p.stderr in ("kith: t.txt: File too large\n", "kith: t.txt: write error\n")
            kept = read(os.path.join(tmp, "t.txt")) == "# kith-trace 1\n"
            if p.returncode != expected or not message_ok or not kept or leftovers(tmp):
                failures.append(f"a trace write {how}: exit {p.returncode} (expected {expected}), stderr {p.stderr!r}, "
                                f"earlier trace kept: {kept}, left {leftovers(tmp)}")


def check_terminated(kith, failures):
    """SIGTERM while the script runs: the earlier file stays, and no temporary file is left."""
    with tempfile.TemporaryDirectory() as tmp:
        write(os.path.join(tmp, "endless.kith"), "while (true) {}\n")
        write(os.path.join(tmp, "s.json"), EARLIER)
        p = subprocess.Popen([kith, "--stats-file=s.json", "endless.kith"], cwd=tmp, stdin=subprocess.DEVNULL,
                             stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        deadline = time.monotonic() + 60
        while not leftovers(tmp) and time.monotonic() < deadline and p.poll() is None:
            time.sleep(0.01)  # until the output is readied (the script then loops)
        p.send_signal(signal.SIGTERM)
        code = p.wait()
        if code != -signal.SIGTERM or read(os.path.join(tmp, "s.json")) != EARLIER or leftovers(tmp):
            failures.append(f"SIGTERM: exit {code} (expected {-signal.SIGTERM}), earlier file "
                            f"{read(os.path.join(tmp, 's.json'))!r}, left {leftovers(tmp)}")


def check_mode_and_links(kith, scripts, failures):
    script = os.path.join(scripts, "prints_first.kith")
    with tempfile.TemporaryDirectory() as tmp:
        write(os.path.join(tmp, "kept.json"), EARLIER)
        os.chmod(os.path.join(tmp, "kept.json"), 0o640)
        write(os.path.join(tmp, "target.json"), EARLIER)
        os.symlink("target.json", os.path.join(tmp, "link.json"))
        old_mask = os.umask(0o022)
        try:
            p = run(kith, ["--stats-file=kept.json", "--trace=new.bin", "--frag-file=link.json", script], tmp)
        finally:
            os.umask(old_mask)
        mode = lambda name: stat.S_IMODE(os.stat(os.path.join(tmp, name)).st_mode)  # noqa: E731
        if p.returncode != 0:
            failures.append(f"modes and links: exit {p.returncode}: {p.stderr!r}")
            return
        if (mode("kept.json"), mode("new.bin")) != (0o640, 0o644):
            failures.append(f"modes: a replaced file {oct(mode('kept.json'))} (expected 0o640), "
                            f"a new one {oct(mode('new.bin'))} (expected 0o644 under umask 022)")
        if not os.path.islink(os.path.join(tmp, "link.json")) or not read(os.path.join(tmp, "target.json")).startswith("# kith-frag"):
            failures.append("a symbolic link output: the link was replaced, or its target not written")


def check_read_only(kith, scripts, failures):
    """A read-only file is not replaced; a writable file in a directory that takes no new
    file is written where it is. Root may write anything: checked only for other users."""
    if os.geteuid() == 0:
        return
    script = os.path.join(scripts, "prints_first.kith")
    with tempfile.TemporaryDirectory() as tmp:
        write(os.path.join(tmp, "ro.json"), EARLIER)
        os.chmod(os.path.join(tmp, "ro.json"), 0o444)
        p = run(kith, ["--stats-file=ro.json", script], tmp)
        if p.returncode != 73 or p.stderr != "kith: ro.json: Permission denied\n" or read(os.path.join(tmp, "ro.json")) != EARLIER:
            failures.append(f"a read-only file: exit {p.returncode}, stderr {p.stderr!r}")
        fixed = os.path.join(tmp, "fixed")
        os.mkdir(fixed)
        write(os.path.join(fixed, "s.json"), EARLIER * 200)  # longer than the statistics: cut to length
        os.chmod(fixed, 0o555)
        try:
            p = run(kith, ["--stats-file=fixed/s.json", script], tmp)
            text = read(os.path.join(fixed, "s.json"))
        finally:
            os.chmod(fixed, 0o755)
        if p.returncode != 0 or not text.startswith('{"policy"') or not text.endswith("}\n"):
            failures.append(f"a file in a read-only directory: exit {p.returncode}, {p.stderr!r}, text ends {text[-40:]!r}")


def main():
    kith, source = os.path.abspath(sys.argv[1]), os.path.abspath(sys.argv[2])
    scripts = os.path.join(source, "tests/cli/scripts")
    failures = []
    check_no_temporary_left(kith, scripts, failures)
    check_failed_write(kith, scripts, failures)
    check_terminated(kith, failures)
    check_mode_and_links(kith, scripts, failures)
    check_read_only(kith, scripts, failures)
    print("\n".join(failures) if failures else "ok")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
