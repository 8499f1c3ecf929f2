"""A study run on a real cluster engine, Slurm (Debian `slurm-wlm`, `munge`): a one-node
cluster on localhost (munged, slurmctld and slurmd with a throwaway key, configuration and
state under a temporary directory, ports chosen at run time) runs the tiny study of
test_gnu_parallel.py round after round: `kith study --plan` into plan.txt, the sbatch line
of docs/RUNNING_THE_STUDY.md (read from the document, /scratch/runs replaced by the
batch directory), `kith study --merge`; the merged minheap.csv and satisfied.csv must
equal a local study's. When the engine cannot start (a program missing, not root, munge
or a daemon failing, the node never ready) it prints `SKIP: <why>` and exits 77; once
the node is ready every failure is a failure (exit 1).
Run as root: /usr/bin/python3 test_slurm.py (CTest: study.slurm)."""

import ctypes
import os
import re
import shlex
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time

from test_gnu_parallel import plan_run_merge

HERE = os.path.dirname(os.path.abspath(__file__))
DOC = os.path.join(HERE, "..", "..", "docs", "RUNNING_THE_STUDY.md")
SKIP = 77
PROGRAMS = ("mungekey", "munged", "slurmctld", "slurmd", "sbatch", "sinfo")
READY_S = 60  # how long the node may take to register and be idle


class Skip(Exception):
    """The engine cannot start here: the reason, in one line."""


def documented_sbatch():
    """The sbatch line of the document's Slurm example, so the test runs what users read."""
    with open(DOC) as f:
        lines = [line.strip() for line in f if line.strip().startswith("sbatch ")]
    if len(lines) != 1 or "/scratch/runs" not in lines[0]:
        sys.exit(f"FAIL: {DOC} should have one `sbatch ...` line that runs in /scratch/runs, has {lines}")
    return lines[0]


def free_port():
    """A TCP port free now on localhost (the kernel's choice; taken again by a daemon at once)."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def slurm_conf(tmp, munge_socket):
    cpus = len(os.sched_getaffinity(0))  # at most what the machine has, so the node is never drained for it
    state = {name: os.path.join(tmp, name) for name in ("state", "spool")}
    for d in state.values():
        os.makedirs(d, mode=0o700)
    return "\n".join([
        "ClusterName=kithtest",
        "SlurmctldHost=localhost",
        f"SlurmctldPort={free_port()}",
        f"SlurmdPort={free_port()}",
        "SlurmUser=root",
        "SlurmdUser=root",
        "AuthType=auth/munge",
        "CredType=cred/munge",
        f"AuthInfo=socket={munge_socket}",
        f"StateSaveLocation={state['state']}",
        f"SlurmdSpoolDir={state['spool']}",
        f"SlurmctldPidFile={tmp}/slurmctld.pid",
        f"SlurmdPidFile={tmp}/slurmd.pid",
        f"SlurmctldLogFile={tmp}/slurmctld.log",
        f"SlurmdLogFile={tmp}/slurmd.log",
        "ProctrackType=proctrack/linuxproc",  # no cgroups: a container may not have them
        "TaskPlugin=task/none",
        "JobAcctGatherType=jobacct_gather/none",
        "AccountingStorageType=accounting_storage/none",
        "JobCompType=jobcomp/none",
        "MpiDefault=none",
        "SwitchType=switch/none",
        "SelectType=select/cons_tres",
        "SelectTypeParameters=CR_CPU",  # one CPU per task, so the array's tasks run side by side
        "ReturnToService=2",
        # A tiny study's runs take milliseconds: schedule the next one at once (not 3 s later),
        # and keep finished jobs so `sbatch --wait` polls every 2 s (not 2, 8, 32 s) without a race.
        "SchedulerParameters=batch_sched_delay=0",
        "MinJobAge=0",
        "MailProg=/bin/true",
        f"NodeName=localhost NodeAddr=127.0.0.1 CPUs={cpus} State=UNKNOWN",
        "PartitionName=debug Nodes=localhost Default=YES MaxTime=INFINITE State=UP",
        ""])


def die_with_parent():
    """In a daemon's child before exec: SIGTERM when the test dies, even by SIGKILL (a CTest
    timeout), so no daemon outlives it."""
    PR_SET_PDEATHSIG = 1
    ctypes.CDLL(None, use_errno=True).prctl(PR_SET_PDEATHSIG, signal.SIGTERM)


def last_words(*paths):
    """A daemon's last error (else last line) from its log file, else from its own output."""
    for path in paths:
        try:
            with open(path, errors="replace") as f:
                lines = [line.strip() for line in f if line.strip()]
        except OSError:
            continue
        errors = [line for line in lines if "error" in line.lower() or "fatal" in line.lower()]
        if errors or lines:
            return (errors or lines)[-1]
    return "it wrote nothing"


