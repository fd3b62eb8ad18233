#!/usr/bin/env bash
# Refinement and fidelity end to end, on network experiments: a sweep of 6 at
# the flow level, refined to its 2 best by max_fct at the packet level. The
# kept ones are the 2 smallest max_fct of stage 0 (ties: the lower index);
# each refined row equals `multiverse net` of the same flows at the packet
# level to the last digit; 2 MPI ranks give the same rows; a rerun keeps the
# same ones and runs nothing; the
# report ranks them against stage 0; `multiverse fidelity` prints, for its
# sample, the flow level's and the packet level's values that `net` gives, the
# same on 2 MPI ranks and from a rerun in its run folder.
# (No congestion control: results do not depend on the seed, which is the
# experiment id, and `net`'s ids differ from the job's.)
# usage: refine.sh MULTIVERSE MV_GENFLOWS WORK
set -euo pipefail
mv=$(realpath "$1") gen=$(realpath "$2") work=$3
fail() { echo "FAIL: $*"; exit 1; }
rm -rf "$work" && mkdir -p "$work" && cd "$work"
for i in 0 1 2; do "$gen" random 16 $((i + 1)) 12 300000 20000 > f$i.txt; done
cat > job.json << 'JOB'
{"name": "refine",
 "base": {"network": {"topology": {"kind": "fat_tree", "tiers": 3, "k": 4, "link_gbps": 100,
                                   "link_delay_ns": 1000},
                      "flows": "f0.txt", "cc": "none", "model": "flow"}},
 "sweep": {"grid": {"network.flows": ["f0.txt", "f1.txt", "f2.txt"],
                    "network.topology.link_gbps": [100, 25]}},
 "refine": {"metric": "max_fct", "keep": 2, "set": {"network.model": "packet"}}}
JOB
"$mv" plan job.json --run-dir run > plan.out 2>&1 || fail "$(cat plan.out)"
grep -q "^then refine stage 1: the best 2 of stage 0's ok experiments by max_fct (lower is better), again with {\"network.model\":\"packet\"}" plan.out ||
  fail "$(cat plan.out)"
"$mv" run job.json --run-dir run --backend cpu --threads 2 > run.out 2>&1 || fail "$(cat run.out)"
grep -q "refine stage 1: the best 2 of 6 ok experiments of stage 0 by max_fct (lower is better), again with {\"network.model\":\"packet\"}" run.out ||
  fail "$(cat run.out)"
grep -q "wrote run/results.nc: 8 experiments (8 ok)" run.out || fail "$(cat run.out)"
# The packet level of every stage-0 experiment, alone, through `multiverse net`.
for i in 0 1 2; do
  for g in 100 25; do
    echo "{\"kind\":\"fat_tree\",\"tiers\":3,\"k\":4,\"link_gbps\":$g,\"link_delay_ns\":1000}" > t$g.json
    for m in flow packet; do
      "$mv" net --topology t$g.json --flows f$i.txt --set cc=none --set model=$m --json \
        -o net-$m-$i-$g > net-$m-$i-$g.json
    done
  done
done
/usr/bin/python3 - << 'PY' || fail "results differ"
import json
import xarray as xr
ds = xr.open_dataset("run/results.nc")
def net(m, i, g):
    return json.loads(open(f"net-{m}-{i}-{g}.json").read().splitlines()[0])
stage0 = []
for r in range(6):
    row = ds.isel(experiment=r)
    i, g = ["f0.txt", "f1.txt", "f2.txt"].index(str(row.network_flows.values)), int(row.network_topology_link_gbps)
    assert int(row.refine_stage) == 0 and int(row.refine_of) == -1
    assert str(row.network_model.values) == "flow"
    want = net("flow", i, g)["max_fct_ns"] * 1e-9
    assert abs(float(row.max_fct) - want) < 1.01e-9, (r, float(row.max_fct), want)  # net: whole ns
    stage0.append((float(row.max_fct), r, i, g))
kept = sorted(stage0)[:2]
for k, (v, r, i, g) in enumerate(kept):
    row = ds.isel(experiment=6 + k)
    assert int(row.refine_stage) == 1 and int(row.refine_of) == r, (k, int(row.refine_of), r)
    assert str(row.network_model.values) == "packet"
    want = net("packet", i, g)
    assert abs(float(row.max_fct) - want["max_fct_ns"] * 1e-9) < 1.01e-9, (float(row.max_fct), want)
    assert int(row.packet_hops) == want["packet_hops"] > 0
