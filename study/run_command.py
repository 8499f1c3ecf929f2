"""The command of a run: the argv runner.py executes, and the shell line --plan prints.

Most runs are a `kith run` of a workload with the study's flags; a few kinds are other
commands, made by the module of that kind (alloc_cost.replay_argv: a trace replayed,
whole_run.measure_argv: a run under cachegrind)."""

import shlex

from . import alloc_cost
from . import demographics
from . import whole_run
from .common import SOURCES_KINDS, TIMERS_OFF_KINDS
from .runs import Run


def argv(run: Run, kith: str) -> list[str]:
    """The run's command, its paths relative to the study directory (where it runs)."""
    if run.kind == "contrived":
        return [kith, "bench", "contrived", "--json", f"--heap-size={run.heap}"]
    if run.kind in ("cost", "replay"):
        return alloc_cost.replay_argv(run, kith)  # replays of a trace run's trace
    assert run.script is not None, f"{run.id}: a workload's run made by the plan (Study.make)"
    # --pretouch: no run pays first-touch page faults, so times measure the allocator.
    command = [kith, "run", f"--heap={run.policy}", f"--gc={run.collector}", f"--heap-size={run.heap}",
               "--pretouch"]
    if run.collector == "continuous":
        command.append(f"--gc-pacing={run.pacing}")
    if run.kind in TIMERS_OFF_KINDS:
        command.append("--stats-timers=off")  # counts without two clock reads per malloc and free
    command.append(f"--stats-sources={'on' if run.kind in SOURCES_KINDS else 'off'}")
    if run.kind == "demog":
        command += demographics.run_options(run)  # --frag-file, and --trace on estranged
    if run.kind == "pauses":
        command.append(f"--gc-pauses-file={run.path('pauses')}")
    if run.kind == "trace":
        command += [f"--trace={run.path('trace')}", "--trace-format=binary"]  # timers on: the latency run
    if run.kind == whole_run.KIND:  # a main run under cachegrind, which adds the --stats-file
        return whole_run.measure_argv(run, command + [run.script] + list(run.args))
    command.append(f"--stats-file={run.path('json')}")
    return command + [run.script] + list(run.args)


def shell_command(run: Run, kith: str, commit: str) -> str:
    """One self-contained line: run it in any directory, then --merge that directory. The
    build (`commit`, of `kith`) goes to the run's .commit before its .rc, as runner.execute
    writes them."""
    q = shlex.quote
    timeout = f"timeout {int(run.timeout)} " if run.timeout else ""
    line = " ".join(q(a) for a in argv(run, kith))
    if run.kind == "contrived":
        redirect = f">{q(run.path('json'))} 2>{q(run.path('log'))}"
    else:
        redirect = f">{q(run.path('log'))} 2>&1"
    return (f"mkdir -p runs/{run.kind} && {timeout}{line} {redirect}; "
            f"rc=$?; echo {q(commit)} >{q(run.path('commit'))}; echo $rc >{q(run.path('rc'))}")
