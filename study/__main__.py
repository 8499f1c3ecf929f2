"""The study's one entry point:

    /usr/bin/python3 -m study [COMMAND] ARGS...       from the source tree
    /usr/bin/python3 PATH/study [COMMAND] ARGS...     from anywhere (Python runs a folder's __main__.py)

Without a command, ARGS are `kith study`'s options and this runs the study (driver.py):
`kith study ARGS` is `python3 PATH/study --kith=<that kith> ARGS` (cli/study_command.cpp
execs it so). A command runs one of the study's tools,
the main(argv) of the module COMMANDS names; `python3 -m study help` lists them.

Every command stops on SIGTERM and SIGHUP as on SIGINT, exiting 128 + the signal, and
reports a StudyError as one line `kith study: ...` with its exit code."""

import importlib
import os
import signal
import sys

if not __package__:  # run as a folder (`python3 PATH/study`), or by the shim: load this folder as the package
    import by_path  # noqa: F401
    __package__ = "study"
from .common import StudyError, usage_error  # noqa: E402
from .suggestion import did_you_mean  # noqa: E402

# command: (module whose main(argv) it runs, what it does)
COMMANDS = {
    "plot": ("plot_study", "DIR: draw a study's figures from its CSV files (matplotlib)"),
    "prose": ("prose", "DIR [--out=FILE] | --lint: STUDY.md from a study's CSV files and study/STUDY.md.in"),
    "predicted": ("predicted", "DIR: predicted.csv, the predicted against the measured change of run time"),
    "size-class-free": ("size_class_free", "DIR: the free bytes in the requested size class, from the demog runs"),
    "golden": ("golden", "--check|--update [--costs] KITH: the published golden counts and costs"),
    "cost": ("alloc_cost", "measure --kith=KITH --policy=P --out=JSON TRACE: a replay under callgrind "
                           "(the cost runs' command)"),
    "whole-run": ("whole_run", "measure --out=JSON -- KITH run ...: a kith run under cachegrind "
                               "(the wholerun runs' command)"),
    "compiler-heap": ("compiler_heap", "[--kith=KITH] [--out=DIR]: the compiler's scratch heaps experiment"),
}
HELP = "help"


def usage():
    width = max(len(c) for c in COMMANDS)
    lines = ["usage: python3 -m study [OPTIONS]   the study, as `kith study OPTIONS` (options: --help)",
             "       python3 -m study COMMAND ARGS", "commands:"]
    return "\n".join(lines + [f"  {c:<{width}}  {what}" for c, (_, what) in COMMANDS.items()])


def main(argv):
    """Runs the command argv names (the study itself when it names none); its exit code."""
    if argv and argv[0] in COMMANDS:
        module = importlib.import_module(f".{COMMANDS[argv[0]][0]}", __package__)
        return module.main(argv[1:])
    if argv and argv[0] == HELP:
        print(usage())
        return 0
    if argv and not argv[0].startswith("-"):
        raise usage_error(f"unknown command '{argv[0]}'; commands: {', '.join(COMMANDS)} "
                          f"(or the study's options: --help)", did_you_mean(argv[0], list(COMMANDS) + [HELP]))
    from . import driver  # here: a tool need not load the whole driver
    return driver.main(argv)


class Stopped(KeyboardInterrupt):
    """SIGTERM or SIGHUP (what timeout, Slurm and systemd send): handled as SIGINT is (the
    study's runner kills the running children, finished runs stay), then exit 128 + the signal."""

    def __init__(self, signum):
        super().__init__(signum)
        self.signum = signum


def on_signal(signum, frame):
    raise Stopped(signum)


def entry(argv):
    """Runs main(argv) and exits with its code."""
    for sig in (signal.SIGTERM, signal.SIGHUP):
        signal.signal(sig, on_signal)
    try:
        sys.exit(main(argv))
    except StudyError as e:
        print(f"kith study: {e}" + (f"\nkith study: {e.hint}" if e.hint else ""), file=sys.stderr)
        sys.exit(e.code)
    except Stopped as e:
        sys.exit(128 + e.signum)
    except KeyboardInterrupt:
        sys.exit(128 + signal.SIGINT)
    except BrokenPipeError:
        # The reader of standard output went away (`kith study --plan | head`): end
        # quietly, as kith itself and every tool killed by SIGPIPE does.
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        sys.exit(128 + signal.SIGPIPE)


if __name__ == "__main__":
    entry(sys.argv[1:])