class Cluster:
    """munged, slurmctld and slurmd in the foreground, each in its own process group."""

    def __init__(self, tmp):
        self.tmp = tmp
        self.daemons = []  # (name, Popen, (log file, its stdout and stderr))
        self.conf = os.path.join(tmp, "slurm.conf")
        self.env = dict(os.environ, SLURM_CONF=self.conf)

    def start(self, name, argv, log):
        output = os.path.join(self.tmp, name + ".out")
        out = open(output, "w")
        try:
            p = subprocess.Popen(argv, stdout=out, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL,
                                 env=self.env, start_new_session=True, preexec_fn=die_with_parent)
        finally:
            out.close()
        self.daemons.append((name, p, (log, output)))

    def check_alive(self):
        for name, p, logs in self.daemons:
            if p.poll() is not None:
                raise Skip(f"{name} exited {p.returncode}: {last_words(*logs)}")

    def up(self):
        path = os.environ.get("PATH", "") + ":/usr/sbin:/sbin"  # the daemons' sbin, often not in a user's PATH
        self.programs = {p: shutil.which(p, path=path) for p in PROGRAMS}
        missing = [p for p, found in self.programs.items() if not found]
        if missing:
            raise Skip(f"{', '.join(missing)} not installed (Debian packages slurm-wlm and munge; "
                       "scripts/setup installs them)")
        self.env["PATH"] = os.path.dirname(self.programs["sbatch"]) + os.pathsep + self.env.get("PATH", "")
        if os.geteuid() != 0:
            raise Skip(f"not root (uid {os.geteuid()}): slurmd must run as root to start jobs")
        key, sock = os.path.join(self.tmp, "munge.key"), os.path.join(self.tmp, "munge.socket")
        p = subprocess.run([self.programs["mungekey"], "--create", f"--keyfile={key}"],
                           capture_output=True, text=True)
        if p.returncode != 0:
            raise Skip(f"mungekey failed: {p.stderr.strip()}")
        munge_log = os.path.join(self.tmp, "munged.log")
        self.start("munged", [self.programs["munged"], "--foreground", "--force", f"--socket={sock}",
                              f"--key-file={key}", f"--log-file={munge_log}", f"--pid-file={self.tmp}/munged.pid",
                              f"--seed-file={self.tmp}/munged.seed"], munge_log)
        self.wait_for(lambda: os.path.exists(sock), "munged never made its socket")
        with open(self.conf, "w") as f:
            f.write(slurm_conf(self.tmp, sock))
        self.start("slurmctld", [self.programs["slurmctld"], "-D", "-c", "-f", self.conf],
                   os.path.join(self.tmp, "slurmctld.log"))
        self.start("slurmd", [self.programs["slurmd"], "-D", "-N", "localhost", "-f", self.conf],
                   os.path.join(self.tmp, "slurmd.log"))
        self.wait_for(self.node_idle, "the node never became idle in sinfo", lambda: f"it is {self.node_state}; ")

    def node_idle(self):
        p = subprocess.run([self.programs["sinfo"], "-h", "-N", "-o", "%T"], capture_output=True, text=True,
                           env=self.env)
        self.node_state = p.stdout.strip() if p.returncode == 0 else "unknown, sinfo failed"
        return self.node_state == "idle"

    def wait_for(self, ready, why, state=lambda: ""):
        deadline = time.monotonic() + READY_S
        while not ready():
            self.check_alive()
            if time.monotonic() > deadline:
                logs = "; ".join(f"{name}: {last_words(*logs)}" for name, _, logs in self.daemons)
                raise Skip(f"{why} within {READY_S} s ({state()}{logs})")
            time.sleep(0.2)

    def stop(self):
        """Each daemon's whole group (slurmctld's slurmscriptd too), even where the daemon has exited."""
        for signum in (signal.SIGTERM, signal.SIGKILL):
            for _, p, _ in reversed(self.daemons):
                try:
                    os.killpg(p.pid, signum)
                except ProcessLookupError:
                    pass
            for _, p, _ in reversed(self.daemons):
                try:
                    p.wait(timeout=10)
                except subprocess.TimeoutExpired:
                    pass
            if all(p.poll() is not None for _, p, _ in self.daemons):
                return


def run_array(commands, batch, sbatch_line, env):
    """One round: the plan in BATCH/plan.txt, one array task per line, waited for."""
    with open(os.path.join(batch, "plan.txt"), "w") as f:
        f.write(commands)
    n = len(commands.splitlines())
    # In a process group of its own, killed if the test stops early: sbatch --wait outlives
    # its controller, polling.
    p = subprocess.Popen(["/bin/sh", "-c", sbatch_line], cwd=batch, env=dict(env, n=str(n)), text=True,
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE, start_new_session=True)
    try:
        out, err = p.communicate()
    finally:
        if p.poll() is None:
            os.killpg(p.pid, signal.SIGKILL)
            p.wait()
    if p.returncode != 0:
        sys.exit(f"FAIL: `{sbatch_line}` with n={n} exited {p.returncode}:\n{out}{err}")
    if not re.match(r"Submitted batch job \d+", out):
        sys.exit(f"FAIL: sbatch said {out!r}")
    return n


def main():
    sbatch_line = documented_sbatch()
    signal.signal(signal.SIGTERM, lambda *_: sys.exit("FAIL: terminated"))  # the finally below stops the daemons
    tmp = tempfile.mkdtemp(prefix="kith-study-slurm-")
    cluster = Cluster(tmp)
    try:
        try:
            cluster.up()
        except Skip as why:
            print(f"SKIP: {why}")
            return SKIP
        return plan_run_merge(tmp, lambda commands, batch: run_array(
            commands, batch, sbatch_line.replace("/scratch/runs", shlex.quote(batch)), cluster.env),
            "as Slurm array tasks")
    finally:
        cluster.stop()
        shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
