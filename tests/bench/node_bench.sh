#!/usr/bin/env bash
# The whole node (issue 20): how well `multiverse run`'s cost model predicts
# its makespan, what a GPU and the node's cores do together against each
# alone, and the longest silence on stderr. On the GPU machine, in one call
# of at most 500 s (the build included when BUILD has none; every run
# stops by SIGTERM at the budget, a run that would start in its last 60 s is
# skipped):
#
#   tests/bench/node_bench.sh WORKDIR [KEEPDIR]
#
# Figures (a table on stdout and in WORKDIR/node.md; each run's folder,
# stdout, timestamped stderr and logs under WORKDIR; KEEPDIR, e.g. the device
# tool's $OUT, gets node.md, costs.json, node-logs.tgz (the runs' logs,
# stdout and stderr) and node-results.tgz (their results files)):
#   1, 2  plan estimate / measured makespan of the 144-experiment training
#         sweep (train-sweep-144.json), CUDA and CPU: at the start (the costs
#         file as the earlier runs of this script left it) and once the first
#         10% of the batches, or of the experiments, have ended (rank 0's log:
#         "estimate: ...")
#   3     the same for tools/mpi_scale.sh's sweep on 1 rank (SCALE_FILES
#         files of it, the GPU and the cores)
#   4, 5  throughput of the GPU and the cores together over the sum of each
#         alone's: 64 WebSearch variants (DCQCN additive increase 10..73
#         Mb/s, tests/data/ns3_hpcc) and the training sweep (the cores alone
#         on TRAIN_CPU_SAMPLE random points of its grid, also figure 2's
#         run: the 144 experiments on 16 cores take some 740 s); results of
#         the mixed runs compared with the single-backend runs'
#         (tests/mpi/same_results.py: xarray, or the NetCDF C library where
#         there is no numpy); train-both-x: the mixed training run again
#         with the GPU's experiment mode forced (MULTIVERSE_CUDA_LAUNCH),
#         where 100 s of the budget are left; under the table, what each
#         worker did (experiments, busy, idle) and each GPU batch's engine
#         line (launch mode, windows, kernel seconds; MULTIVERSE_VERBOSE=1)
#   6     the longest silence on stderr of any run (progress lines every
#         --progress-every 10 s)
# Environment (defaults): BUILD=build-gpu (configured here if it has no
#   CMakeCache.txt; `cmake --build` of the two targets either way, unless
#   NODE_BENCH_BUILT=1)  PARTS="ws scale train" (the train runs last: the
#   longest, the one the budget may stop)  TRAIN_CPU_SAMPLE=12
#   SCALE_FILES=96  WS_N=64  BACKENDS="cuda cpu both" (cpu alone where there is
#   no GPU)  NODE_BENCH_STANDIN=1: a try without a GPU, a CPU worker of one
#   thread standing in for each backend
#   NODE_BENCH_BUDGET_S=450: the runs' seconds, the build included (a run
#   stopped at it has 30 s to write its shards: the call ends before 500 s)
set -euo pipefail
[ $# = 1 ] || [ $# = 2 ] || { echo "usage: tests/bench/node_bench.sh WORKDIR [KEEPDIR]" >&2; exit 2; }
mkdir -p "$1"
out=$(cd "$1" && pwd)
keep=${2:-}
src=$(cd "$(dirname "$0")/../.." && pwd)
build=${BUILD:-$src/build-gpu}
parts=${PARTS:-ws scale train} # done in this order, whatever the order given
budget=${NODE_BENCH_BUDGET_S:-450} # s: runs stop at it; one that would start in its last 60 s is skipped
sample=${TRAIN_CPU_SAMPLE:-12}
ws_n=${WS_N:-64} # WebSearch variants (fewer: a try on a small machine)
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
# MULTIVERSE_VERBOSE: each GPU batch's launch mode, kernel seconds and ring
# overflows (reruns) on stderr, summed up under the table.
export MULTIVERSE_COSTS=$out/costs.json PY=/usr/bin/python3 MULTIVERSE_VERBOSE=1
t0=$(date +%s)
since() { echo $(($(date +%s) - t0)); }

if [ "${NODE_BENCH_BUILT:-0}" != 1 ]; then
  {
    # A build folder already configured keeps its settings (configuring again
    # with others would rebuild everything).
    if [ ! -f "$build/CMakeCache.txt" ]; then
      cmake -S "$src" -B "$build" -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=90
    fi &&
      cmake --build "$build" -j "$(nproc)" --target multiverse mv_genflows
  } > "$out/build.log" 2>&1 || { tail -30 "$out/build.log"; echo "node_bench: build failed"; exit 1; }
  echo "node_bench: built in $(since) s"
fi
mv=$build/driver/multiverse
gpu=0
nvidia-smi -L > /dev/null 2>&1 && gpu=1
# One rank: under mpirun where there is one (unbound: Open MPI binds 1 or 2
# ranks to a core), else started alone (one rank without MPI).
launch=()
command -v mpirun > /dev/null && launch=(mpirun --bind-to none -np 1)
backends=${BACKENDS:-$([ $gpu = 1 ] || [ "${NODE_BENCH_STANDIN:-0}" = 1 ] && echo "cuda cpu both" || echo cpu)}

# est10 LOG BATCHES: rank 0's estimate of the makespan once 10% of the
# batches or of the experiments have ended (whichever first; a lone batch
# has only its experiments).
est10() {
  awk -v n="$2" '/ estimate: / {split($0, a, "estimate: "); split(a[2], b, " ");
    if ((b[1] >= 0.1 * n && b[1] > 0) || (b[4] >= 0.1 * b[6] && b[4] > 0)) {
      for (i = 1; i <= NF; i++) if ($i == "makespan") {print $(i + 1); exit}}}' "$1"
}

