#!/usr/bin/env python3
"""`ringlab sweep --plot FILE.svg` end to end (docs/sweep.md).

Runs tests/data/sweep/plot.json (24 points: 6 node counts x 2 algorithms x 2 sizes, 4 of them failing)
and checks that the SVG parses as XML and has one line per algorithm and size, one point per succeeded
point, the axis labels and the legend; that --jobs 1 and --jobs 2, a --limit/--resume run and (MODE mpi)
two MPI ranks write the same bytes; and that a sweep without a numeric axis is exit 2 before any point
runs, writing nothing.

Usage: sweep_plot.py RINGLAB WORKDIR TMPDIR [jobs|mpi]. MODE mpi exits 77 (CTest: skipped) without mpirun.
"""
import os
import shutil
import subprocess
import sys
import xml.etree.ElementTree as ET

ringlab, workdir, tmp = sys.argv[1:4]
mode = sys.argv[4] if len(sys.argv) > 4 else "jobs"
sweep = "tests/data/sweep/plot.json"
SVG = "{http://www.w3.org/2000/svg}"
prefix = os.path.join(tmp, f"sweep_plot_{mode}_{os.getpid()}")


def run(args, launcher=(), rc=3):
    """Runs ringlab in WORKDIR; exit 3 by default (4 points of plot.json fail)."""
    p = subprocess.run([*launcher, ringlab, *args], cwd=workdir, capture_output=True, text=True)
    assert p.returncode == rc, f"{' '.join(args)}: exit {p.returncode}, expected {rc}\n{p.stderr}"
    return p


def read(path):
    with open(path, "rb") as f:
        return f.read()


def plot(name, extra=(), launcher=()):
    """Runs the sweep with -o and --plot; returns the SVG's bytes."""
    out, svg = f"{prefix}_{name}.csv", f"{prefix}_{name}.svg"
    run(["sweep", sweep, "-o", out, "--plot", svg, *extra], launcher)
    data = read(svg)
    os.remove(out)
    os.remove(svg)
    return data


reference = plot("jobs1", ["--jobs", "1"])

if mode == "mpi":
    mpirun = shutil.which("mpirun")
    if not mpirun:
        print("SKIP: mpirun not found")
        sys.exit(77)
    version = subprocess.run([mpirun, "--version"], capture_output=True, text=True).stdout
    launcher = [mpirun, "-np", "2"] + (["--allow-run-as-root", "--oversubscribe"] if "Open MPI" in version else [])
    assert plot("mpi2", ["--jobs", "1"], launcher) == reference, "mpirun -np 2 drew a different SVG"
    print("OK: mpirun -np 2 draws the same SVG")
    sys.exit(0)

# The picture: well-formed SVG, 4 lines (ring/halving_doubling x 1MiB/16MiB), 20 points (4 failed).
root = ET.fromstring(reference)
assert root.tag == SVG + "svg", root.tag
lines = root.findall(f"{SVG}polyline[@class='sweep']")
assert len(lines) == 4, f"expected 4 lines, got {len(lines)}"
counts = sorted(len(l.get("points").split()) for l in lines)
assert counts == [4, 4, 6, 6], f"points per line: {counts} (halving_doubling loses 3 and 6 servers)"
circles = root.findall(f"{SVG}circle")
assert len(circles) == 20, f"expected 20 points, got {len(circles)}"
texts = [t.text for t in root.iter(SVG + "text")]
for expected in ["/cluster/generate/nodes (log scale)", "bus bandwidth (GB/s)",
                 "algorithm=ring, sizes=1MiB", "algorithm=halving_doubling, sizes=16MiB",
                 "24 points, 4 failed (left out)", f"{sweep}: busbw_GBps against nodes"]:
    assert expected in texts, f"no text {expected!r} in the SVG: {texts}"
for tick in ["1", "2", "5", "10"]:  # 1 to 8 servers: log10 with 2 and 5 marked
    assert tick in texts, f"no x tick {tick}: {texts}"
assert root.find(f"{SVG}title").text == f"{sweep}: busbw_GBps against nodes"
print(f"OK: well-formed, {len(lines)} lines, {len(circles)} points")

# Deterministic: --jobs 2, and a run stopped with --limit then resumed, draw the same bytes.
assert plot("jobs2", ["--jobs", "2"]) == reference, "--jobs 2 drew a different SVG"
out, svg = f"{prefix}_resume.csv", f"{prefix}_resume.svg"
run(["sweep", sweep, "-o", out, "--plot", svg, "--limit", "7", "--jobs", "2"], rc=0)
assert not os.path.exists(svg), "a stopped sweep must not draw a plot"
run(["sweep", sweep, "-o", out, "--plot", svg, "--resume", "--jobs", "2"])
assert read(svg) == reference, "the resumed sweep drew a different SVG"
os.remove(out)
os.remove(svg)
# Without -o (CSV streamed to stdout) the plot is the same too.
svg = f"{prefix}_stream.svg"
run(["sweep", sweep, "--plot", svg, "--jobs", "2"])
assert read(svg) == reference, "the streamed sweep drew a different SVG"
os.remove(svg)
print("OK: --jobs 2, --limit/--resume and streaming draw the same bytes")

# No numeric axis: exit 2 naming --plot, before anything runs or is written.
out, svg = f"{prefix}_none.csv", f"{prefix}_none.svg"
p = run(["sweep", "tests/data/sweep/plot_no_numeric.json", "-o", out, "--plot", svg], rc=2)
assert "plot_no_numeric.json: --plot: no axis has numeric values" in p.stderr, p.stderr
assert not os.path.exists(out) and not os.path.exists(svg) and not os.path.exists(out + ".journal")
print("OK: a sweep without a numeric axis is exit 2, nothing written")
