#!/usr/bin/python3
"""Compares two results files experiment by experiment: the same experiments
(index, id) in the same order, and every variable (swept values, results,
status, message, config) equal, NaN equal to NaN. Global attributes (host,
date, shards) are not compared. Prints what it compared; exit 1 on the first
differences.

    same_results.py A.nc B.nc
"""
import sys

import numpy as np
import xarray as xr


def main(a_path, b_path):
    a, b = xr.open_dataset(a_path), xr.open_dataset(b_path)
    bad = []
    if sorted(a.data_vars) != sorted(b.data_vars):
        bad.append(f"variables differ: {sorted(a.data_vars)} vs {sorted(b.data_vars)}")
    for v in a.data_vars:
        if v not in b.data_vars:
            continue
        x, y = a[v].values, b[v].values
        if x.shape != y.shape:
            bad.append(f"{v}: shapes {x.shape} and {y.shape}")
            continue
        if x.dtype.kind == "f":
            same = (x == y) | (np.isnan(x) & np.isnan(y))
        else:
            same = x == y
        for k in np.flatnonzero(~same)[:3]:
            bad.append(f"{v}[{k}] (experiment {a.experiment_index.values[k]}): {x[k]!r} vs {y[k]!r}")
    if bad:
        print(f"{a_path} and {b_path} differ:\n  " + "\n  ".join(bad))
        return 1
    print(f"{a_path} == {b_path}: {a.sizes['experiment']} experiments, {len(a.data_vars)} variables")
    return 0


if __name__ == "__main__":
    sys.exit(main(*sys.argv[1:3]))
