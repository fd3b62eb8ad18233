#!/usr/bin/env bash
# `make demo`: three experiments (a 16:1 incast, a permutation, 200 random flows)
# on a 32-host leaf-spine, run as one batch by `multiverse net`; then the incast
# again under each congestion control; then a ring all-reduce across 4 servers
# of 8 GPUs on that leaf-spine under two congestion controls; then a sweep
# through `mpirun -np 2 multiverse run`, its report and a heat map; then a small
# training sweep (six parallel plans of GPT-3 1.3B on 32 H200) by `multiverse
# train`, with a Perfetto trace.
set -euo pipefail
build=${1:-build}
here=$(cd "$(dirname "$0")" && pwd)
out=$build/demo-net
mv=$build/driver/multiverse
rm -rf "$out" # a new run: multiverse refuses to write over an earlier one
"$mv" net --topology "$here/net/leafspine.json" \
  --flows "$here/net/incast16.txt" --flows "$here/net/permutation.txt" --flows "$here/net/random.txt" \
  -o "$out"
echo "FCT files (ns-3 HPCC format): $out/fct-0.txt .. fct-2.txt; summaries: $out/summary.jsonl"
echo
echo "The incast under each congestion control:"
for cc in none dcqcn dctcp hpcc; do
  printf '  %-6s ' "$cc"
  "$mv" net --topology "$here/net/leafspine.json" --flows "$here/net/incast16.txt" --set cc=$cc \
    -o "$out/cc-$cc" | sed 's/^exp 0 [^:]*: //'
done
echo
echo "A ring all-reduce of 64 MiB among 32 H200 (4 servers of 8 GPUs, a 100 Gb/s NIC per GPU on the leaf-spine):"
"$mv" collective --op allreduce --bytes 64M --gpus 32 --topology "$here/net/leafspine.json" \
  --sweep cc=dcqcn,hpcc

echo
echo "A sweep (examples/net/sweep.json: 4 congestion controls x 3 load balancers x 3 buffer"
echo "sizes on the random traffic) on 2 MPI ranks, its report and a heat map:"
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 # the demo may run as root
run=$build/demo-run
mpirun --oversubscribe -np 2 "$mv" run "$here/net/sweep.json" --run-dir "$run" --force
"$mv" report "$run/results.nc" --metric p99_slowdown --top 5
/usr/bin/python3 "$here/../analysis/plot.py" "$run/results.nc" p99_slowdown --x network.cc \
  --y network.lb -o "$run/p99_slowdown.png"
echo "heat map: $run/p99_slowdown.png; shards, manifest, logs and progress.json: $run/"
echo
echo "Training: GPT-3 1.3B on 4 servers of 8 H200, six TP x PP plans (examples/train/sweep.json):"
mkdir -p "$build/demo-train"
"$mv" train "$here/train/sweep.json" --trace "$build/demo-train/trace.json"
echo "Trace of experiment 0: $build/demo-train/trace.json (open it at https://ui.perfetto.dev)"
