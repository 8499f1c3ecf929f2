"""Running a list of runs as separate processes, N at a time, with a progress line."""

import os
import shutil
import signal
import subprocess
import sys
import time

from . import run_commits
from . import run_command
from .common import TIMEOUT_EXIT, format_duration, warn

class Progress:
    def __init__(self, enabled):
        self.enabled = enabled
        self.start = time.monotonic()
        self.done = 0
        self.durations = {}
        self.last = 0

    def finished(self, run, seconds):
        self.done += 1
        self.durations.setdefault(run.kind, []).append(seconds)

    def mean(self, kind):
        d = self.durations.get(kind) or [x for v in self.durations.values() for x in v]
        return sum(d) / len(d) if d else None

    def show(self, pending, running, extra, jobs, label):
        if not self.enabled:
            return
        now = time.monotonic()
        if now - self.last < 0.2 and pending:
            return
        self.last = now
        work = 0.0
        known = True
        for r in list(pending) + list(running):
            m = self.mean(r.kind)
            if m is None:
                known = False
                break
            work += m
        m = self.mean("minheap") or self.mean("main")
        if m is not None:
            work += extra * m
        total = self.done + len(pending) + len(running) + extra
        eta = f"ETA ~{format_duration(work / max(jobs, 1))}" if known and self.done else "ETA ?"
        line = (f"[{self.done:>5}/{total:<5}] {100 * self.done // max(total, 1):>3}%  "
                f"elapsed {format_duration(now - self.start)}  {eta}  {label}")
        cols = shutil.get_terminal_size((100, 20)).columns
        sys.stderr.write("\r\x1b[K" + line[:cols - 1])
        sys.stderr.flush()

    def end(self):
        if self.enabled:
            sys.stderr.write("\r\x1b[K")
            sys.stderr.flush()


STOP_SIGNALS = {signal.SIGINT, signal.SIGTERM, signal.SIGHUP}


def unblock_stop_signals():
    """In a run's child, before exec: the mask it inherits holds the stop signals
    (execute blocks them while it starts a run); the run must receive them."""
    signal.pthread_sigmask(signal.SIG_UNBLOCK, STOP_SIGNALS)


def execute(runs, out_dir, kith, jobs, timing_jobs, progress, extra, log, commit):
    """Runs `runs`, `jobs` at a time, those that are not timed first (in order, so
    probes and instrumented runs share the cores while nothing is timed); a timing run
    never runs beside more than timing_jobs - 1 others (default 1: alone), a pause run
    beside none. Each run's build (`commit`) goes to its .commit file, and then its exit
    code to its .rc file, last."""
    pending = sorted(runs, key=lambda r: r.timing)
    running = []  # (run, process, start, log file)
    failures = []
    for kind in {r.kind for r in runs}:
        os.makedirs(os.path.join(out_dir, "runs", kind), exist_ok=True)

    def can_start(r):
        n = len(running)
        if n >= jobs:
            return False
        if r.exclusive or any(x[0].exclusive for x in running):
            return n == 0
        if r.timing or any(x[0].timing for x in running):
            return n < timing_jobs
        return True

    def finish(item, rc):
        r, proc, start, logf = item
        logf.close()
        seconds = time.monotonic() - start
        run_commits.write(os.path.join(out_dir, "runs", r.kind, r.id), commit)
        rc_path = os.path.join(out_dir, r.path("rc"))
        with open(rc_path + ".tmp", "w") as f:  # whole or not at all: an .rc is what marks a run done
            f.write(f"{rc}\n")
        os.replace(rc_path + ".tmp", rc_path)
        progress.finished(r, seconds)
        if rc != 0 and r.kind in ("main", "pauses", "contrived", "power"):
            failures.append((r, rc))
            progress.end()
            warn(f"{r.id} exited {rc} (see {os.path.join(out_dir, r.path('log'))})")
        log.append(r)

    # The stop signals are held off but while the loop sleeps: arriving in the bookkeeping
    # (between a child's reaping and its .rc, or halfway through writing one), a stop left
    # an empty .rc that read as a failed run, so --resume never redid it (seen in CI in
    # test_driver's Signals test), or a reaped child for the clean-up to kill.
    held = signal.pthread_sigmask(signal.SIG_BLOCK, STOP_SIGNALS)
    try:
        while pending or running:
            while pending and can_start(pending[0]):
                r = pending.pop(0)
                for ext in ("json", "pauses", "log", run_commits.EXTENSION, "rc"):  # an unreadable .rc too
                    try:
                        os.remove(os.path.join(out_dir, r.path(ext)))
                    except FileNotFoundError:
                        pass
                # (Held off, a stop cannot fall between the fork and the append either, which
                # left a child nobody killed, running on after the study exited.)
                if r.kind == "contrived":
                    logf = open(os.path.join(out_dir, r.path("json")), "w")
                    errf = open(os.path.join(out_dir, r.path("log")), "w")
                else:
                    logf = open(os.path.join(out_dir, r.path("log")), "w")
                    errf = subprocess.STDOUT
                proc = subprocess.Popen(run_command.argv(r, kith), cwd=out_dir, stdout=logf, stderr=errf,
                                        stdin=subprocess.DEVNULL, start_new_session=True,
                                        preexec_fn=unblock_stop_signals)
                if errf is not subprocess.STDOUT:
                    errf.close()
                running.append((r, proc, time.monotonic(), logf))
            label = ""
            if running:
                last = running[-1][0]
                label = (f"{last.kind} {last.heap >> 20}M" if last.kind == "contrived" else
                         f"{last.kind} {last.workload} {last.policy}/{last.collector}")
            progress.show(pending, [x[0] for x in running], extra, jobs, label)
            signal.pthread_sigmask(signal.SIG_SETMASK, held)
            try:
                time.sleep(0.02)  # where a stop is taken
            finally:
                signal.pthread_sigmask(signal.SIG_BLOCK, STOP_SIGNALS)
            for item in list(running):
                r, proc, start, _ = item
                rc = proc.poll()
                if rc is None and r.timeout and time.monotonic() - start > r.timeout:
                    os.killpg(proc.pid, signal.SIGKILL)
                    proc.wait()
                    rc = TIMEOUT_EXIT
                if rc is not None:
                    running.remove(item)
                    finish(item, rc if rc >= 0 else 128 - rc)
    except KeyboardInterrupt:  # SIGINT, and SIGTERM and SIGHUP (__main__.Stopped)
        for sig in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP):
            signal.signal(sig, signal.SIG_IGN)  # a second signal must not stop the clean-up halfway
        for r, proc, _, logf in running:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()
            logf.close()
        progress.end()
        warn("interrupted; finished runs are kept (continue with --resume)")
        raise
    finally:
        signal.pthread_sigmask(signal.SIG_SETMASK, held)
    progress.end()
    return failures
