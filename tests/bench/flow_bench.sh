#!/usr/bin/env bash
# The flow level against the packet level on training sweeps (issue 22's
# targets). For each job: its experiments by `multiverse run` at the flow
# level (network.model flow), against the same job's results at the packet
# level: the ratio of iteration times (median, p10, p90, |ratio - 1|),
# Spearman's rank correlation, and where the packet level's best ranks at the
# flow level (ties share the better rank). Speed: CPU seconds (user + sys) of
# `multiverse train --experiment I --threads 1` at both levels, side by side
# on FLOW_BENCH_SAMPLE experiments spread evenly over the job (default 8: the
# packet level takes seconds to minutes each here; 0: none), and the flow
# level's whole run. The packet level's run takes hours on 2 cores: a run
# folder given after the job (results.nc; `multiverse run JOB --backend cuda
# --run-dir DIR` on a GPU) is used as it is (the sampled experiments' rows are
# checked against this build's); otherwise this script runs it (`multiverse
# run`, 2 ranks of 1 thread). Prints a Markdown section (tests/bench/RESULTS.md,
# "Flow level against packet level").
# usage: flow_bench.sh MULTIVERSE WORKDIR JOB.json [PACKET_RUN_DIR] [JOB.json [DIR]] ...
set -euo pipefail
mv=$(realpath "$1") work=$(mkdir -p "$2" && realpath "$2")
shift 2
sample=${FLOW_BENCH_SAMPLE:-8}
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_rmaps_base_oversubscribe=1
# cpu OUT CMD...: CMD's CPU seconds (user + sys, to the microsecond) to stdout,
# its stdout to OUT.
cpu() {
  /usr/bin/python3 -c '
import os, sys
pid = os.fork()
if pid == 0:
    fd = os.open(sys.argv[1], os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644)
    os.dup2(fd, 1)
    os.dup2(os.open(os.devnull, os.O_WRONLY), 2)
    os.execv(sys.argv[2], sys.argv[2:])
_, status, ru = os.wait4(pid, 0)
print(f"{ru.ru_utime + ru.ru_stime:.6f}")' "$@"
}
# level JOB MODEL OUT: the job with network.model MODEL (and no refine), in
# the job's folder (its files are relative to it); prints its path.
level() {
  local out
  out=$(dirname "$(realpath "$1")")/.flow_bench_$2_$(basename "$1")
  /usr/bin/python3 - "$1" "$2" "$out" << 'PY'
import json, sys
job, model, out = sys.argv[1:]
j = json.load(open(job))
# packet: the default, left unsaid (the experiments' ids, which seed their
# RNG, are those of a job that does not name it)
j["base"].setdefault("network", {})["model"] = model
if model == "packet":
    del j["base"]["network"]["model"]
j.pop("refine", None)
json.dump(j, open(out, "w"), indent=1)
PY
  echo "$out"
}
echo "## Flow level against packet level (\`tests/bench/flow_bench.sh\`)"
echo
echo "$(uname -n), $(nproc) cores, load average $(cut -d' ' -f1-3 /proc/loadavg) at the start, commit $(git -C "$(dirname "$0")" rev-parse --short HEAD 2>/dev/null || echo '?')."
while [ $# -gt 0 ]; do
  job=$1
  shift
  pk=
  if [ $# -gt 0 ] && [ -d "$1" ]; then pk=$(realpath "$1"); shift; fi
  name=$(basename "$job" .json)
  fj=$(level "$job" flow) pj=$(level "$job" packet)
  /usr/bin/time -f "%e %U %S" -o "$work/$name-flow.time" "$mv" run "$fj" --run-dir "$work/$name-flow" \
    --force --backend cpu --threads 2 > "$work/$name-flow.log" 2>&1
  if [ -z "$pk" ]; then
    pk=$work/$name-packet
    /usr/bin/time -f "%e %U %S" -o "$work/$name-packet.time" mpirun -np 2 "$mv" run "$pj" \
      --run-dir "$pk" --force --backend cpu --threads 1 --progress-every 60 > "$work/$name-packet.log" 2>&1
  fi
  # Side by side, one experiment at a time: CPU seconds at each level.
  n=$(/usr/bin/python3 -c "import xarray as xr; print(xr.open_dataset('$pk/results.nc').sizes['experiment'])")
  : > "$work/$name-speed.tsv"
  for ((k = 0; k < sample; k++)); do
    i=$((((2 * k + 1) * n / (2 * sample) + k) % n)) # + k: off a grid's period
    for m in flow packet; do
      j=$fj
      [ $m = packet ] && j=$pj
      t=$(cpu "$work/$name-$m-$i.json" "$mv" train "$j" --experiment $i --threads 1 --json)
      printf '%s\t%s\t%s\n' $i $m "$t" >> "$work/$name-speed.tsv"
    done
  done
  rm -f "$fj" "$pj"
  /usr/bin/python3 - "$job" "$work/$name-flow" "$pk" "$work/$name-flow.time" "$work/$name-speed.tsv" << 'PY'
import math, sys
import numpy as np
import xarray as xr
job, fdir, pdir, ftime, speed = sys.argv[1:]
f = xr.open_dataset(f"{fdir}/results.nc")
p = xr.open_dataset(f"{pdir}/results.nc")
n = f.sizes["experiment"]
assert p.sizes["experiment"] == n and (f["experiment_index"].values == p["experiment_index"].values).all()
ok = (f["status"].values == 0) & (p["status"].values == 0)
x, y = f["iteration_time_s"].values[ok], p["iteration_time_s"].values[ok]
r = x / y
err = np.abs(r - 1)
def ranks(v):  # average ranks of ties
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
rho = np.corrcoef(ranks(x), ranks(y))[0, 1]
best = int(np.argmin(y))
rank = 1 + int((x < x[best]).sum())
top5 = math.ceil(0.05 * len(x))
cpu = {}
for line in open(speed):
    i, m, t = line.split()
    cpu.setdefault(int(i), {})[m] = float(t)
wall, user, sys_ = (float(v) for v in open(ftime).read().split())
import json, os
base = ftime[:-len("-flow.time")]
print()
print(f"### {job}: {n} experiments, {int(ok.sum())} ok at both levels")
print()
print("Speed, side by side: CPU seconds (user + sys) of `multiverse train --experiment I "
      "--threads 1` (graph, run and output) at each level; iteration times from the same runs.")
print()
print("| experiment | swept values | flow CPU s | packet CPU s | packet / flow | flow iteration s | packet iteration s |")
print("|---|---|---|---|---|---|---|")
fl, pk, same = [], [], []
for i in sorted(cpu):
    a, b = (json.loads(open(f"{base}-{m}-{i}.json").read() or "{}") for m in ("flow", "packet"))
    if "flow" not in cpu[i] or "packet" not in cpu[i] or "iteration_time_s" not in a or "iteration_time_s" not in b:
        continue
    fl.append(cpu[i]["flow"])
    pk.append(cpu[i]["packet"])
    row = p.isel(experiment=int(np.nonzero(p["experiment_index"].values == i)[0][0]))
    same.append(abs(b["iteration_time_s"] / float(row["iteration_time_s"]) - 1))
    sw = ", ".join(f"{k.split('.')[-1]} {v}" for k, v in b.get("sweep", {}).items())
    print(f"| {i} | {sw} | {fl[-1]:.3f} | {pk[-1]:.2f} | {pk[-1] / fl[-1]:.0f}x | "
          f"{a['iteration_time_s']:.6f} | {b['iteration_time_s']:.6f} |")
fl, pk = np.array(fl), np.array(pk)
whole = (f"The flow level's whole sweep (`multiverse run`, 2 threads): {wall:.1f} s wall, "
         f"{user + sys_:.1f} s of CPU, {(user + sys_) / n * 1000:.1f} ms of CPU per experiment")
if len(fl):
    print(f"| **all {len(fl)}** | | {fl.sum():.3f} | {pk.sum():.2f} | **{pk.sum() / fl.sum():.0f}x** "
          f"(median {np.median(pk / fl):.0f}x) | | |")
    print()
    print(f"{whole} (against the sampled packet level's mean {pk.mean():.2f} s: "
          f"{pk.mean() / ((user + sys_) / n):.0f}x). The packet level's results file: "
          f"{sum(d == 0 for d in same)} of the {len(same)} sampled rows equal this build's to the "
          f"last bit (the others within {100 * max(same):.3f} %).")
else:  # FLOW_BENCH_SAMPLE=0: no experiment rerun side by side
    print(f"(none)\n\n{whole}.")
print()
print(f"Iteration time, flow level over packet level, {len(r)} experiments: median "
      f"**{np.median(r):.4f}**, p10 {np.percentile(r, 10):.4f}, p90 {np.percentile(r, 90):.4f}, "
      f"min {r.min():.4f}, max {r.max():.4f}; |ratio - 1|: median {100 * np.median(err):.2f} %, "
      f"**p90 {100 * np.percentile(err, 90):.2f} %**, max {100 * err.max():.2f} %. Spearman's rank "
      f"correlation: **{rho:.4f}**. The packet level's best (experiment "
      f"{int(f['experiment_index'].values[ok][best])}, {y[best]:.6g} s) is the flow level's "
      f"**rank {rank} of {len(x)}** (its top 5 %: rank {top5} or better).")
PY
done
