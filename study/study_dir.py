"""The study's directory (--out): where a study may start, and the only files it deletes.

A study starts in a directory that does not exist or is empty, or in a study's own (one
with a study.json that is a study's state, state.py): there a fresh study replaces the
runs it finds (remove_old_runs) and its own outputs, and nothing else. Any other
directory (the current one with a user's runs/ folder, a home directory) is refused
(StudyError 73, naming what is there) before anything is written, so a study never
deletes or overwrites a file it did not write."""

import os

from .common import EXIT_CANNOT_CREATE, KINDS, StudyError
from .runs import Run

LISTED = 3  # entries named when a directory is refused


def check_is_directory(out_dir):
    """--out is a directory or nothing yet (StudyError 73 for a file or device)."""
    if os.path.lexists(out_dir) and not os.path.isdir(out_dir):
        raise StudyError(EXIT_CANNOT_CREATE, f"{out_dir}: not a directory (--out wants one for the study's files)")


def entries(out_dir):
    """The names in out_dir ([] when it does not exist)."""
    try:
        return sorted(os.listdir(out_dir))
    except FileNotFoundError:
        return []
    except OSError as e:
        raise StudyError(EXIT_CANNOT_CREATE, f"{out_dir}: {e.strerror or e}")


def refuse(out_dir, why):
    """StudyError 73: out_dir holds files that are not a study's (why), named."""
    names = entries(out_dir)
    shown = [n + ("/" if os.path.isdir(os.path.join(out_dir, n)) else "") for n in names[:LISTED]]
    more = f" and {len(names) - LISTED} more" if len(names) > LISTED else ""
    return StudyError(EXIT_CANNOT_CREATE,
                      f"{out_dir}: not empty and not a study ({why}): holds {', '.join(shown)}{more}; "
                      "a study starts in a new or empty directory, or afresh in its own")


def require_empty(out_dir, why):
    """A new study: out_dir must not exist or be empty, else StudyError 73 (refuse)."""
    if entries(out_dir):
        raise refuse(out_dir, why)


def is_run_file(name, kind):
    """Whether a file name in runs/<kind>/ is one of a run's (its id, then an extension)."""
    for i, c in enumerate(name):
        if c == ".":
            run = Run.parse(name[:i])
            if run and run.kind == kind:
                return True
    return False


def remove_old_runs(out_dir):
    """A fresh study in a study's directory: deletes the runs there, the files named by a
    run id under runs/<kind>/, then the folders left empty; anything else stays."""
    runs = os.path.join(out_dir, "runs")
    if os.path.islink(runs) or not os.path.isdir(runs):
        return
    for kind in KINDS:
        folder = os.path.join(runs, kind)
        if os.path.islink(folder) or not os.path.isdir(folder):
            continue
        for name in os.listdir(folder):
            path = os.path.join(folder, name)
            if is_run_file(name, kind) and not os.path.isdir(path):
                try:
                    os.remove(path)
                except OSError as e:
                    raise StudyError(EXIT_CANNOT_CREATE, f"{path}: cannot remove the old run: {e.strerror or e}")
        remove_if_empty(folder)
    remove_if_empty(runs)


def remove_if_empty(folder):
    try:
        os.rmdir(folder)
    except OSError:
        pass  # something not the study's is in it: it stays


def make(out_dir):
    """--out exists and takes files, or StudyError 73 (before anything runs)."""
    try:
        os.makedirs(out_dir, exist_ok=True)
        probe = os.path.join(out_dir, f".kith-study-probe-{os.getpid()}")
        with open(probe, "w"):
            pass
        os.remove(probe)
    except OSError as e:
        raise StudyError(EXIT_CANNOT_CREATE, f"{out_dir}: {e.strerror or e}")
