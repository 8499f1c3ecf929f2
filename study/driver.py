"""`kith study`: the allocation study — the workload suite across heap policies x collectors.

`kith study ARGS` runs the package's entry point (__main__.py) with `--kith=<that kith> ARGS`,
which hands options without a command to main() here. Standard library only; the figures
are drawn by plot_study.py (matplotlib; `python3 -m study plot DIR`), which reads nothing
but the CSVs this writes.

What runs (each a separate process, written under DIR/runs/<kind>/<run id>.*; plan.py):
  contrived  `kith bench contrived --json --heap-size=S` for S = 1M ... 256M (Figure 8)
  minheap    per workload x fixed-size policy, a search for the smallest heap the run
             completes in (to within --min-heap-precision, default 2%), starting at the
             suite's heap_size
  main       every workload x policy x collector x repeat at --main-heap (default 2) times
             the workload's minimum heap (the smallest over the policies), with
             --stats-file; the continuous collector with --gc-pacing=work (counts
             identical run to run)
  pauses     every workload x collector on one policy at the same heap, with
             --gc-pacing=time and --gc-pauses-file: pause distributions and MMU curves
  tradeoff   every workload x policy x collector at multiples of EACH POLICY'S OWN minimum
             heap (1.25x ... 6x), so space is not confounded with collection frequency;
             repeated as the main runs are (--tradeoff-repeat, --tradeoff-max-repeat), each
             policy tested against list at the same multiple
  demog      per workload, estranged and knuth at the main heap under occasional collection
             and every other collector of the study that collects, with --frag-file (and
             --trace on estranged, occasional): object lifetimes, alloc rate, fragmentation
             over time (demographics.py), free bytes in the requested class (size_class_free.py)
  sources    every main configuration once more, untimed, with --stats-sources=on: where
             each immediate request's block came from, a free or a split's leftover
             (Figure 10's recycled/leftover; every other run passes --stats-sources=off,
             whose counting costs 8-13 instructions a malloc less)
  trace      every workload x policy x collector as its main run (repeat 0), with --trace:
             the recording, and the instrumented latency run (per-op timers on)
  cost       each trace replayed under callgrind on its own policy and on the `nothing`
             baseline: exact instructions and cache misses per malloc and free
  replay     the same two replays timed, 10 repeats (alloc_cost.py: alloc_cost.csv,
             replay_time.csv)
  wholerun   only when --experiments names it: every main configuration once under
             cachegrind, the whole run's instructions and misses (whole_run.py:
             whole_run.csv; predicted.py sets them beside the predicted and measured times)
  power      only when --experiments names it: the --power-workloads (default 4) with the
             largest allocator share at the suite's power_args (1-2 s a run), their minimum
             heap searched again, estranged vs knuth and each vs list timed alone and
             repeated until the interval resolves the predicted difference or
             --power-max-repeat (default 30) (power.py: power.csv)
Repeats are interleaved (repeat 0 of every configuration, then repeat 1, ...), so slow
drift of the machine hits every configuration alike; after the --repeat minimum, a
configuration whose 95% interval is wider than +-3% (--target-ci) of its mean gets one
more run per round, up to --max-repeat. Timed runs (main, tradeoff, contrived, replay)
run alone (--timing-jobs 1), pause runs always alone, and main, tradeoff and pause runs
pass --stats-timers=off (counts, no clock read per malloc and free); the untimed runs use
--jobs. A run is done when its .rc file
(the exit code) exists; --resume keeps what is done, --plan prints what can run now as
shell commands, --merge folds run files made elsewhere into DIR (merge.py: checked, never
replacing a finished run). A study writes only into a new or empty --out or a study's
own, and deletes only its own runs there (study_dir.py). Bad input is one line
`kith study: ...` and docs/CLI.md's exit code: 64 a bad option, 65 a malformed suite
(suite.py) or study.json (state.py), a refused merged run or a run in the study whose
numbers cannot be counted (run_json.py), or runs of more than one build without --draft,
66 a missing suite or --merge directory, 73 an --out that cannot be written or is some
other directory than a study's.
SIGTERM and SIGHUP stop a study as SIGINT does (runner.py kills the running children,
finished runs stay), exiting 128 + the signal.
Then (analysis.py): results.csv/json (one row per run), summary.csv and one CSV per
figure; the figures (plot_study.py, from the CSVs alone), report.md (report.py) and
STUDY.md, the narrative (prose.py, from the CSVs and study/STUDY.md.in).
Published numbers come from one build (builds.py): a study whose runs more than one build
made (or a build with uncommitted changes, or one not recorded) writes none of these and
exits 65 naming the kinds and builds, unless --draft (every section and figure then says
"draft: runs from N builds"); --resume first redoes the runs whose build's code is not this
kith's (stale.py: git diff in the repository the kith was built in), unless --keep-stale.
"""

