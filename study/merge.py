"""`kith study --merge DIR...`: folds run files made elsewhere (--plan's commands, run on
a cluster) into the study's directory, and never loses or silently changes a result.

Every run found under DIR (by its .rc file) is checked before it is copied: its .rc must
hold an integer exit code and, for a run that exited 0, its JSON must be what the
analysis reads (run_json.py: the statistics' keys for kith runs, an object for the
others; every number finite and of its kind). A run
that is already finished in the study's directory with different files is refused and
the finished one kept; one with the same files is already there. Runs of workloads,
policies, collectors, sizes or kinds the study does not have are skipped. Each run's
files are copied with its .rc last, so a run counts as done only once complete; its
.commit (the build that ran it) comes along, or says it was not recorded."""

import filecmp
import os
import shutil

from . import alloc_cost
from . import run_commits
from .common import is_regular, open_regular
from . import demographics
from . import power
from . import run_json
from .runs import Run

EXTENSIONS = ("json", "log", "pauses", "frag", "trace", "lifetimes.json", "rc")  # .rc last


class Outcome:
    def __init__(self):
        self.merged = 0
        self.present = 0  # already in the study's directory, identical
        self.skipped = {}  # reason: count (runs the study does not have)
        self.refused = []  # (path, reason): a broken run, or one that conflicts with a finished run

    def summary(self):
        text = f"merged {self.merged} runs"
        if self.present:
            text += f" ({self.present} more already there, identical)"
        parts = [f"{n} {why}" for why, n in sorted(self.skipped.items())]
        parts += [f"refused {path}: {why}" for path, why in self.refused]
        skipped = sum(self.skipped.values()) + len(self.refused)
        return text + (f"; skipped {skipped}: " + "; ".join(parts) if skipped else "")


def check_run(root, run):
    """Why the run's files under root are broken, or None."""
    for ext in EXTENSIONS + (run_commits.EXTENSION,):
        path = os.path.join(root, f"{run.id}.{ext}")
        if os.path.lexists(path) and not is_regular(path):
            return f"its .{ext} is not a regular file"
    try:
        with open_regular(os.path.join(root, f"{run.id}.rc")) as f:
            rc = int(f.read().strip())
    except (OSError, UnicodeDecodeError):
        return "its .rc cannot be read"
    except ValueError:
        return "its .rc is not an integer exit code"
    if rc != 0:
        return None  # a failed run: its exit code is the result; its JSON, if any, is not read as counts
    return run_json.read(os.path.join(root, f"{run.id}.json"), run.kind)[1]


def not_in_study(run, config):
    """Why the study has no such run, or None."""
    if run.kind not in config["experiments"]:
        return f"of kind {run.kind}, not in --experiments"
    if run.kind == "contrived":
        return None
    if run.workload not in config["workload_names"]:
        return "of workloads not in the suite or --workloads"
    if run.argset != config["argset"] and not power.merges(run, config):
        return "of other sizes than --sizes"
    if run.kind == "demog":  # its own policies and collector, whatever --policies says
        if run.policy not in demographics.DEMOG_POLICIES:
            return "of policies not in the demog runs"
        return None
    policy = alloc_cost.traced_policy(run) if run.kind in ("cost", "replay") else run.policy
    if policy not in config["policies"]:
        return "of policies not in --policies"
    if run.collector not in config["collectors"]:
        return "of collectors not in --collectors"
    return None


def same_files(root, dest, run_id):
    """Whether every file of the incoming run is already in dest, identical (a log not
    brought along is no difference)."""
    for ext in EXTENSIONS:
        src, dst = os.path.join(root, f"{run_id}.{ext}"), os.path.join(dest, f"{run_id}.{ext}")
        if os.path.exists(src) and not (os.path.exists(dst) and filecmp.cmp(src, dst, shallow=False)):
            return False
    return True


def merge(dirs, out_dir, config):
    """Copies every good run found under dirs into out_dir/runs/<kind>/ (see the module's
    docstring); returns an Outcome. The directories are checked to exist by the caller."""
    outcome = Outcome()
    for d in dirs:
        for root, _, files in sorted(os.walk(d)):
            for name in sorted(files):
                if not name.endswith(".rc"):
                    continue
                run = Run.parse(name[:-3])
                if not run:
                    continue
                where = os.path.join(root, name[:-3])
                why = not_in_study(run, config)
                if why:
                    outcome.skipped[why] = outcome.skipped.get(why, 0) + 1
                    continue
                why = check_run(root, run)
                if why:
                    outcome.refused.append((where, why))
                    continue
                dest = os.path.join(out_dir, "runs", run.kind)
                if os.path.abspath(root) == os.path.abspath(dest):
                    outcome.present += 1
                    continue
                if os.path.exists(os.path.join(dest, name)):
                    if same_files(root, dest, run.id):
                        outcome.present += 1
                    else:
                        outcome.refused.append((where, "differs from the finished run in the study's directory "
                                                       "(kept that one)"))
                    continue
                os.makedirs(dest, exist_ok=True)
                # The build that ran it first, so that it is there before the .rc (run_commits.py).
                run_commits.write(os.path.join(dest, run.id),
                                  run_commits.read(os.path.join(root, run.id)) or run_commits.MERGED)
                for ext in EXTENSIONS:
                    src = os.path.join(root, f"{run.id}.{ext}")
                    if os.path.exists(src):
                        shutil.copyfile(src, os.path.join(dest, f"{run.id}.{ext}"))
                outcome.merged += 1
    return outcome