# run NAME JOB ARGS...: one rank of `multiverse run`, stderr timestamped;
# appends "NAME est0 est10 measured wall silence" to $out/runs.txt.
run() {
  local name=$1 job=$2
  shift 2
  if [ "$(since)" -gt $((budget - 60)) ]; then
    echo "$name: not run, $(since) s of the $budget s budget gone (a run starts only with 60 s left)" | tee -a "$out/skipped.txt"
    return 0
  fi
  rm -rf "$out/$name"
  local t=$(date +%s.%N) left=$((budget - $(since))) rc=0
  # SIGTERM at the budget: the run stops, its shards written (exit 143).
  timeout --signal=TERM --kill-after=30 "$left" "${launch[@]}" "$mv" run "$job" \
    --run-dir "$out/$name" --force "$@" > "$out/$name.out" \
    2> >(while IFS= read -r line; do echo "$(date +%s.%N) $line"; done > "$out/$name.err") || rc=$?
  if [ $rc = 124 ] || [ $rc = 143 ] || [ $rc = 137 ]; then
    echo "$name: stopped at the budget ($left s)" | tee -a "$out/skipped.txt"
  elif [ $rc -gt 1 ]; then # the other runs go on
    tail -5 "$out/$name.out" "$out/$name.err"
    echo "$name: failed (exit $rc)" | tee -a "$out/skipped.txt"
    return 0
  fi
  local end=$(date +%s.%N)
  sleep 0.2 # the timestamping of stderr
  local log=$out/$name/logs/a0001-r000000.log
  local batches=$(grep -c "experiments ([0-9]* not ok) in" "$log")
  local est0=$(sed -n 's/.*estimated makespan \([0-9.e+]*\) s.*/\1/p' "$out/$name.out")
  local est10=$(est10 "$log" "$batches")
  local measured=$($PY -c "import json; d = json.load(open('$out/$name/progress.json')); print(round(d['elapsed_s'], 2) if d.get('state') == 'done' else 'nan')")
  local silence=$(awk -v a="$t" -v z="$end" 'BEGIN {p = a; m = 0} {if ($1 - p > m) m = $1 - p; p = $1}
    END {if (z - p > m) m = z - p; printf "%.1f", m}' "$out/$name.err")
  local wall=$(awk -v a="$t" -v b="$end" 'BEGIN {printf "%.1f", b - a}')
  echo "$name ${est0:-nan} ${est10:-nan} $measured $wall $silence $batches" | tee -a "$out/runs.txt"
}

# Ratio a / b to 3 digits, "-" when either is missing.
ratio() { awk -v a="$1" -v b="$2" 'BEGIN {if (a + 0 > 0 && b + 0 > 0) printf "%.3f", a / b; else print "-"}'; }
field() { awk -v n="$1" -v k="$2" '$1 == n {print $k}' "$out/runs.txt"; }
worker_opts() {
  if [ "${NODE_BENCH_STANDIN:-0}" = 1 ]; then # a try without a GPU: one core each, two together
    case $1 in cuda | cpu) echo "--workers cpu:1" ;; both) echo "--workers cpu:1,cpu:1" ;; esac
  else
    case $1 in cuda) echo "--backend cuda" ;; cpu) echo "--backend cpu" ;; both) echo "--backend auto" ;; esac
  fi
}
: > "$out/runs.txt"
: > "$out/same.txt"
: > "$out/skipped.txt"