import argparse
import json
import os
import re
import shlex
import subprocess
import sys

from . import native_study
from . import power
from . import run_commits as provenance
from . import stale
from . import state as study_state
from . import study_dir
from .analysis import split_out_of_memory, write_results
from .builds import Verdict
from .common import (CONTRIVED_MIN, DEFAULT_COLLECTORS, DEFAULT_KINDS, DEFAULT_MAX_REPEAT, DEFAULT_POLICIES,
                     DEFAULT_TARGET_CI, EXIT_MALFORMED, EXIT_MISSING, EXIT_USAGE, FULL_CONTRIVED, FULL_MULTIPLES,
                     HEAP_CAP, KINDS, QUICK_CONTRIVED, QUICK_MULTIPLES, QUICK_WORKLOADS, StudyError, format_size,
                     name_list, parse_size, read_csv, usage_error, warn)
from .merge import merge
from .plan import Study
from .prose import write_beside_report
from .report import draw_figures, machine_info, version_info, write_report
from .run_command import shell_command
from .runner import Progress, execute
from .runs import Run, run_files
from .state import fill_options
from .suggestion import did_you_mean, nearest_name
from .suite import quick_subset, read_suite


# --- the command line -------------------------------------------------------------------

# Trade-off runs per workload and repeat with the default policies, collectors and multiples.
TRADEOFF_RUNS_PER_WORKLOAD = len(DEFAULT_POLICIES) * len(DEFAULT_COLLECTORS) * len(FULL_MULTIPLES)


class Parser(argparse.ArgumentParser):
    """argparse whose usage errors are CLI.md's: one line and a hint, exit 64 (not 2)."""

    def error(self, message, hint=""):
        print(f"kith study: {message}\nkith study: {hint or 'see `kith study --help`'}", file=sys.stderr)
        sys.exit(EXIT_USAGE)

    def parse_args(self, args=None, namespace=None):
        a, unknown = self.parse_known_args(args, namespace)
        if unknown:  # as the C++ command line: the nearest option, with the value given
            name, sep, value = unknown[0].partition("=")
            options = [s for action in self._actions if action.help != argparse.SUPPRESS
                       for s in action.option_strings]
            nearest = nearest_name(name, options) if name.startswith("--") else None
            self.error(f"unrecognized arguments: {' '.join(unknown)}",
                       f"did you mean '{nearest}{sep}{value}'?" if nearest else "")
        return a


