#!/usr/bin/python3
"""A merged results file opens in xarray as a grid over the swept parameters
whose every cell equals its row in the shards (the lowest status winning over
reruns), and analysis/plot.py draws 640 x 480 PNG heat maps and line plots of it.

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

    print(f"{cells} of {len(rows)} grid cells equal their shard rows; "
          f"heat.png {png_size(heat)}, lines.png {png_size(line)}")
    return 1 if FAILS else 0


if __name__ == "__main__":
    sys.exit(main(*sys.argv[1:5]))