if [[ " $parts " == *" ws "* ]]; then
  mkdir -p "$out/ws"
  cp "$src/tests/data/ns3_hpcc/topology_fat.txt" "$src/tests/data/ns3_hpcc/websearch30.txt" "$out/ws/"
  ai=$(seq -s, 10 $((9 + ws_n)))
  cat > "$out/ws/ws64.json" << JSON
{"name": "ws64", "base": {"network": {"topology": "topology_fat.txt", "flows": "websearch30.txt",
  "cc": "dcqcn", "preset": "ns3_hpcc", "buffer_mb": 32}},
 "sweep": {"grid": {"network.dcqcn_rate_ai_mbps": [$ai]}}}
JSON
  for b in $backends; do run "ws-$b" "$out/ws/ws64.json" $(worker_opts $b); done
  [ -e "$out/ws-both/results.nc" ] && for b in cuda cpu; do
    [ -e "$out/ws-$b/results.nc" ] && $PY "$src/tests/mpi/same_results.py" "$out/ws-$b/results.nc" \
      "$out/ws-both/results.nc" >> "$out/same.txt" 2>&1 || true
  done
fi

if [[ " $parts " == *" scale "* ]] && [ "$(since)" -gt $((budget - 60)) ]; then
  echo "scale: not run, $(since) s of the $budget s budget gone" | tee -a "$out/skipped.txt"
elif [[ " $parts " == *" scale "* ]]; then
  left=$((budget - $(since)))
  if WORK=$out/scale FILES=${SCALE_FILES:-96} STAGE=one BUILD=$build BACKEND=auto \
    timeout --signal=TERM --kill-after=30 "$left" "$src/tools/mpi_scale.sh" > "$out/scale.out" 2>&1; then
    log=$out/scale/run1/logs/a0001-r000000.log
    n=$(grep -c "experiments ([0-9]* not ok) in" "$log")
    est0=$(sed -n 's/.*estimated makespan \([0-9.e+]*\) s.*/\1/p' "$out/scale/run1.out")
    est10=$(est10 "$log" "$n")
    m=$($PY -c "import json; print(round(json.load(open('$out/scale/run1/progress.json'))['elapsed_s'], 2))")
    echo "scale-1rank ${est0:-nan} ${est10:-nan} $m $(cat "$out/scale/wall1.txt") - $n" | tee -a "$out/runs.txt"
  else
    echo "scale: failed or stopped at the budget ($left s): $(tail -3 "$out/scale.out" | tr '\n' ' ')" |
      tee -a "$out/skipped.txt"
  fi
fi

if [[ " $parts " == *" train "* ]]; then
  mkdir -p "$out/train"
  cp "$src/tests/bench/train-sweep-144.json" "$out/train/"
  $PY - "$out/train" "$sample" << 'PY'
import json, sys
d = json.load(open(f"{sys.argv[1]}/train-sweep-144.json"))
grid = d["sweep"].pop("grid")
d["name"] = "tsample"
d["sweep"]["samples"] = {"n": int(sys.argv[2]), "seed": 1,
                         "axes": {k: {"choice": v} for k, v in grid.items()}}