def parse_args(argv):
    ap = Parser(
        prog="kith study",
        description="Runs the workload suite (workloads/suite.tsv) across heap policies x collectors, each run "
                    "a separate `kith run` process, and writes raw results, a summary with 95% confidence "
                    "intervals, figures and report.md into --out.",
        epilog="Batch systems: `kith study --plan` prints every run that can run now, one shell command per line "
               "(run them anywhere, each in the same directory), `kith study --merge THAT_DIR... --out=DIR` folds "
               "their files in and redraws; --plan again for the next round of the minimum-heap search, until it "
               "prints nothing. See docs/RUNNING_THE_STUDY.md. The study's tools (redrawing the figures, STUDY.md, "
               "the golden counts): `python3 -m study help` in the source tree.")
    ap.add_argument("--kith", required=True, help=argparse.SUPPRESS)
    ap.add_argument("--kith-build", default="", help=argparse.SUPPRESS)
    ap.add_argument("--workloads", default=None, help="comma-separated names from the suite, or all (default)")
    ap.add_argument("--policies", default=None,
                    help=f"comma-separated heap policies (default {','.join(DEFAULT_POLICIES)})")
    ap.add_argument("--collectors", default=None,
                    help=f"comma-separated collectors (default {','.join(DEFAULT_COLLECTORS)})")
    ap.add_argument("--repeat", type=int, default=None,
                    help="runs of each timed configuration, at least (default 5; quick 1)")
    ap.add_argument("--max-repeat", type=int, default=None,
                    help=f"runs of a configuration at most: after each round, one more run of every configuration "
                         f"whose 95%% interval is wider than --target-ci (default {DEFAULT_MAX_REPEAT})")
    ap.add_argument("--target-ci", type=float, default=None,
                    help=f"the 95%% interval's half-width wanted, a fraction of the mean wall time "
                         f"(default {DEFAULT_TARGET_CI:g})")
    ap.add_argument("--jobs", type=int, default=None, help="processes at a time (default: the number of cores)")
    ap.add_argument("--timing-jobs", type=int, default=None,
                    help="processes at a time while a timed run (main, tradeoff, contrived, replay) runs "
                         "(default 1: timed runs run alone; the others use --jobs)")
    ap.add_argument("--out", default="build/study",
                    help="results directory (default build/study): a new or empty one, or a study's own (a fresh "
                         "study there replaces its runs and outputs, nothing else)")
    ap.add_argument("--quick", action="store_true", default=None,
                    help=f"small arguments, 1 repeat, {QUICK_WORKLOADS} workloads, heap multiples "
                         f"{','.join(f'{x:g}' for x in QUICK_MULTIPLES)}, contrived up to 16M: a few minutes")
    ap.add_argument("--sizes", default=None, choices=["study", "small", "default"],
                    help="which arguments of the suite: study (the study_args column, 0.1-0.7 s a run; the "
                         "default), small (--quick's), or default (the benchmarks' own sizes, 3-17 s a run)")
    ap.add_argument("--resume", action="store_true", help="keep the runs already in --out and do the rest")
    ap.add_argument("--plan", action="store_true",
                    help="print the runs that can run now as shell commands, one per line, and exit")
    ap.add_argument("--merge", nargs="+", metavar="DIR",
                    help="fold the run files found under DIR... into --out, then write results and figures")
    ap.add_argument("--suite", default=None,
                    help="the workload suite file (default workloads/suite.tsv)")
    ap.add_argument("--experiments", default=None,
                    help=f"which kinds of run (default {','.join(DEFAULT_KINDS)}; also wholerun, each main "
                         "configuration once under cachegrind (whole-run counts), and power, the workloads with the "
                         "largest allocator share at larger sizes, repeated until the interval resolves the "
                         "predicted difference)")
    ap.add_argument("--power-workloads", type=int, default=None,
                    help=f"power: how many workloads, those with the largest allocator share (default "
                         f"{power.DEFAULT_WORKLOADS})")
    ap.add_argument("--power-max-repeat", type=int, default=None,
                    help=f"power: runs of each side of a pair at most, where its interval does not resolve the "
                         f"prediction (default {power.DEFAULT_MAX_REPEAT})")
    ap.add_argument("--main-heap", default=None,
                    help="heap of the main and pause runs: this multiple of the workload's minimum heap "
                         "(default 2), or 'suite' for the suite's heap_size column")
    ap.add_argument("--pause-policy", default=None,
                    help="policy of the pause/MMU runs (default estranged, else the first policy)")
    ap.add_argument("--min-heap-collector", default=None,
                    help="collector of the minimum-heap search (default occasional, else the first collector)")
    ap.add_argument("--min-heap-precision", type=float, default=None,
                    help="stop the search when the bracket is within this fraction (default 0.02)")
    ap.add_argument("--probes-per-round", type=int, default=None,
                    help="heap sizes tried at once per search (1: bisection; more: fewer rounds in batch)")
    ap.add_argument("--heap-multiples", default=None,
                    help=f"trade-off heap sizes, multiples of the minimum heap "
                         f"(default {','.join(f'{x:g}' for x in FULL_MULTIPLES)})")
    ap.add_argument("--tradeoff-repeat", type=int, default=None,
                    help=f"runs of each trade-off configuration at least, then one more per round while its "
                         f"interval is wider than --target-ci, up to --tradeoff-max-repeat (default: --repeat's). "
                         f"Each repeat is one run per workload x policy x collector x heap multiple: "
                         f"{TRADEOFF_RUNS_PER_WORKLOAD} runs a workload with the default policies, collectors and "
                         f"multiples (--plan says how many in all)")
    ap.add_argument("--tradeoff-max-repeat", type=int, default=None,
                    help="runs of a trade-off configuration at most (default: --max-repeat's); the same as "
                         "--tradeoff-repeat: no repeats beyond it")
    ap.add_argument("--contrived-sizes", default=None,
                    help=f"heap sizes of the worst-case request, 1M to 4G (default {','.join(FULL_CONTRIVED)})")
    ap.add_argument("--timeout", type=int, default=None, help="seconds before a run is killed (default 3600)")
    ap.add_argument("--draft", action="store_true",
                    help="write the results and report even when the runs come from more than one build (or one "
                         "with uncommitted changes), every page and figure stamped 'draft: runs from N builds'; "
                         "without it such a study exits 65")
    ap.add_argument("--keep-stale", action="store_true",
                    help="--resume: keep the finished runs of other builds (by default a run whose build's code "
                         "differs from this kith's is run again); the report is then a draft")
    ap.add_argument("--no-figures", action="store_true", default=None,
                    help="write the CSVs and report without figures (--resume, --merge and --plan keep it)")
    ap.add_argument("--figures", dest="no_figures", action="store_false", default=None,
                    help="draw the figures (the default; undoes the --no-figures a study was started with)")
    a = ap.parse_args(argv)
    if a.out == "":
        raise usage_error("--out wants a directory; got ''")
    return a


