#!/usr/bin/python3
"""A merged results file opens in xarray as a grid over the swept parameters
whose every cell equals its row in the shards (the lowest status winning over
reruns), and analysis/plot.py draws 640 x 480 PNG heat maps and line plots of it
(ok experiments only, saying how many it skipped) and refuses, in one line, what
it cannot plot.

usage: test_plot.py MV_MKRESULTS JOB.json PLOT.py WORKDIR
"""
import glob
import math
import os
import shutil
import struct
import subprocess
import sys

import matplotlib.image
import numpy as np
import xarray as xr

FAILS = []


def check(cond, what):
    if not cond:
        FAILS.append(what)
        print(f"FAIL: {what}", file=sys.stderr)


def png_size(path):
    """Width and height from the PNG header (IHDR)."""
    with open(path, "rb") as f:
        head = f.read(24)
    check(head[:8] == b"\x89PNG\r\n\x1a\n" and head[12:16] == b"IHDR", f"{path}: not a PNG")
    return struct.unpack(">II", head[16:24])


def colours(path):
    """Distinct RGB colours of a PNG."""
    img = matplotlib.image.imread(path)[:, :, :3]
    return {tuple(c) for c in np.round(img.reshape(-1, 3) * 255).astype(int)}


def scalar(x):
    """A numpy scalar as a Python value (strings come as str already)."""
    return x.item() if hasattr(x, "item") else x


def shard_rows(work):
    """Per experiment id, its row in the shards: lowest status, then first shard path."""
    best = {}
    for path in sorted(glob.glob(os.path.join(work, "shards", "*.nc"))):
        with xr.open_dataset(path) as s:
            for k in range(s.sizes["experiment"]):
                row = {v: scalar(s[v].values[k]) for v in s.data_vars}
                old = best.get(row["experiment_id"])
                if old is None or row["status"] < old["status"]:
                    best[row["experiment_id"]] = row
    return best


def same(a, b):
    if isinstance(a, float) and isinstance(b, float) and math.isnan(a) and math.isnan(b):
        return True
    return a == b