json.dump(d, open(f"{sys.argv[1]}/train-sample.json", "w"), indent=1)
PY
  for b in $backends; do
    if [ "$b" = cpu ]; then
      run "train-cpu-sample" "$out/train/train-sample.json" $(worker_opts cpu)
    else
      run "train-$b" "$out/train/train-sweep-144.json" $(worker_opts $b)
    fi
  done
  [ -e "$out/train-both/results.nc" ] && [ -e "$out/train-cuda/results.nc" ] &&
    $PY "$src/tests/mpi/same_results.py" "$out/train-cuda/results.nc" "$out/train-both/results.nc" \
      >> "$out/same.txt" 2>&1 || true
  # Figure 5's suspect: a GPU batch of fewer experiments than the GPU has SMs
  # runs in the engine's persistent mode (the batch's experiments step their
  # windows in lockstep; engine/sim/eng_cuda.cu, cu_mode), 144 of them in the
  # experiment mode (a block each). The mixed run again with the experiment
  # mode forced, where 100 s of the budget are left (stopped at the budget, its
  # log still shows how far the GPU got).
  if [ -e "$out/train-both/results.nc" ] && [ "${NODE_BENCH_STANDIN:-0}" != 1 ] &&
    [ $((budget - $(since))) -ge 100 ]; then
    (export MULTIVERSE_CUDA_LAUNCH=experiment && run "train-both-x" "$out/train/train-sweep-144.json" \
      $(worker_opts both))
    [ -e "$out/train-both-x/results.nc" ] && [ -e "$out/train-cuda/results.nc" ] &&
      $PY "$src/tests/mpi/same_results.py" "$out/train-cuda/results.nc" "$out/train-both-x/results.nc" \
        >> "$out/same.txt" 2>&1 || true
  fi
fi

# split NAME: what each worker of a run did (rank 0's log) and each GPU
# batch's engine line (MULTIVERSE_VERBOSE: launch mode, windows, kernel s).
split() {
  local dir=$out/$1 err=$out/$1.err
  [ "$1" = scale-1rank ] && dir=$out/scale/run1 err=$out/scale/run1.err
  local log=$dir/logs/a0001-r000000.log
  [ -e "$log" ] || return 0
  awk -v name="$1" '
    / worker [0-9]+ \([a-z]+\): [0-9]+ experiments \([0-9]+ not ok\) in / {
      for (i = 1; i <= NF; i++) if ($i == "worker") {w = $(i + 1) " " $(i + 2); break}
      sub(":", "", w); n[w] += $(i + 3); b[w]++; busy[w] += $(i + 9); est[w] += $(i + 12); end[w] = $1 + 0
      if (!(w in seen)) {seen[w] = 1; order[k++] = w}}
    / every experiment is taken/ {for (i = 1; i <= NF; i++) if ($i == "worker") {w = $(i + 1) " " $(i + 2)}
      sub(":", "", w); idle[w] = $1 + 0}
    {last = $1 + 0}
    END {for (j = 0; j < k; j++) {w = order[j]
      printf "    %s: worker %s: %d experiments in %d batches, busy %.1f s (estimated %.1f s), idle from %.1f s to the end %.1f s\n",
        name, w, n[w], b[w], busy[w], est[w], idle[w], last}}' "$log"
  [ -e "$err" ] && sed -n "s|^[0-9.]* \(cuda: .*windows.*\)$|    $1: \1|p
    s|^[0-9.]* \(storage overflowed.*\)$|    $1: \1|p" "$err"
}

