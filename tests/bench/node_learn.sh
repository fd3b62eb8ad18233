#!/usr/bin/env bash
# The cost model learning, measured on any machine (no GPU): each sweep run
# RUNS times on the CPU, the first run with a fresh costs file (the shipped
# presets alone), each later one with the file the runs before it left. Per
# run: the plan's estimate of the makespan at the start and once 10% of the
# batches (or of the experiments) have ended, over the measured makespan
# (progress.json's elapsed_s), and each batch's estimate over its measured
# seconds (median, how many in 0.8-1.25, the worst).
#
#   tests/bench/node_learn.sh WORKDIR [BUILD]      (BUILD: default build)
#
# Environment: RUNS=3  PARTS="grid scale"
#   grid   tests/mpi's 32-experiment grid (4 flow files x 4 CCs x 2 load
#          balancers; experiments of 10-700 ms) on one CPU worker of one
#          thread, batches of at most 2
#   scale  tools/mpi_scale.sh's sweep made smaller (FILES=4 FLOWS=128
#          MAX_BYTES=4000000: 96 experiments on the k=8 fat tree), one rank
#          with the rank's cores, the cost model's batches
set -euo pipefail
[ $# = 1 ] || [ $# = 2 ] || { echo "usage: tests/bench/node_learn.sh WORKDIR [BUILD]" >&2; exit 2; }
src=$(cd "$(dirname "$0")/../.." && pwd)
build=$(cd "${2:-$src/build}" && pwd)
runs=${RUNS:-3}
parts=${PARTS:-grid scale}
mkdir -p "$1"
out=$(cd "$1" && pwd)
mv=$build/driver/multiverse
source "$src/tests/mpi/mpi_common.sh"

# row PART RUN RUNDIR: the table's row of one run, from rank 0's log.
row() {
  $PY - "$@" << 'PY'
import json, re, statistics, sys
part, run, rundir = sys.argv[1], int(sys.argv[2]), sys.argv[3]
log = open(f"{rundir}/logs/a0001-r000000.log").read()
measured = json.load(open(f"{rundir}/progress.json"))["elapsed_s"]
batch = [float(e) / float(w) for w, e in re.findall(r" in ([0-9.]+) s, estimated ([0-9.]+) s \(error", log)]
est = [(int(b), int(x), int(t), float(m)) for b, x, t, m in re.findall(
    r"estimate: (\d+) batches done, (\d+) of (\d+) experiments, .* makespan ([0-9.]+) s", log)]
start = est[0][3]
# Once 10% of the batches or of the experiments have ended (the first such line).
ten = next((m for b, x, t, m in est if (b > 0 and b >= 0.1 * len(batch)) or (x > 0 and x >= 0.1 * t)), float("nan"))
worst = max(batch, key=lambda x: max(x, 1 / x))
inside = sum(0.8 <= x <= 1.25 for x in batch)
costs = "fresh (the presets)" if run == 1 else f"after {run - 1} run(s)"
print(f"| {part} | {run} | {costs} | {start / measured:.3f} | {ten / measured:.3f} | {measured:.2f} | "
      f"{len(batch)} | {statistics.median(batch):.3f} | {inside} of {len(batch)} | {worst:.3f} |")
PY
}

echo "| sweep | run | costs file | estimate at start / measured | after 10% / measured | measured (s) | batches | batch estimate / measured: median | in 0.8-1.25 | worst |"
echo "|---|---|---|---|---|---|---|---|---|---|"
if [[ " $parts " == *" grid "* ]]; then
  mv_setup "$src" "$build/tests/mv_genflows" "$out/grid"
  for i in $(seq 1 "$runs"); do
    (cd "$out/grid" && "$mv" run grid.json --run-dir "r$i" --costs costs.json --workers cpu:1 \
      --max-batch 2 --progress-every 1000 > "r$i.out" 2> "r$i.err")
    row grid "$i" "$out/grid/r$i"
  done
fi
if [[ " $parts " == *" scale "* ]]; then
  rm -f "$out/scale-costs.json"
  for i in $(seq 1 "$runs"); do
    MULTIVERSE_COSTS=$out/scale-costs.json WORK=$out/scale$i FILES=4 FLOWS=128 MAX_BYTES=4000000 \
      STAGE=one BACKEND=cpu MAX_BATCH=0 BUILD=$build "$src/tools/mpi_scale.sh" > "$out/scale$i.out" 2>&1
    row scale "$i" "$out/scale$i/run1"
  done
fi
