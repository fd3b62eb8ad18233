#!/usr/bin/python3
"""Checks of a run folder of the tests/mpi jobs (mpi_common.sh).

    run_checks.py rows RUNDIR N [D] the shards hold N rows with D (default N)
                                    distinct ids: with D = N each experiment was
                                    simulated exactly once
    run_checks.py mixed RESULTS.nc  the mixed job's rows: 32 grid experiments ok,
                                    mtu=64990 invalid, the malformed and the
                                    missing flow file failed with their reasons,
                                    the repeat of experiment 0 shares its id and
                                    every value
    run_checks.py progress RUNDIR KEY=VALUE...  progress.json holds these values
"""
import glob
import json
import sys

import numpy as np
import xarray as xr

OK, INVALID, FAILED = 0, 2, 3


def rows(run_dir, n, distinct=None):
    distinct = int(distinct or n)
    ids = []
    for path in sorted(glob.glob(f"{run_dir}/shards/*.nc")):
        with xr.open_dataset(path) as ds:
            ids += list(ds.experiment_id.values)
    assert len(ids) == int(n), f"{run_dir}: {len(ids)} shard rows, expected {n}"
    assert len(set(ids)) == distinct, f"{run_dir}: {len(set(ids))} distinct ids in {len(ids)} rows"
    print(f"{run_dir}: {len(ids)} shard rows, {distinct} distinct experiments")


def mixed(path):
    ds = xr.open_dataset(path)
    st, msg, idx = ds.status.values, ds.message.values, ds.experiment_index.values
    assert list(idx) == list(range(36)), idx
    assert (st[:32] == OK).all(), st[:32]
    assert st[32] == INVALID and "mtu: must be 1..65000-header bytes" in msg[32], msg[32]
    assert st[33] == FAILED and msg[33].endswith("bad.txt:1: expected 2 flows, found 1"), msg[33]
    assert st[34] == FAILED and msg[34].endswith("missing.txt: No such file or directory"), msg[34]
    assert st[35] == OK
    ids = ds.experiment_id.values
    assert ids[35] == ids[0] and len(set(ids)) == 35, "the repeat shares experiment 0's id"
    for v in ds.data_vars:
        if ds[v].attrs.get("sweep_key") or v in ("experiment_index",):
            continue
        a, b = ds[v].values[0], ds[v].values[35]
        assert a == b or (isinstance(a, float) and np.isnan(a) and np.isnan(b)), (v, a, b)
    assert np.isnan(ds.max_fct.values[32:35]).all(), "rows that did not run have no results"
    assert (ds.max_fct.values[:32] > 0).all()
    print(f"{path}: 32 ok, 1 invalid, 2 failed with their reasons, experiment 35 = experiment 0")


def progress(run_dir, *pairs):
    with open(f"{run_dir}/progress.json") as f:
        p = json.load(f)
    for pair in pairs:
        key, want = pair.split("=")
        assert str(p[key]) == want, f"{run_dir}/progress.json: {key} is {p[key]}, expected {want}"
    print(f"{run_dir}/progress.json: {' '.join(pairs)}")


if __name__ == "__main__":
    {"rows": rows, "mixed": mixed, "progress": progress}[sys.argv[1]](*sys.argv[2:])