def kith_policies(kith):
    try:
        out = subprocess.run([kith, "policies"], capture_output=True, text=True, timeout=30).stdout
    except (OSError, subprocess.SubprocessError) as e:
        raise StudyError(EXIT_MISSING, f"cannot run {kith}: {e}")
    names = []
    for line in out.splitlines():
        parts = line.split(None, 1)
        if parts and "collector:" not in line:
            names.append(parts[0])
    if not names:  # not a kith, or a broken one: nothing to study
        raise StudyError(EXIT_MISSING, f"{kith} lists no heap policies (`{kith} policies` printed none); "
                                       "want a kith binary")
    return names


def number_list(option, text, convert, what):
    """A comma-separated --option value of numbers (convert: text to number, or
    ValueError), none twice, however written."""
    names = name_list(option, text)
    try:
        values = [convert(x) for x in names]
    except ValueError:
        raise usage_error(f"--{option} wants comma-separated {what}; got '{text}'")
    for v in values:
        same = [x for x, w in zip(names, values) if w == v]
        if len(same) > 1:
            raise usage_error(f"--{option}: one value given twice ({', '.join(same)})")
    return values


def contrived_sizes(text):
    """--contrived-sizes: heaps `kith bench contrived` takes (at least 1M) that the study
    gives a run (at most HEAP_CAP); checked here, not by every run failing with 64."""
    sizes = number_list("contrived-sizes", text, parse_size, "sizes like 1M,4M")
    for x, size in zip(name_list("contrived-sizes", text), sizes):
        if size < CONTRIVED_MIN:
            raise usage_error(f"--contrived-sizes: '{x}' is too small; `kith bench contrived` wants at least "
                              f"{format_size(CONTRIVED_MIN)}")
        if size > HEAP_CAP:
            raise usage_error(f"--contrived-sizes: '{x}' is too large; the study's heaps are at most "
                              f"{format_size(HEAP_CAP)}")
    return sizes