# The table.
{
  echo "# Node benchmarks ($(date -u +%Y-%m-%dT%H:%MZ), $(git -C "$src" rev-parse --short HEAD 2>/dev/null || echo "${BENCH_COMMIT:-?}"), $(nproc) cores$([ $gpu = 1 ] && echo ", $(nvidia-smi --query-gpu=name --format=csv,noheader | head -1)"))"
  echo
  # The cost model's keys of this node's workers (a CPU's: its model name,
  # CPUID family and model; jobs/presets/batching.json can name them).
  grep -ho "kind of worker [0-9]*: [^,]*, family [0-9]* model [0-9]*\|kind of worker [0-9]*: cuda[^,]*" \
    "$out"/*/logs/*.log "$out"/*/*/logs/*.log 2> /dev/null | sed 's/kind of worker [0-9]*: //' |
    sort -u | sed 's/^/Worker: /' || true
  echo
  echo "| run | batches | estimate at start (s) | after 10% of batches (s) | measured (s) | start / measured | 10% / measured | wall (s) | longest silence on stderr (s) |"
  echo "|---|---|---|---|---|---|---|---|---|"
  while read -r name e0 e10 m w s nb; do
    echo "| $name | $nb | $e0 | $e10 | $m | $(ratio "$e0" "$m") | $(ratio "$e10" "$m") | $w | $s |"
  done < "$out/runs.txt"
  echo
  for set in ws train; do
    g=$(field "$set-cuda" 4) c=$(field "$set-cpu" 4) both=$(field "$set-both" 4) n=$ws_n nc=$ws_n
    [ "$set" = train ] && n=144 nc=144
    if [ "$set" = train ] && [ -z "$c" ]; then c=$(field train-cpu-sample 4) nc=$sample; fi
    [ -n "$g" ] && [ -n "$c" ] && [ -n "$both" ] &&
      awk -v g="$g" -v c="$c" -v b="$both" -v n="$n" -v nc="$nc" -v s="$set" 'BEGIN {
        sum = n / g + nc / c; printf "%s: GPU alone %.3g experiments/s, cores alone %.3g/s, together %.3g/s: %.3f of the sum\n", s, n / g, nc / c, n / b, (n / b) / sum}'
  done
  x=$(field train-both-x 4) g=$(field train-cuda 4) c=$(field train-cpu-sample 4)
  [ -n "$x" ] && [ -n "$g" ] && [ -n "$c" ] &&
    awk -v g="$g" -v c="$c" -v b="$x" -v nc="$sample" 'BEGIN {
      printf "train, the experiment mode forced (train-both-x): together %.3g/s: %.3f of the sum\n", 144 / b, (144 / b) / (144 / g + nc / c)}'
  echo
  echo "Where the time went (rank 0's workers; the GPU batches' engine lines):"
  while read -r name _; do split "$name"; done < "$out/runs.txt"
  echo
  [ -s "$out/skipped.txt" ] && { echo "Skipped:"; sed 's/^/    /' "$out/skipped.txt"; echo; }
  echo "Results of the mixed runs against the single-backend runs:"
  sed 's/^/    /' "$out/same.txt"
  echo
  echo "Fitted coefficients after these runs (the costs file), as jobs/presets/batching.json entries:"
  echo
  [ -e "$out/costs.json" ] && $PY - "$out/costs.json" << 'PY' || true
import json, sys
d = json.load(open(sys.argv[1]))
for name, m in sorted(d["models"].items()):
    if "fitted" in m:
        w, key = name.split("|")
        fit = {k: float(f"{v:.3g}") for k, v in m["fitted"].items()}
        print(f'    "{w}/{key}": {json.dumps(fit)},  ({len(m["records"])} batches)')
PY
} | tee "$out/node.md"
if [ -n "$keep" ]; then # what comes back from a device machine: three files
  mkdir -p "$keep"
  cp "$out/node.md" "$keep/"
  [ -e "$out/costs.json" ] && cp "$out/costs.json" "$keep/"
  (cd "$out" && find . \( -name '*.log' -o -name '*.out' -o -name '*.err' -o -name '*.txt' \
    -o -name progress.json -o -name '*.json' \) -not -path './scale/f*' -not -name costs.json -print0 |
    tar czf "$keep/node-logs.tgz" --null -T -)
  # The runs' results files (a few hundred KB): each experiment's windows and
  # packet-hops beside the GPU's progress in its log, and the comparisons.
  (cd "$out" && find . -maxdepth 2 -name results.nc -print0 | tar czf "$keep/node-results.tgz" --null -T -)
fi
echo "node_bench: $(since) s in all"
