"""study/plot_study.py under /usr/bin/python3: every figure is drawn as a valid PNG and
SVG from a study's CSV files alone (a fake study's, with every kind of run), and from a
directory without any CSV (each figure then says there is no data). Exits non-zero on
failure. CTest: study.plot."""

import os
import shutil
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from figure_files import figure_problems  # noqa: E402

DRIVER = os.path.join(HERE, "..", "..", "study", "kith_study.py")
PLOT = os.path.join(HERE, "..", "..", "study", "plot_study.py")
FAKE = os.path.join(HERE, "fake_kith.py")
PYTHON = "/usr/bin/python3"

failures = []
tmp = tempfile.mkdtemp(prefix="kith-study-plot-")
try:
    out = os.path.join(tmp, "study")
    r = subprocess.run([PYTHON, DRIVER, f"--kith={FAKE}", f"--suite={os.path.join(HERE, 'fake_suite', 'suite.tsv')}",
                        "--policies=list,knuth,estranged", "--collectors=occasional,continuous", "--repeat=2",
                        "--no-figures", "--contrived-sizes=1M,2M", "--heap-multiples=1.5,3", f"--out={out}"],
                       capture_output=True, text=True)
    if r.returncode != 0:
        failures.append(f"fake study exit {r.returncode}: {r.stderr[-2000:]}")
    # Only the CSVs go to the plotting script.
    csv_only = os.path.join(tmp, "csv-only")
    os.makedirs(csv_only)
    for name in os.listdir(out):
        if name.endswith(".csv"):
            shutil.copy(os.path.join(out, name), csv_only)
    # Drawn twice at once, into two copies (the test has two processors): each must be
    # valid, and the redrawn SVG must equal the first (no dates or random ids in it).
    redrawn = os.path.join(tmp, "csv-only-again")
    shutil.copytree(csv_only, redrawn)
    empty = os.path.join(tmp, "empty")
    os.makedirs(empty)
    for batch in ((csv_only, redrawn), (empty,)):
        procs = [(d, subprocess.Popen([PYTHON, PLOT, d], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True))
                 for d in batch]
        for d, proc in procs:
            _, err = proc.communicate()
            if proc.returncode != 0:
                failures.append(f"plot_study.py {d}: exit {proc.returncode}: {err[-2000:]}")
            failures += figure_problems(d)
    svg = [open(os.path.join(d, "figures", "fig3-speedup.svg")).read() for d in (csv_only, redrawn)]
    if svg[0] != svg[1]:
        failures.append("redrawing fig3-speedup.svg changed it")
finally:
    shutil.rmtree(tmp, ignore_errors=True)

for f in failures:
    print("FAIL:", f)
if failures:
    sys.exit(1)
print("plot_study.py: all figures valid")