def build_config(a, kith):
    """The study's configuration from the options; every bad value is a usage error (64)."""
    known_policies = kith_policies(kith)
    policies = (name_list("policies", a.policies, known_policies) if a.policies is not None
                else [p for p in DEFAULT_POLICIES if p in known_policies])
    collectors = (name_list("collectors", a.collectors, ["occasional", "continuous", "none"])
                  if a.collectors is not None else list(DEFAULT_COLLECTORS))
    experiments = name_list("experiments", a.experiments, KINDS)
    if a.workloads != "all":
        name_list("workloads", a.workloads)  # not empty, no name twice; the names: select_workloads
    repeat = a.repeat if a.repeat is not None else (1 if a.quick else 5)
    if repeat < 1:
        raise usage_error(f"--repeat wants at least 1; got {repeat}")
    if a.max_repeat is not None and a.max_repeat < repeat:
        raise usage_error(f"--max-repeat ({a.max_repeat}) is below --repeat ({repeat})")
    max_repeat = max(a.max_repeat if a.max_repeat is not None else (repeat if a.quick else DEFAULT_MAX_REPEAT), repeat)
    target_ci = a.target_ci if a.target_ci is not None else DEFAULT_TARGET_CI
    if not 0 < target_ci < 1:
        raise usage_error(f"--target-ci wants a fraction in (0, 1), like 0.03; got {target_ci}")
    if a.jobs is not None and a.jobs < 1:
        raise usage_error(f"--jobs wants at least 1; got {a.jobs}")
    jobs = a.jobs or os.cpu_count() or 1
    if a.timing_jobs is not None and a.timing_jobs < 1:
        raise usage_error(f"--timing-jobs wants at least 1; got {a.timing_jobs}")
    if a.timeout is not None and a.timeout < 1:
        raise usage_error(f"--timeout wants at least 1 second; got {a.timeout}")
    if a.probes_per_round < 1:
        raise usage_error(f"--probes-per-round wants at least 1; got {a.probes_per_round}")
    if a.tradeoff_repeat is not None and a.tradeoff_repeat < 1:
        raise usage_error(f"--tradeoff-repeat wants at least 1; got {a.tradeoff_repeat}")
    tradeoff_repeat = a.tradeoff_repeat if a.tradeoff_repeat is not None else repeat
    if a.tradeoff_max_repeat is not None and a.tradeoff_max_repeat < tradeoff_repeat:
        raise usage_error(f"--tradeoff-max-repeat ({a.tradeoff_max_repeat}) is below --tradeoff-repeat "
                          f"({tradeoff_repeat})")
    if a.power_workloads is not None and a.power_workloads < 1:
        raise usage_error(f"--power-workloads wants at least 1; got {a.power_workloads}")
    power_least = max(repeat, 2)  # power.minimum_repeat: an interval needs two runs
    if a.power_max_repeat is not None and a.power_max_repeat < power_least:
        raise usage_error(f"--power-max-repeat ({a.power_max_repeat}) is below the power runs' minimum "
                          f"({power_least}: --repeat, and at least 2)")
    if a.keep_stale and not a.resume:
        raise usage_error("--keep-stale goes with --resume (it keeps the runs of other builds a resume redoes)")
    if a.pause_policy is not None and a.pause_policy not in policies:
        raise usage_error(f"--pause-policy: '{a.pause_policy}' is not one of the study's policies: "
                          f"{', '.join(policies)}")
    if a.min_heap_collector is not None and a.min_heap_collector not in collectors:
        raise usage_error(f"--min-heap-collector: '{a.min_heap_collector}' is not one of the study's "
                          f"collectors: {', '.join(collectors)}")
    mh_col = a.min_heap_collector or ("occasional" if "occasional" in collectors else collectors[0])
    multiples = (number_list("heap-multiples", a.heap_multiples, float, "multiples like 1.5,3")
                 if a.heap_multiples is not None else (QUICK_MULTIPLES if a.quick else FULL_MULTIPLES))
    if any(not 0 < m < float("inf") for m in multiples):
        raise usage_error(f"--heap-multiples wants positive multiples like 1.5,3; got '{a.heap_multiples}'")
    sizes = (contrived_sizes(a.contrived_sizes)
             if a.contrived_sizes is not None else [parse_size(s) for s in (QUICK_CONTRIVED if a.quick
                                                                           else FULL_CONTRIVED)])
    if a.main_heap != "suite":
        try:
            if not 1 <= float(a.main_heap) < float("inf"):
                raise ValueError
        except ValueError:
            raise usage_error(f"--main-heap wants a multiple of at least 1, or suite; got '{a.main_heap}'")
    if not 0 < a.min_heap_precision < 1:
        raise usage_error("--min-heap-precision wants a fraction in (0, 1), like 0.02")
    return {
        "argset": a.sizes or ("small" if a.quick else "study"), "quick": a.quick, "policies": policies,
        "collectors": collectors, "repeat": repeat, "jobs": jobs, "timing_jobs": min(a.timing_jobs or 1, jobs),
        "max_repeat": max_repeat, "target_ci": target_ci,
        "experiments": experiments,
        "pause_policy": a.pause_policy or ("estranged" if "estranged" in policies else policies[0]), "pause_repeat": 1,
        "minheap_collector": mh_col, "precision": a.min_heap_precision, "probes": a.probes_per_round,
        "multiples": multiples, "tradeoff_repeat": tradeoff_repeat,
        "tradeoff_max_repeat": max(a.tradeoff_max_repeat if a.tradeoff_max_repeat is not None else max_repeat,
                                   tradeoff_repeat),
        "contrived_sizes": sizes, "contrived_repeat": repeat, "timeout": a.timeout, "heap_cap": HEAP_CAP,
        "probe_timeout_min": 5 if a.quick else 30, "probe_timeout_factor": 20, "suite": os.path.abspath(a.suite),
        "workloads": a.workloads, "main_heap": a.main_heap,
        "power_workloads": a.power_workloads or power.DEFAULT_WORKLOADS,
        "power_max_repeat": max(a.power_max_repeat or power.DEFAULT_MAX_REPEAT, power_least),
    }


