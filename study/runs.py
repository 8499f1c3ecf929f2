"""The runs of a study and their files: what every other module of the study names a run by.

A run is one process; its id (kind__workload__argset__policy__collector__h<heap>__r<repeat>
[__m<multiple>]) names everything the results need, and its files live under
DIR/runs/<kind>/<id>.{json,log,pauses,rc,...}; it is done once its .rc (exit code) exists.
This module only names runs and reads their files: which runs a study makes is plan.py's,
the command a run is run_command.py's. It imports no other module of the study but the
leaves common.py and run_json.py, so any module may import it."""

import os
from typing import Any

from . import run_json
from .common import KINDS, TIMED_KINDS, open_regular


class Run:
    """One process of the study. Its id names everything the results need; script, args
    and timeout are set by the plan (Study.make) for the runs it is about to run."""

    def __init__(self, kind: str, workload: str = "-", argset: str = "-", policy: str = "-",
                 collector: str = "-", heap: int = 0, repeat: int = 0, multiple: float | None = None) -> None:
        self.kind, self.workload, self.argset = kind, workload, argset
        self.policy, self.collector, self.heap, self.repeat = policy, collector, int(heap), int(repeat)
        self.multiple = multiple
        self.timeout: int | None = None
        self.script: str | None = None
        self.args: list[str] = []

    @property
    def id(self) -> str:
        parts = [self.kind, self.workload, self.argset, self.policy, self.collector, f"h{self.heap}",
                 f"r{self.repeat}"]
        if self.multiple is not None:
            parts.append(f"m{self.multiple:g}")
        return "__".join(parts)

    @staticmethod
    def parse(run_id: str) -> "Run | None":
        """The run an id names, or None when it names none (another file under runs/)."""
        parts = run_id.split("__")
        if len(parts) not in (7, 8) or parts[0] not in KINDS:
            return None
        try:
            r = Run(parts[0], parts[1], parts[2], parts[3], parts[4], int(parts[5][1:]), int(parts[6][1:]))
            if len(parts) == 8:
                r.multiple = float(parts[7][1:])
        except ValueError:
            return None
        return r

    @property
    def timing(self) -> bool:
        """Whether the run's wall time is a result: then no other run runs beside it (by
        default; --timing-jobs). Minimum-heap probes only ask "does it fit?", and
        instrumented or simulated runs (trace, cost) count rather than time."""
        return self.kind in TIMED_KINDS

    @property
    def exclusive(self) -> bool:
        """Pause runs measure latency: another run beside them would preempt their slices
        (a slice preempted by the scheduler counts as GC time)."""
        return self.kind == "pauses"

    @property
    def pacing(self) -> str:
        if self.collector != "continuous":
            return ""
        return "time" if self.kind == "pauses" else "work"

    def path(self, ext: str) -> str:
        """runs/<kind>/<id>.<ext>, relative to the study directory."""
        return os.path.join("runs", self.kind, f"{self.id}.{ext}")


def run_files(out_dir: str) -> dict[str, int]:
    """{run id: exit code} of every finished run under out_dir/runs."""
    done: dict[str, int] = {}
    runs_dir = os.path.join(out_dir, "runs")
    if not os.path.isdir(runs_dir):
        return done
    for kind in os.listdir(runs_dir):
        d = os.path.join(runs_dir, kind)
        if not os.path.isdir(d):
            continue
        for name in os.listdir(d):
            if name.endswith(".rc"):
                try:  # an empty .rc (a writer stopped before its number) is a run not done
                    with open_regular(os.path.join(d, name)) as f:
                        done[name[:-3]] = int(f.read().strip())
                except (OSError, ValueError):
                    pass
    return done


def load_stats(out_dir: str, run: Run) -> dict[str, Any] | None:
    """The run's JSON, or None when there is none or its numbers cannot be counted
    (run_json.py; the analysis names such a run when it exited 0)."""
    data, why = run_json.read(os.path.join(out_dir, run.path("json")), run.kind)
    return data if why is None else None
