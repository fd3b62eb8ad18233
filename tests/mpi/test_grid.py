#!/usr/bin/python3
"""The grid job's merged results (mpi_common.sh: 4 flow files x 4 CCs x 2 load
balancers, run on 2 ranks) opened with xarray and unstacked into the grid;
every cell equals its row in the shard that holds its experiment id; and
every cell equals what `multiverse net` reports for the same experiment
(same experiment id, FCTs to the ns, counters exactly, slowdowns).

    test_grid.py RUNDIR NET_SUMMARY.jsonl
"""
import glob
import json
import sys

import numpy as np
import xarray as xr

FLOWS = ["f0.txt", "f1.txt", "f2.txt", "f3.txt"]
CCS = ["none", "dcqcn", "dctcp", "hpcc"]
LBS = ["ecmp", "spray"]
EXACT = ["drops", "pfc_pauses", "ecn_marks", "cnps", "retransmits", "timeouts", "packet_hops",
         "windows", "flows", "flows_done", "bytes", "retx_bytes"]


def ns(seconds):
    """A time in s (an exact number of ps, scaled) truncated to ns as `net` prints it."""
    return int(round(seconds * 1e12)) // 1000


def main(run_dir, net_summary):
    ds = xr.open_dataset(f"{run_dir}/results.nc")
    axes = ds.attrs["swept_parameters"].split()
    assert axes == ["network_flows", "network_cc", "network_lb"], axes
    grid = ds.set_index(experiment=axes).unstack("experiment")
    assert dict(grid.sizes) == {"network_flows": 4, "network_cc": 4, "network_lb": 2}, grid.sizes
    assert sorted(grid.network_cc.values) == sorted(CCS)
    fixed = ["experiment_index", "experiment_id", "status", "message", "config_json"]
    results = [v for v in ds.data_vars if v not in axes + fixed]
    assert len(results) == 22, results

    shard_rows = {}
    for path in sorted(glob.glob(f"{run_dir}/shards/*.nc")):
        sh = xr.open_dataset(path)
        for k, eid in enumerate(sh.experiment_id.values):
            shard_rows[eid] = (sh, k)
    assert len(shard_rows) == 32, len(shard_rows)

    cells = 0
    for f in FLOWS:
        for cc in CCS:
            for lb in LBS:
                cell = grid.sel(network_flows=f, network_cc=cc, network_lb=lb)
                assert int(cell.status) == 0, (f, cc, lb, str(cell.message.values))
                sh, k = shard_rows[str(cell.experiment_id.values)]
                for v in results:
                    a, b = cell[v].values, sh[v].values[k]
                    assert a == b, (f, cc, lb, v, a, b)
                cells += 1
    print(f"{cells} grid cells equal their shard rows ({len(results)} results each)")

    n = 0
    with open(net_summary) as fh:
        for line in fh:
            s = json.loads(line)
            cell = grid.sel(network_flows=s["flows_file"], network_cc=s["sweep"]["cc"],
                            network_lb=s["sweep"]["lb"])
            where = (s["flows_file"], s["sweep"])
            assert str(cell.experiment_id.values) == s["experiment_id"], where
            for key, var in (("max_fct_ns", "max_fct"), ("p99_fct_ns", "p99_fct"),
                             ("sim_end_ns", "sim_end"), ("paused_ns", "paused_time")):
                assert ns(float(cell[var])) == s[key], (where, key, float(cell[var]), s[key])
            # one statistics code (drv_fct_stats): net prints the mean in whole ns, truncated
            assert -1e-6 < float(cell.mean_fct) * 1e9 - s["mean_fct_ns"] < 1, where
            for key in EXACT:
                assert int(cell[key]) == s[key], (where, key, int(cell[key]), s[key])
            for key in ("p50_slowdown", "p99_slowdown", "mean_slowdown"):
                assert float(cell[key]) == s[key], (where, key, float(cell[key]), s[key])
            q = max(t["max_queue_bytes"] for t in s["tiers"])
            assert int(cell.max_queue) == q, (where, int(cell.max_queue), q)
            n += 1
    assert n == 32, n
    print(f"{n} experiments equal `multiverse net`'s summary of the same experiment")
    return 0


if __name__ == "__main__":
    sys.exit(main(*sys.argv[1:3]))