def select_workloads(all_workloads, spec, quick):
    if spec == "all":
        return quick_subset(all_workloads) if quick else all_workloads
    by = {w.name: w for w in all_workloads}
    chosen = []
    for name in spec.split(","):
        if name not in by:
            raise usage_error(f"unknown workload '{name}'; the suite has: {', '.join(by)}", did_you_mean(name, by))
        chosen.append(by[name])
    return chosen


def check_merge_dirs(dirs):
    """Every --merge DIR is a directory (StudyError 66)."""
    for d in dirs:
        if not os.path.lexists(d):
            raise StudyError(EXIT_MISSING, f"--merge: {d}: no such directory")
        if not os.path.isdir(d):
            raise StudyError(EXIT_MISSING, f"--merge: {d}: not a directory (--merge wants directories of run files)")


def previous_state(a, out_dir, continuing):
    """The state of the study in out_dir ({} when there is none), once it is clear that
    this command may write there (study_dir.py): a study continues (--resume, --merge,
    --plan) only from a study's study.json (StudyError 65, or 66 for --resume of no
    directory); a new one starts only in a new or empty directory, or afresh in a
    study's own (StudyError 73)."""
    study_dir.check_is_directory(out_dir)
    state_path = os.path.join(out_dir, "study.json")
    if os.path.lexists(state_path):
        try:
            return study_state.read(state_path)
        except (OSError, UnicodeDecodeError, ValueError) as e:
            if continuing:  # never continue some other study than the one there
                raise StudyError(EXIT_MALFORMED, f"{state_path}: damaged ({e}); cannot continue the study in "
                                                 f"{out_dir} (set it aside, or start afresh in a new directory)")
            raise study_dir.refuse(out_dir, f"its study.json is not a study's: {e}")
    if a.resume:
        if not os.path.isdir(out_dir):
            raise StudyError(EXIT_MISSING, f"--resume: {out_dir}: no such directory")
        raise StudyError(EXIT_MALFORMED, f"--resume: {out_dir} holds no study to resume (no study.json)")
    study_dir.require_empty(out_dir, "no study.json")
    return {}


REFUSED_LISTED = 10  # runs named one a line when the analysis refuses some


def set_aside_stale_runs(out_dir, current, legacy, code):
    """--resume: the finished runs whose build's code is not this kith's are made not done,
    so the plan runs them again (stale.py); says how many, of which builds, and why."""
    found = stale.stale_runs(out_dir, current, legacy, code)
    if not found:
        return
    stale.set_aside(out_dir, found)
    for line in stale.summary(found, current, code):
        warn(f"--resume: {line}")
    warn(f"--resume: {len(found)} runs of other builds to run again with this one ({provenance.short(current)}); "
         "--keep-stale keeps them (a draft)")


def tradeoff_size_line(study):
    """What the trade-off adds, for --plan."""
    n, least, most = study.tradeoff_size()
    c = study.config
    text = (f"the trade-off is {n:,} configurations ({len(study.workloads)} workloads x {len(c['policies'])} policies "
            f"x {len(c['collectors'])} collectors x {len(c['multiples'])} heap multiples), {c['tradeoff_repeat']} runs "
            f"each: {least:,} runs")
    if most > least:
        text += f", up to {most:,} where an interval is wider than +-{100 * c['target_ci']:g}%"
    return text + " (--tradeoff-repeat, --tradeoff-max-repeat)"