print("ok")
PY
# On 2 MPI ranks: the same rows (every stage planned by rank 0, run by both).
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_rmaps_base_oversubscribe=1
mpirun -np 2 "$mv" run job.json --run-dir run2 --backend cpu --threads 1 > run2.out 2>&1 ||
  fail "$(cat run2.out)"
grep -q "wrote run2/results.nc: 8 experiments (8 ok)" run2.out || fail "$(cat run2.out)"
/usr/bin/python3 - << 'PY' || fail "2 ranks differ from 1"
import xarray as xr
a, b = xr.open_dataset("run/results.nc"), xr.open_dataset("run2/results.nc")
for v in ["experiment_id", "refine_stage", "refine_of", "network_model", "max_fct", "packet_hops"]:
    assert (a[v].values == b[v].values).all(), v
PY
# A rerun: the same ones kept, nothing to run.
"$mv" run job.json --run-dir run --backend cpu > rerun.out 2>&1 || fail "$(cat rerun.out)"
grep -q "refine stage 1: 0 to run in 0 batches" rerun.out || fail "$(cat rerun.out)"
grep -q "wrote run/results.nc: 8 experiments (8 ok)" rerun.out || fail "$(cat rerun.out)"
"$mv" report run > report.txt || fail "$(cat report.txt)"
grep -q "^best 2 of 2 ok experiments of refine stage 1:" report.txt || fail "$(cat report.txt)"
grep -q "^refine stage 1: 2 of 6 ok experiments of stage 0 again, 2 ok:" report.txt ||
  fail "$(cat report.txt)"
grep -q "^stage 1's best was stage 0's rank [12] of 6 " report.txt || fail "$(cat report.txt)"
# Fidelity: 3 of the 6, each at both levels, the values `net` gives.
"$mv" fidelity job.json --sample 3 --seed 7 --threads 2 > fid.txt || fail "$(cat fid.txt)"
grep -q "^multiverse fidelity: job.json: 3 of 6 distinct experiments (seed 7), metric max_fct" fid.txt ||
  fail "$(cat fid.txt)"
/usr/bin/python3 - << 'PY' || fail "fidelity differs: $(cat fid.txt)"
import json, re
import xarray as xr
ds = xr.open_dataset("run/results.nc")
rows = [l.split() for l in open("fid.txt") if re.match(r"^ +[0-9]+ +[0-9.e+-]+ +[0-9.e+-]+ +[0-9.]+ ", l)]
assert len(rows) == 3, rows
for idx, fast, slow, ratio, _ in rows:
    row = ds.isel(experiment=int(idx))
    i, g = ["f0.txt", "f1.txt", "f2.txt"].index(str(row.network_flows.values)), int(row.network_topology_link_gbps)
    pk = json.loads(open(f"net-packet-{i}-{g}.json").read().splitlines()[0])["max_fct_ns"] * 1e-9
    assert abs(float(fast) - float(row.max_fct)) <= 1e-8 * float(fast), (fast, float(row.max_fct))
    assert abs(float(slow) - pk) < 1.01e-9 + 1e-8 * pk, (slow, pk)
    assert abs(float(ratio) - float(fast) / float(slow)) < 1e-4
line = [l for l in open("fid.txt") if l.startswith("rank correlation (Spearman): ")]
assert len(line) == 1, line
print("ok")
PY
# Fidelity through the pipeline: on 2 MPI ranks in a run folder it keeps, the
# same table; a rerun there runs nothing and prints it again.
table() { grep -E "^ +[0-9]+ +[0-9.e+-]+ +[0-9.e+-]+ +[0-9.]+ |^rank correlation" "$1"; }
mpirun -np 2 "$mv" fidelity job.json --sample 3 --seed 7 --threads 1 --run-dir fidrun > fid2.txt 2>&1 ||
  fail "$(cat fid2.txt)"
diff <(table fid.txt) <(table fid2.txt) || fail "2 ranks: $(cat fid2.txt)"
grep -q "wrote fidrun/results.nc: 6 experiments (6 ok)" fid2.txt || fail "$(cat fid2.txt)"
"$mv" fidelity job.json --sample 3 --seed 7 --run-dir fidrun > fid3.txt 2>&1 || fail "$(cat fid3.txt)"
grep -q "0 to run in 0 batches" fid3.txt || fail "$(cat fid3.txt)"
diff <(table fid.txt) <(table fid3.txt) || fail "rerun: $(cat fid3.txt)"
echo "refine: ok"
