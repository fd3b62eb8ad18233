#!/usr/bin/env bash
# The flow level against the packet level on training sweeps (issue 22's
# targets): each job's experiments run by `multiverse run` at the flow level
# (network.model flow), timed, and compared with the same job at the packet
# level: wall and CPU time per experiment, the ratio of iteration times
# (median, p10, p90, p90 of |ratio - 1|), Spearman's rank correlation, and
# where the packet level's best ranks at the flow level (ties share the
# better rank). The packet level's runs take hours on 2 cores: a run folder
# given as PACKET_DIR (holding results.nc and time.txt, "wall user sys" in s,
# as this script writes them) is used as it is; otherwise the script runs it.
# Prints a Markdown section (tests/bench/RESULTS.md, "Flow level").
# usage: flow_bench.sh MULTIVERSE WORKDIR JOB.json [PACKET_DIR] [JOB.json [PACKET_DIR]] ...
set -euo pipefail
mv=$(realpath "$1") work=$2
shift 2
threads=${FLOW_BENCH_THREADS:-2}
mkdir -p "$work"
# run JOB MODEL DIR: multiverse run at that level, timed into DIR/time.txt.
run() {
  local job=$1 model=$2 dir=$3
  /usr/bin/python3 - "$job" "$model" "$dir.json" << 'PY'
import json, sys
job, model, out = sys.argv[1:]
j = json.load(open(job))
j["base"].setdefault("network", {})["model"] = model
j.pop("refine", None)
json.dump(j, open(out, "w"), indent=1)
PY
  # the job's files (workloads, topologies) are relative to its folder
  cp "$dir.json" "$(dirname "$(realpath "$job")")/.flow_bench_$model.json"
  /usr/bin/time -f "%e %U %S" -o "$dir.time" "$mv" run \
    "$(dirname "$(realpath "$job")")/.flow_bench_$model.json" --run-dir "$dir" --force \
    --backend cpu --threads "$threads" --progress-every 60 > "$dir.log" 2>&1
  rm -f "$(dirname "$(realpath "$job")")/.flow_bench_$model.json"
  mv "$dir.time" "$dir/time.txt"
}
echo "## Flow level against packet level (\`tests/bench/flow_bench.sh\`)"
echo
echo "$(uname -n), $(nproc) cores, load average $(cut -d' ' -f1-3 /proc/loadavg) at the start, commit $(git -C "$(dirname "$0")" rev-parse --short HEAD 2>/dev/null || echo '?'), $threads threads."
while [ $# -gt 0 ]; do
  job=$1 pk=${2:-}
  shift
  if [ -n "$pk" ] && [ -d "$pk" ]; then shift; else pk=; fi
  name=$(basename "$job" .json)
  run "$job" flow "$work/$name-flow"
  if [ -z "$pk" ]; then
    pk=$work/$name-packet
    run "$job" packet "$pk"
  fi
  /usr/bin/python3 - "$job" "$work/$name-flow" "$pk" << 'PY'
import math, sys
import numpy as np
import xarray as xr
job, fdir, pdir = sys.argv[1:]
f = xr.open_dataset(f"{fdir}/results.nc")
p = xr.open_dataset(f"{pdir}/results.nc")
ft = [float(x) for x in open(f"{fdir}/time.txt").read().split()]
pt = [float(x) for x in open(f"{pdir}/time.txt").read().split()]
n = f.sizes["experiment"]
assert p.sizes["experiment"] == n, "the two levels' results differ in their experiments"
fi, pi = f["experiment_index"].values, p["experiment_index"].values
assert (fi == pi).all()
ok = (f["status"].values == 0) & (p["status"].values == 0)
x, y = f["iteration_time_s"].values[ok], p["iteration_time_s"].values[ok]
r = x / y
err = np.abs(r - 1)
def ranks(v):
    o = np.argsort(v, kind="stable")
    rk = np.empty(len(v))
    i = 0
    while i < len(v):
        j = i
        while j + 1 < len(v) and v[o[j + 1]] == v[o[i]]:
            j += 1
        rk[o[i:j + 1]] = (i + j) / 2 + 1
        i = j + 1
    return rk
rx, ry = ranks(x), ranks(y)
rho = np.corrcoef(rx, ry)[0, 1]
best = int(np.argmin(y))
rank = 1 + int((x < x[best]).sum())  # ties share the better rank
top5 = math.ceil(0.05 * len(x))
print()
print(f"### {job}: {n} experiments, {int(ok.sum())} ok at both levels")
print()
print("| | flow level | packet level | ratio |")
print("|---|---|---|---|")
print(f"| wall, whole run (s) | {ft[0]:.1f} | {pt[0]:.1f} | {pt[0] / ft[0]:.0f}x |")
print(f"| CPU, user + sys (s) | {ft[1] + ft[2]:.1f} | {pt[1] + pt[2]:.1f} | {(pt[1] + pt[2]) / (ft[1] + ft[2]):.0f}x |")
print(f"| wall per experiment (s) | {ft[0] / n:.4f} | {pt[0] / n:.2f} | |")
print()
print(f"iteration time, flow level / packet level over {len(r)} experiments: median {np.median(r):.4f}, "
      f"p10 {np.percentile(r, 10):.4f}, p90 {np.percentile(r, 90):.4f}, min {r.min():.4f}, max {r.max():.4f}; "
      f"|ratio - 1|: median {100 * np.median(err):.2f} %, p90 {100 * np.percentile(err, 90):.2f} %, "
      f"max {100 * err.max():.2f} %. Spearman's rank correlation: {rho:.4f}. The packet level's best "
      f"(experiment {int(pi[ok][best])}, {y[best]:.6g} s) is the flow level's rank {rank} of {len(x)} "
      f"(top 5 %: rank {top5} or better).")
PY
done
