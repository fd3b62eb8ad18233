#!/usr/bin/env bash
# The flow level (network.model flow) on the CUDA backend gives the CPU
# backend's results file, row for row and bit for bit (every data variable,
# doubles compared as bits), on training sweeps through `multiverse run`:
# GPT-3 1.3B over TP, PP, micro-batch, CC and rail-optimized or fat-tree
# fabrics (ring and tree all-reduces, pipeline sends, data-parallel buckets),
# and a mixture of experts (all-to-all across servers) under ZeRO-1; the CUDA
# run once whole and once with MULTIVERSE_CUDA_BYTES small enough that the
# batch goes to the device in several chunks. Exit 77 without a GPU.
# usage: flow_sweep_cuda.sh MULTIVERSE WORKDIR
set -euo pipefail
mv=$(realpath "$1") work=$2
# The rows are compared by tests/mpi/same_results.py: with xarray where it is
# installed, else through the NetCDF C library (the GPU machine has no numpy).
here=$(cd "$(dirname "$0")" && pwd)
same=$here/../mpi/same_results.py
fail() { echo "FAIL: $*"; exit 1; }
rm -rf "$work" && mkdir -p "$work" && cd "$work"
cat > dense.json << 'JOB'
{"name": "flow-dense",
 "base": {"model": {"preset": "gpt3-1.3b"},
          "training": {"global_batch": 64, "micro_batch": 1, "tp": 2, "pp": 2,
                       "sequence_parallel": true, "recompute": "selective"},
          "cluster": {"gpu": "h200", "servers": 4},
          "network": {"topology": {"kind": "rail_optimized"}, "link_gbps": 400, "cc": "dcqcn",
                      "model": "flow"}},
 "sweep": {"grid": {"training.tp": [1, 2, 4, 8], "training.pp": [1, 2, 4],
                    "network.cc": ["dcqcn", "hpcc"],
                    "network.topology.kind": ["rail_optimized", "fat_tree"],
                    "training.micro_batch": [1, 2]}}}
JOB
cat > moe.json << 'JOB'
{"name": "flow-moe",
 "base": {"model": {"layers": 4, "hidden": 2048, "heads": 16, "vocab": 32000, "seq_len": 1024,
                    "experts": 8, "top_k": 2},
          "training": {"global_batch": 32, "tp": 2, "ep": 4, "zero": 1,
                       "sequence_parallel": true},
          "cluster": {"gpu": "a100-80gb", "servers": 4, "gpus_per_server": 4, "nics_per_server": 2},
          "network": {"topology": {"kind": "fat_tree", "tiers": 2}, "model": "flow"}},
 "sweep": {"grid": {"training.ep": [2, 4], "training.tp": [1, 2],
                    "network.link_gbps": [100, 400], "training.micro_batch": [1, 2]}}}
JOB
for j in dense moe; do
  if ! MULTIVERSE_VERBOSE=1 "$mv" run $j.json --run-dir $j-gpu --backend cuda > $j-gpu.log 2>&1; then
    if grep -q -e 'no CUDA device' -e 'without the CUDA backend' $j-gpu.log; then
      echo "skipped: $(tail -1 $j-gpu.log)"
      exit 77
    fi
    fail "$(cat $j-gpu.log)"
  fi
  "$mv" run $j.json --run-dir $j-cpu --backend cpu --threads 2 > $j-cpu.log 2>&1 ||
    fail "$(cat $j-cpu.log)"
  # Device memory for 1.5 of the largest experiment: every batch of several
  # experiments goes in chunks (at least one must), each experiment fits.
  # (--memory: the planner still makes the batches of a large GPU.)
  one=$(sed -n 's/^flow level on the GPU: .*one at most \([0-9]*\))$/\1/p' $j-gpu.log | sort -n | tail -1)
  [ -n "$one" ] || fail "no 'flow level on the GPU' line in $j-gpu.log"
  MULTIVERSE_VERBOSE=1 MULTIVERSE_CUDA_BYTES=$((one * 3 / 2)) "$mv" run $j.json --run-dir $j-split \
    --backend cuda --memory 100 > $j-split.log 2>&1 || fail "$(cat $j-split.log)"
  grep -q "^flow level on the GPU: [0-9]* experiments in [2-9][0-9]* chunks" $j-split.log ||
    fail "no batch went in chunks: $(grep 'flow level on the GPU' $j-split.log)"
done
for j in dense moe; do
  # Every experiment ran at the flow level and most succeeded (a few MoE shapes
  # may not fit): the comparison is not of empty rows.
  /usr/bin/python3 - "$here/../mpi" $j-cpu/results.nc << 'PY' || fail "$j: too few rows to compare"
import sys
sys.path.insert(0, sys.argv[1])
import same_results
c = same_results.read_file(sys.argv[2])
status, hops, it = (c[v][1] for v in ("status", "packet_hops", "iteration_time_s"))
n, ok = len(status), sum(s == 0 for s in status)
assert ok >= n - 4 and ok > 8, (n, ok)
assert all(h == 0 for h in hops), "packet_hops"
assert all(t > 0 for s, t in zip(status, it) if s == 0), "iteration_time_s"
print(f"{sys.argv[2]}: {n} experiments, {ok} ok")
PY
  for other in gpu split; do
    /usr/bin/python3 "$same" $j-cpu/results.nc $j-$other/results.nc ||
      fail "$j: the CUDA backend's rows ($other) differ from the CPU's"
  done
done
echo "flow level: CUDA identical to CPU"
