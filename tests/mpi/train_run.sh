#!/usr/bin/env bash
# Training experiments through `multiverse run` on 2 MPI ranks (the `training`
# kind): a TP x PP sweep of GPT-3 1.3B with one impossible plan; every ok
# experiment's results equal what `multiverse train` gives it alone (iteration,
# exposure, memory, MFU, to the last digit), the impossible one is an invalid row
# naming its JSON path.
# usage: train_run.sh MULTIVERSE WORK
set -euo pipefail
mv=$(realpath "$1") work=$2
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
export OMPI_MCA_rmaps_base_oversubscribe=1
fail() { echo "FAIL: $*"; exit 1; }
rm -rf "$work" && mkdir -p "$work" && cd "$work"
cat > job.json << 'JOB'
{"name": "train-run",
 "base": {"model": {"preset": "gpt3-1.3b"},
          "training": {"global_batch": 16, "tp": 2, "sequence_parallel": true,
                       "recompute": "selective"},
          "cluster": {"gpu": "a100-80gb", "servers": 2, "gpus_per_server": 4,
                      "nics_per_server": 4}},
 "sweep": {"grid": {"training.pp": [1, 2, 3]}}}
JOB
# Every experiment has its row, one invalid: exit 1 (docs/cli.md, Exit status).
rc=0
mpirun -np 2 "$mv" run job.json --run-dir run --force > run.out 2>&1 || rc=$?
[ $rc = 1 ] || fail "exit $rc, expected 1: $(cat run.out)"
grep -q "wrote run/results.nc: 3 experiments (2 ok, 1 invalid)" run.out || fail "$(cat run.out)"
"$mv" train job.json --json > train.jsonl || true
/usr/bin/python3 - << 'PY' || fail "results differ"
import json, math
import xarray as xr
train = [json.loads(l) for l in open("train.jsonl")]
ds = xr.open_dataset("run/results.nc")
cols = ["iteration_time_s", "compute_s", "exposed_tp_s", "exposed_pp_s", "exposed_dp_s",
        "bubble_s", "peak_memory_bytes", "tokens_per_s", "mfu", "tasks", "flows", "packet_hops"]
for i in range(3):
    t = train[i]
    row = ds.sel(experiment=i) if "experiment" in ds.coords else ds.isel(experiment=i)
    st = int(row.status)
    if t["status"] == "invalid":
        assert st == 2, f"experiment {i}: status {st}"
        msg = str(row.message.values)
        assert "training.pp: tp*pp = 6 must divide the cluster's 8 GPUs" in msg, msg
        continue
    assert st == 0, f"experiment {i}: status {st}"
    assert t["experiment_id"] == str(row.experiment_id.values), (t["experiment_id"], row.experiment_id.values)
    for c in cols:
        a, b = float(row[c]), t[c]
        assert a == b, f"experiment {i} {c}: run {a!r}, train {b!r}"
print("run == train for", [t["status"] for t in train])
PY
echo ok
