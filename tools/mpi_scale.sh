#!/usr/bin/env bash
# Speed-up of `multiverse run` from 1 to N ranks (one per GPU): the same sweep
# run with 1 rank and with N, wall times, their ratio, and whether the merged
# results are identical (tests/mpi/same_results.py). For the 2-GPU check:
#
#   tools/mpi_scale.sh                      # on nvidia-h200-x2, after `make build`
#
# The sweep: FILES flow files on a k=8 three-tier fat-tree (128 hosts; half
# random traffic of FLOWS flows up to MAX_BYTES, half 16:1 incasts) x the
# congestion controls CCS x the load balancers LBS x 4 ACK coalescings.
# Environment (defaults):
#   BUILD=build RANKS=2 BACKEND=auto FILES=1152 FLOWS=256 MAX_BYTES=8000000
#   CCS="dcqcn dctcp hpcc" LBS="ecmp adaptive"
#   WORK=/tmp/mv_scale MAX_BATCH=528 (0: the cost model's batches)
#   STAGE=all: generate, plan, run 1 rank, run N ranks, compare; STAGE=one
#   stops after the 1-rank run and STAGE=many runs the N ranks on WORK as
#   STAGE=one left it (two calls of a machine that limits each one's time)
# The defaults: 27648 experiments, some 300 s on one H200. The speed-up of the
# whole command is (F + W) / (F + W/2 + tail): fixed costs F (MPI and CUDA start, rank 0's plan
# and merge: a few seconds) must stay under W/18 for 1.9x, and the tail (the
# last batch) small: raise MAX_BYTES if one rank takes less than a minute or
# two. 528 = two experiments per resident block. A batch lasts as long as its
# slowest experiment: cc "none" with adaptive routing or spraying reorders
# packets, and go-back-N then retransmits for 0.1-3 s of simulated time
# (millions of windows, one thread block's work on a GPU); that is why "none"
# is not in CCS by default (with it, 24 MB flows: 85-110 s per batch on an
# H200 against the plan's 3.5).
# Prints `multiverse plan`'s estimate for 1 and N ranks first (its cost model:
# jobs/presets/batching.json), then the measured times, and per rank of the
# N-rank run the seconds it spent in batches (their largest over their mean:
# the measured balance of the shared counter), and rank 0's seconds outside them.
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
build=${BUILD:-$here/build} ranks=${RANKS:-2} backend=${BACKEND:-auto}
files=${FILES:-1152} flows=${FLOWS:-256} max_bytes=${MAX_BYTES:-8000000}
work=${WORK:-/tmp/mv_scale} max_batch=${MAX_BATCH:-528}
ccs=${CCS:-dcqcn dctcp hpcc} lbs=${LBS:-ecmp adaptive}
jlist() { local a="" x; for x in $1; do a="$a${a:+, }\"$x\""; done; echo "$a"; }
mv=$build/driver/multiverse gen=$build/tests/mv_genflows
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
# The sweep's inputs in the current folder: the topology, the flow files, the job.
make_sweep() {
  echo '{"kind":"fat_tree","tiers":3,"k":8,"host_gbps":100,"link_gbps":100,"link_delay_ns":1000}' > fat.json
  local list="" i
  for i in $(seq 0 $((files - 1))); do
    if [ $((i % 2)) = 0 ]; then "$gen" random 128 $((i + 1)) "$flows" "$max_bytes" 50000 > f$i.txt
    else "$gen" incast 128 $((i + 1)) 16 "$max_bytes" 0 $((i % 128)) > f$i.txt; fi
    list="$list${list:+, }\"f$i.txt\""
  done
  cat > scale.json <<JSON
{"name": "scale", "base": {"network": {"topology": "fat.json", "flows": "f0.txt"}},
 "sweep": {"grid": {"network.flows": [$list], "network.cc": [$(jlist "$ccs")],
                    "network.lb": [$(jlist "$lbs")], "network.ack_every": [1, 2, 4, 8]}}}
JSON
}
stage=${STAGE:-all}
case $stage in
  all) runs="1 $ranks" ;;
  one) runs=1 ;;
  many) runs=$ranks ;;
  *) echo "mpi_scale.sh: STAGE=$stage: expected all, one or many" >&2; exit 2 ;;
esac
if [ "$stage" = many ]; then
  cd "$work" && [ -s wall1.txt ] || { echo "mpi_scale.sh: STAGE=many needs WORK=$work from STAGE=one" >&2; exit 2; }
else
  rm -rf "$work" && mkdir -p "$work" && cd "$work" && make_sweep
fi
opts=(--backend "$backend")
[ "$max_batch" != 0 ] && opts+=(--max-batch "$max_batch")
for n in $runs; do
  echo "plan for $n rank(s):"
  "$mv" plan scale.json --ranks "$n" "${opts[@]}" --run-dir none | sed 's/^/  /' || true
done
declare -A wall
for n in $runs; do
  t0=$(date +%s.%N)
  mpirun --oversubscribe --bind-to none -np "$n" "$mv" run scale.json --run-dir run$n --force "${opts[@]}" \
    > run$n.out 2> run$n.err || { cat run$n.out run$n.err; exit 1; }
  t1=$(date +%s.%N)
  wall[$n]=$(awk -v a="$t0" -v b="$t1" 'BEGIN {printf "%.2f", b - a}')
  echo "${wall[$n]}" > wall$n.txt
  rate=$(sed -n 's/.*"experiments_per_s": \([0-9.e+-]*\).*/\1/p' run$n/progress.json)
  echo "$n rank(s): ${wall[$n]} s wall ($(tail -1 run$n.out | sed 's/^multiverse: //'); $rate experiments/s in the loop)"
done
[ "$stage" = one ] && exit 0
wall[1]=$(cat wall1.txt)
echo "busy seconds per rank ($ranks-rank run, from its logs):"
for log in run$ranks/logs/*.log; do
  sed -n 's/.* experiments ([0-9]* not ok) in \([0-9.]*\) s,.*/\1/p' "$log" | awk -v l="$(basename "$log")" '{s += $1} END {printf "  %s: %.2f s in %d batches\n", l, s, NR}'
done | tee busy.txt
awk '{gsub(":", ""); b[NR] = $2} END {m = 0; t = 0; for (i in b) {t += b[i]; if (b[i] > m) m = b[i]}
  printf "  largest / mean: %.4f\n", m / (t / NR)}' busy.txt
echo "outside the batches (rank 0's log): set-up and plan; merge"
for n in 1 "$ranks"; do
  log=run$n/logs/a0001-r000000.log
  echo "  $n rank(s): $(sed -n 's/.*before the batches: //p' "$log"); $(sed -n 's/.*merged the shards in //p' "$log")"
done
ratio=$(awk -v a="${wall[1]}" -v b="${wall[$ranks]}" 'BEGIN {printf "%.3f", a / b}')
if ! /usr/bin/python3 -c "import xarray" 2> /dev/null; then
  same="not compared: /usr/bin/python3 has no xarray (apt-get install python3-xarray python3-netcdf4)"
elif /usr/bin/python3 "$here/tests/mpi/same_results.py" run1/results.nc run$ranks/results.nc > same.out; then
  same="identical ($(cat same.out | sed 's/.*: //'))"
else
  same="DIFFERENT: $(cat same.out)"
fi
echo "speed-up 1 -> $ranks ranks: ${ratio}x; merged results $same"