def main(tool, job, plot_py, work):
    shutil.rmtree(work, ignore_errors=True)
    os.makedirs(work)
    subprocess.run([tool, job, work], check=True)
    results = os.path.join(work, "results.nc")
    sys.path.insert(0, os.path.dirname(plot_py))
    import plot

    g = plot.grid(results)
    check(dict(g.sizes) == {"network_cc": 3, "training_tp": 4, "network_link_gbps": 2},
          f"grid dimensions {dict(g.sizes)}")
    check(list(g.network_cc.values) == ["dcqcn", "dctcp", "hpcc"], "cc coordinate")
    check(list(g.training_tp.values) == [1, 2, 4, 8], "tp coordinate")
    check(list(g.network_link_gbps.values) == [100, 400], "link_gbps coordinate")
    check(g.iteration_time.attrs.get("units") == "s", "units of iteration_time")
    rows = shard_rows(work)
    check(len(rows) == 24, f"{len(rows)} experiments in the shards")
    cells = 0
    for r in rows.values():
        c = g.sel(network_cc=r["network_cc"], training_tp=r["training_tp"],
                  network_link_gbps=r["network_link_gbps"])
        ok = all(same(c[v].item(), r[v]) for v in
                 ("experiment_id", "experiment_index", "status", "iteration_time",
                  "packet_hops", "message", "config_json"))
        check(ok, f"cell of experiment {r['experiment_index']} differs from its shard row")
        cells += ok
    # Experiments 4, 9, 14, 19 timed out; batch 0's rerun (all timed out) lost.
    timed_out = sorted(int(i) for i in g.experiment_index.values[g.status.values == 4])
    check(timed_out == [4, 9, 14, 19], f"timed out: {timed_out}")
    check(int(np.isnan(g.iteration_time.values).sum()) == 4, "NaN where not ok")

    # A sparse grid (here: the file less its first experiment): holes hold
    # status -1 and NaN, integer results become floats, the rest is unchanged.
    sparse = os.path.join(work, "sparse.nc")
    with xr.open_dataset(results) as ds:
        ds.isel(experiment=slice(1, None)).to_netcdf(sparse)
    h = plot.grid(sparse)
    hole = dict(network_cc="dcqcn", training_tp=1, network_link_gbps=100)
    check(h.status.sel(hole).item() == -1 and math.isnan(h.packet_hops.sel(hole).item()),
          "hole of a sparse grid")
    check(int((h.status.values == -1).sum()) == 1, "one hole")
    there = h.status.values != -1
    check(np.array_equal(h.iteration_time.values[there], g.iteration_time.values[there],
                         equal_nan=True), "sparse grid values")

    heat = os.path.join(work, "heat.png")
    plot.heatmap(g, "iteration_time", "network.cc", "training_tp", heat)
    check(png_size(heat) == (640, 480), f"heat map size {png_size(heat)}")
    check(len(colours(heat)) > 50, "heat map has few colours")
    # What the heat map shows: the best over link_gbps.
    best = plot._best(g.iteration_time, ("network_cc", "training_tp"), False)
    want = np.fmin(g.iteration_time.isel(network_link_gbps=0), g.iteration_time.isel(network_link_gbps=1))
    check(np.array_equal(best.values, want.values, equal_nan=True), "heat map values")

    line = os.path.join(work, "lines.png")
    rc = subprocess.run([sys.executable, plot_py, results, "iteration_time", "--x", "training.tp",
                         "--hue", "network_cc", "-o", line]).returncode
    check(rc == 0 and png_size(line) == (640, 480), "line plot")
    # One line per CC in matplotlib's first three colours.
    cycle = {(31, 119, 180), (255, 127, 14), (44, 160, 44)}
    check(cycle <= colours(line), "three lines")
    bad = subprocess.run([sys.executable, plot_py, results, "iteration_time", "--x", "network.mtu",
                          "-o", line], capture_output=True, text=True)
    check(bad.returncode == 2 and "network.mtu: not a swept parameter" in bad.stderr, "bad axis")

    # What the command refuses (exit 2, one line), and what it skips.
    def run(*args):
        r = subprocess.run([sys.executable, plot_py, *args], capture_output=True, text=True)
        return r.returncode, r.stderr.strip()

    rc, err = run(results, "iteration_time", "--x", "training.tp", "-o", line)
    check(rc == 0 and err == "plot.py: skipped 4 of 24 experiments that are not ok "
          "(oom, invalid, failed or timed_out)", f"skipped rows: {rc} {err}")
    cases = [
        (("--x", "network.cc", "--y", "training.tp", "--hue", "network.link_gbps"),
         "plot.py: give --y (a heat map) or --hue (lines), not both"),
        (("--x", "network.cc", "--y", "network_cc"),
         f"plot.py: {results}: network.cc: give two different swept parameters"),
    ]
    for extra, want in cases:
        rc, err = run(results, "iteration_time", *extra, "-o", line)
        check(rc == 2 and err == want, f"{extra}: {rc} {err}")
    for metric in ("status", "message", "network_cc", "experiment_index"):
        rc, err = run(results, metric, "--x", "training.tp", "-o", line)
        check(rc == 2 and err.startswith(f"plot.py: {results}: {metric}: not a result to plot"),
              f"metric {metric}: {rc} {err}")
    rc, err = run(results, "iteration_time", "--x", "training.tp", "-o", "nodir/p.png")
    check(rc == 2 and err == "plot.py: -o nodir/p.png: no folder nodir", f"-o nodir: {err}")
    rc, err = run(results, "iteration_time", "--x", "training.tp", "-o", results)
    check(rc == 2 and err == f"plot.py: -o {results}: is the results file: give another file",
          f"-o the results file: {err}")
    rc, err = run(results, "iteration_time", "--x", "training.tp", "-o", work)
    check(rc == 2 and err == f"plot.py: -o {work}: not a regular file: give a file's path",
          f"-o a folder: {err}")
    junk = os.path.join(work, "junk.nc")
    with open(junk, "w") as f:
        f.write("not netcdf\n")
    rc, err = run(junk, "iteration_time", "--x", "training.tp", "-o", line)
    check(rc == 2 and err.startswith(f"plot.py: {junk}: not a results file that reads (")
          and "\n" not in err, f"not NetCDF: {err}")
    with xr.open_dataset(results) as ds:
        bad = ds.copy()
        bad["status"] = bad["status"] * 0 + 3  # every experiment failed
        bad.to_netcdf(os.path.join(work, "failed.nc"))
        empty = ds.isel(experiment=slice(0, 0))  # netCDF4 cannot write 0 strings: numbers only
        empty.drop_vars([v for v in empty.variables if empty[v].dtype == object]).to_netcdf(
            os.path.join(work, "empty.nc"))
    rc, err = run(os.path.join(work, "failed.nc"), "iteration_time", "--x", "training.tp", "-o", line)
    check(rc == 2 and err.endswith("none of its 24 experiments is ok: nothing to plot"),
          f"all failed: {err}")
    rc, err = run(os.path.join(work, "empty.nc"), "iteration_time", "--x", "training.tp", "-o", line)
    check(rc == 2 and err.endswith("no experiments: nothing to plot"), f"empty: {err}")
    check(not [f for f in os.listdir(work) if ".mvtmp-" in f], "a temporary copy was left")

    print(f"{cells} of {len(rows)} grid cells equal their shard rows; "
          f"heat.png {png_size(heat)}, lines.png {png_size(line)}")
    return 1 if FAILS else 0


if __name__ == "__main__":
    sys.exit(main(*sys.argv[1:5]))