def main(argv):
    if "--native" in argv:  # the native study: real programs on every policy (native_study.py)
        return native_study.main([x for x in argv if x != "--native" and not x.startswith("--kith-build=")])
    a = parse_args(argv)
    kith = os.path.abspath(a.kith)
    out_dir = os.path.abspath(a.out)
    continuing = bool(a.resume or a.merge or a.plan)
    check_merge_dirs(a.merge or [])
    previous = previous_state(a, out_dir, continuing)
    state_path = os.path.join(out_dir, "study.json")
    options = fill_options(a, previous, continuing)
    config = build_config(a, kith)
    version = version_info(kith, a.kith_build)
    # The commit beside every count in the CSVs (the counts change when the collector does).
    config["commit"] = (version["commit"] or "unknown") + ("-dirty" if version["dirty"] else "")
    # Which commits ran each kind of run (run_commits.py): read from the runs' .commit
    # files. Runs from before those files count as their kind's commits in the per-kind
    # ledger kept then: a study.json without "unrecorded_run_commits" is one of that time,
    # whose run_commits is that ledger.
    legacy = {}
    if continuing:
        legacy = provenance.legacy_ledger(previous.get("unrecorded_run_commits",
                                                       previous.get("run_commits", {})))
    all_workloads, fallback = read_suite(config["suite"])
    workloads = select_workloads(all_workloads, a.workloads, a.quick)
    study_dir.make(out_dir)  # every option checked: now the directory
    code = stale.Code(stale.repository(kith))
    if a.resume and not a.keep_stale:
        set_aside_stale_runs(out_dir, config["commit"], legacy, code)
    run_commits = provenance.scan(out_dir, legacy) if continuing else {}
    config["run_commits"] = run_commits
    config["workload_names"] = [w.name for w in workloads]
    study = Study(config, workloads, kith)
    invocation = "kith study " + " ".join(shlex.quote(x) for x in argv if not x.startswith(("--kith=",
                                                                                             "--kith-build=")))
    invocations = previous.get("invocations", []) if continuing else []
    invocations.append(invocation)
    load_start = previous.get("load_start") if (a.resume or a.merge) and previous.get("load_start") else \
        " ".join(f"{x:.2f}" for x in os.getloadavg())

    if not continuing:
        study_dir.remove_old_runs(out_dir)  # a fresh study in a study's directory (--resume keeps them)

    def save_state():
        with open(state_path + ".tmp", "w") as f:
            json.dump({"options": options, "config": config, "invocations": invocations, "load_start": load_start,
                       "fallback_row": fallback, "run_commits": run_commits,
                       "unrecorded_run_commits": legacy}, f, indent=1)
        os.replace(state_path + ".tmp", state_path)

    save_state()
    commands_path = os.path.join(out_dir, "commands.txt")
    examples = {}

    def record_commits():
        run_commits.clear()
        run_commits.update(provenance.scan(out_dir, legacy))
        save_state()

    def record_commands(runs):
        with open(commands_path, "a") as f:
            for r in runs:
                line = shell_command(r, kith, config["commit"])
                f.write(line + "\n")

    if a.plan:
        runs = study.plan(out_dir)
        for r in runs:
            print(shell_command(r, kith, config["commit"]))
        sys.stdout.flush()  # here, where a reader gone away is caught (entry), not at exit
        more = study.estimate_remaining(runs)
        if runs:
            warn(f"{len(runs)} runs; after they finish, --merge their directory and --plan again"
                 + (f" (about {more} more runs in later rounds)" if more else ""))
        else:
            warn("nothing left to run")
        if "tradeoff" in config["experiments"]:
            warn(tradeoff_size_line(study))
        old_builds = stale.stale_runs(out_dir, config["commit"], legacy, code)
        if old_builds:  # a merge never replaces a finished run: these are redone where the study is
            warn(f"{len(old_builds)} finished runs are of other builds' code; `kith study --resume` redoes them "
                 "(the report of this study is a draft until then)")
        return 0

    failures = []
    refused = False
    if a.merge:
        outcome = merge(a.merge, out_dir, config)
        record_commits()
        warn(outcome.summary())
        refused = bool(outcome.refused)
    else:
        if not (a.resume and os.path.exists(commands_path)):
            open(commands_path, "w").close()
        progress = Progress(sys.stderr.isatty())
        jobs, timing_jobs = config["jobs"], config["timing_jobs"]
        log = []
        while True:
            runs = study.plan(out_dir)
            if not runs:
                break
            record_commands(runs)
            extra = study.estimate_remaining(runs)
            if not progress.enabled:
                kinds = {}
                for r in runs:
                    kinds[r.kind] = kinds.get(r.kind, 0) + 1
                warn("running " + ", ".join(f"{n} {k}" for k, n in kinds.items()) + f" ({jobs} at a time)")
            try:
                failures += execute(runs, out_dir, kith, jobs, timing_jobs, progress, extra, log, config["commit"])
            finally:
                record_commits()  # also when stopped: the finished runs are kept

    # Examples of each kind for the report (from commands.txt when resuming or merging):
    # the last command of each kind, so a kind run again after a change (--resume) shows
    # the command that made its files now, not the one they replaced.
    if os.path.exists(commands_path):
        with open(commands_path) as f:
            for line in f:
                m = re.search(r"runs/(\w+) && ", line)
                if m:
                    examples[m.group(1)] = line.strip()
    # Published numbers come from one build (builds.py): a study of more, or of a build with
    # uncommitted changes, writes nothing unless --draft (or --keep-stale) says it may.
    verdict = Verdict(provenance.counts(out_dir, legacy), code.same)
    if verdict.draft and not (a.draft or a.keep_stale):
        raise StudyError(EXIT_MALFORMED, verdict.refusal(), verdict.hint())
    if verdict.draft:
        warn(f"{verdict.stamp()}: report.md and every figure say so")
    tables = write_results(study, out_dir, verdict)
    failed_runs, did_not_fit = split_out_of_memory(
        [r for r in tables["results"][0] if r["kind"] in ("main", "pauses", "trace", "wholerun", "power")
         and r["exit_code"] != 0],
        read_csv(os.path.join(out_dir, "minheap.csv")),
        lambda r: study.out_of_memory(Run.parse(r["run_id"])))
    failed_runs += [(c["run_id"], c["exit_code"]) for c in read_csv(os.path.join(out_dir, "contrived.csv"))
                    if str(c["exit_code"]) != "0"]
    # The exact costs and the replay times: a replay that fails is a failure of the study
    # (its trace fitted; exit 69 is valgrind missing), not a result.
    failed_runs += [(run_id, rc) for run_id, rc in sorted(run_files(out_dir).items())
                    if rc != 0 and run_id.split("__", 1)[0] in ("cost", "replay")]
    figures_ok = False if a.no_figures else draw_figures(out_dir)
    info = {"machine": machine_info(), "version": version, "invocations": invocations,
            "load_start": load_start, "load_end": " ".join(f"{x:.2f}" for x in os.getloadavg()),
            "examples": [examples[k] for k in KINDS if k in examples], "failures": failed_runs,
            "did_not_fit": did_not_fit,
            "fallback": fallback}
    write_report(study, out_dir, tables, info, figures_ok)
    narrative_ok = write_beside_report(out_dir)  # STUDY.md, from the CSVs just written (prose.py)
    save_state()
    count = tables["runs"][0][-1]["runs"]  # every run of every kind (runs.csv's total)
    print(f"kith study: {count} runs in {out_dir}; report: {os.path.join(out_dir, 'report.md')}",
          file=sys.stderr)
    if did_not_fit:
        warn(f"{len(did_not_fit)} runs ran out of memory on a heap below their policy's own minimum "
             "(expected; listed in report.md)")
    bad_runs = tables["refused"]
    for run_id in sorted(bad_runs)[:REFUSED_LISTED]:
        warn(f"refused {os.path.join(out_dir, Run.parse(run_id).path('json'))[:-len('.json')]}: {bad_runs[run_id]}; "
             "left out of the results (delete its .rc and --resume to run it again)")
    if len(bad_runs) > REFUSED_LISTED:
        warn(f"and {len(bad_runs) - REFUSED_LISTED} more runs refused so")
    if refused:
        warn("some runs were refused (see above); the rest are merged")
        return EXIT_MALFORMED
    if bad_runs:
        warn(f"{len(bad_runs)} runs in {out_dir} were refused (see above); the results leave them out")
        return EXIT_MALFORMED
    if failed_runs:
        warn(f"{len(failed_runs)} runs did not exit 0 (listed in report.md)")
        return 1
    if not figures_ok and not a.no_figures:
        return 1
    if not narrative_ok:
        return 1
    return 0
