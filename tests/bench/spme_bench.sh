#!/usr/bin/env bash
# The GPU engine's figures on the GPU machine, CUDA against the same machine's
# CPU cores, same binary, in one call (docs/engine.md, tests/bench/RESULTS.md
# "The GPU engine"). Parts, in BENCH_PARTS order (default: all but gpt3):
#   ws      WebSearch (tests/data/ns3_hpcc, 1,777 flows, 320 hosts) under DCQCN
#           with the ns3_hpcc preset and 32 MB buffers, 256 variants of
#           dcqcn_rate_ai_mbps (10..265): CUDA on all of them; the CPU
#           (--threads NPROC) on the first CPU_N (default 32), scaled linearly
#           to 256 (each variant runs alone on the CPU: its time adds); the
#           first CPU_N FCT files compared byte for byte
#   ws1024  the same with 1,024 variants on CUDA (the CPU's rate of ws)
#   ws64    64 variants (issue 17's first row), CUDA and the CPU each on all
#           64, FCT files compared
#   hpcc64  the same under HPCC, 64 variants of hpcc_ai_mbps
#   hpcc    the same trace under HPCC, 256 variants of hpcc_ai_mbps
#   perm    2,048 permutations of 2 MB per host on a k=8 fat-tree, both backends
#           whole, every FCT file compared
#   host    row 5 (perm) three times on each backend, alternating: its
#           phases as MULTIVERSE_VERBOSE prints them (the run's, the batch's,
#           the results step's threads, thread-seconds and page faults), every
#           FCT file compared. Its results step makes 4,096 files in the
#           temporary run folder ($TMPDIR, else /tmp): on a disk soon after
#           many deletions that takes seconds (RESULTS.md, session 21), so
#           TMPDIR and WORKDIR on a memory file system measure the program
#   one     one WebSearch experiment alone: CUDA against one CPU thread
#   ablate  SPME lanes off (MULTIVERSE_LANES=1) against the default, on perm
#           and on 256 WebSearch variants of its first 300 flows
#   deal    a lane group's rows dealt spread over the warps (the default),
#           packed into the first warps (MULTIVERSE_CUDA_DEAL=1) and far apart
#           (0), on perm, ws's 256 variants and 64 of them (BENCH_DEAL_W: a
#           list of perm, ws, ws64, hpcc64; default the first three)
#   permshapes  row 5's batch (perm) in the launch shapes of session 15's
#           sweep: lanes of 8 at 2 blocks of 512 a SM (the default since
#           session 16), 16 at one (the default before), 8 in blocks of 256
#           at 3 a SM, 32, each dealt spread over the warps (the default)
#           and far apart (MULTIVERSE_CUDA_DEAL=0); kernel times, every FCT
#           file compared with the default's
#   wsshapes  row 1's batch (ws) in lane and occupancy shapes: the default,
#           lanes of 2 at 2 blocks a SM, lanes of 1, 32 on clusters of 8, 4 on
#           clusters of 2; then 512 variants; every FCT file compared
#   poolshapes  row 1's batch (ws) in the shapes the block's pool may take:
#           the default (lanes of 2, one a SM, the pool in blocks of 1,024),
#           the same in blocks of 512, lanes of 2 and of 1
#           in the kernel for 2 a SM, lanes of 2 on clusters of 2, lanes of 4
#           with the pool (MULTIVERSE_CUDA_POOL=1: key order by default) and
#           in key order; every FCT file compared with the default's.
#           BENCH_SHAPES, a list of settings separated by commas (each VAR=VALUE
#           words, or empty for none), runs those instead, the first the
#           reference: e.g. ",MULTIVERSE_CUDA_CARVEOUT=0"; BENCH_SHAPES_N
#           variants in place of 256 (1024: row 2's batch)
#   ncuws   row 1's kernel over its first 0.5 ms under ncu (a list of
#           metrics, kernel replay): occupancy, issue, active threads, stalls
#           at the barrier and on loads, L1, L2 and DRAM
#   ncuhpcc the same metrics for 128 HPCC variants in lanes of 1 and of 2
#   ncupool the same metrics for 64 variants (clusters of 2) with the
#           block's pool (the default there) and without (MULTIVERSE_CUDA_POOL=0)
#   ncu     row 5's kernel under Nsight Compute (one launch, kernel replay):
#           duration, registers, achieved occupancy, active threads per warp,
#           eligible warps, cycles per issued instruction, DRAM and L2
#           throughput, L1 and L2 hit rates, the largest stall reasons
#   ncusrc  row 5's kernel at half its batch (1,024 permutations: lanes of 4,
#           the device still full) under ncu's SourceCounters (kernel replay;
#           the whole batch under it does not end within a call): the L2
#           sectors its global and local (spilled) accesses ask for, against
#           the ideal of coalesced accesses, per packet-hop, and how the
#           long-scoreboard stalls spread over its instructions
#   ncusrcpool  BENCH_SRC_N variants' kernel (default 64, an experiment a
#           cluster of 2; 256: row 1's shape, blocks of 1,024; the block's
#           pool either way) over their first
#           0.2 ms under ncu's SourceCounters (kernel replay): the warp
#           samples' share of the top source lines (BENCH_SRC_TOP, default 25)
#           with their largest stall reasons, and of the source files (a line
#           inlined in another counts in both; lines need a build with
#           -DCMAKE_CUDA_FLAGS=-lineinfo). The raw page in ncusrcpool.csv
#   train   the 144-experiment training sweep (tests/bench/train-sweep-144.json)
#           with `multiverse run --backend cuda`
#   trainph the same with port phases and switch warps (after train: its
#           results compared with train's)
#   train128, trainc2  the same in blocks of 128 threads (the shape before the
#           launch-shape model), on clusters of 2 blocks of 512 in lanes of 2 (after train)
#   trainpack, trainfar  the same with the rows dealt packed into the first
#           warps (MULTIVERSE_CUDA_DEAL=1) or far apart (0) (after train)
#   trainpool  the same with the block's pool of port phases
#           (MULTIVERSE_CUDA_POOL=1) (after train)
#   train2sm, train1sm  the same with the kernels for 2 blocks of 512 a SM
#           only (MULTIVERSE_CUDA_BLOCKS_PER_SM=2; clusters too), or for one
#           only (=1, the default before session 24) (after train)
#   trainknobs  the same in each setting of BENCH_TRAIN_KNOBS (a list
#           separated by commas, each VAR=VALUE words) (after train)
#   traincpu  the sweep, or a part of it, on the CPU backend with every core:
#           BENCH_TRAIN_PART all, or one value of one grid key (default
#           network.cc=dcqcn); the parts of a key summed give the sweep's CPU
#           time (on the H200's 16 cores 65.6 s in three parts, session 21);
#           rows compared with train's
#   shapes  the sweep's heaviest experiment with one layer
#           (tests/bench/train-proxy-1layer.json) in every launch shape
#   conc    the one-layer proxy alone in a block of 512, then 132 variants of
#           it at once (tests/bench/train-proxy-132.json), a block on each SM:
#           what running beside others costs an experiment
#   lanes132  the 132 variants of conc with SPME lanes of 1, 2, 4, 8 and 32
#           (MULTIVERSE_LANES: L experiments a block, a warp stepping the same
#           node of L of them, on 132 / L SMs): kernel times, results compared
#           with lanes of 1 (tests/mpi/same_results.py)
#   pool    the experiment mode's switches stepped by their thread in key
#           order (the default) against the block's pool of port phases
#           (MULTIVERSE_CUDA_POOL=1), side by side: WebSearch under DCQCN with
#           16, 64 and 256 variants, under HPCC with 64 (BENCH_POOL_W: a list
#           of ws16, ws64, ws256, hpcc64; default all); kernel times, every
#           FCT file compared
#   ab      the same batches by this binary (A) and by other builds of it
#           (BENCH_AB: their multiverse programs, e.g. a branch's), in turn,
#           BENCH_AB_ROUNDS rounds (default 1): BENCH_AB_W, a list of
#           batches (ws, hpcc, wsN, hpccN, perm) and train (default ws); each run's kernel time
#           and whether its FCT files (train: its result rows) equal A's
#           first run's. Every binary is given the same paths, so that the
#           experiments' ids, and so their seeds, agree
#   phases  switches in port phases (the GPU's default) against key order
#           (MULTIVERSE_PHASES=0): one WebSearch experiment, 64 variants with switch warps and
#           in the persistent mode (FCT files compared)
#   proxysw the one-layer proxy with switch warps (a warp per switch, port
#           phases: the GPU's default there) alone and on clusters of 4 and 8,
#           against its default shape (clusters of 8, a thread per switch);
#           results compared with the default's
#   gpt3    one GPT-3 175B iteration on 1,024 GPUs (examples/train) with
#           64000-byte packets (issue 17's row 7): CUDA, and one CPU thread of
#           this machine side by side; their output lines compared but wall_s
#   gpt3warp the same with each switch stepped by a warp
#           (MULTIVERSE_CUDA_SWITCH_BLOCK=0) in place of a block of 128 threads
#   gpt3cpu the same on the CPU backend alone, on all the machine's cores
# Each run stops after BENCH_RUN_S seconds (default 900). Prints one line per
# measurement (CUDA: every device run of it summed: kernel, copies) and a
# markdown table at the end.
# usage: spme_bench.sh MULTIVERSE MV_GENFLOWS WORKDIR
set -uo pipefail
mv=$(realpath -e "$1") gen=$(realpath -e "$2") work=$3
[ -x "$mv" ] && [ -x "$gen" ] || { echo "spme_bench.sh: MULTIVERSE and MV_GENFLOWS must be programs (build/driver/multiverse, build/tests/mv_genflows)" >&2; exit 2; }
here=$(cd "$(dirname "$0")" && pwd)
data=$here/../data/ns3_hpcc
parts=${BENCH_PARTS:-ws ws1024 hpcc perm one ablate train}
cpu_n=${CPU_N:-32}
threads=$(nproc)
mkdir -p "$work" && cd "$work" || exit 2
# shellcheck source=lib.sh
source "$here/lib.sh"
BENCH_GEN=$gen
# shellcheck source=gen.sh
source "$here/gen.sh"
rows=()

# kern FILE: the device runs of a verbose log summed ("cuda: B bytes, upload
# U s, W windows (MODE) K s, download D s", one per world: a batch split in
# worlds, or experiments run again with worst-case rings, has several):
# "kernel K s (MODE) in N runs, upload U s, download D s".
kern() {
  awk '/^cuda: .* windows \(/ { n++; for (i = 1; i <= NF; i++) {
         if ($i == "upload") u += $(i + 1); if ($i == "download") d += $(i + 1)
         if ($i ~ /^\(/) { m = $i; k += $(i + 1) } } }
       END { if (n) printf "kernel %.3f s %s in %d runs, upload %.3f s, download %.3f s", k, m, n, u, d }' "$1"
}

# run LABEL OUTDIR ARGS...: `multiverse net` with the variables RUN_ENV
# (VAR=VALUE words; none unless set), its wall time (s) in $T and its device
# runs (kern) in $K. A run that takes more than BENCH_RUN_S seconds
# (default 900) is stopped and counts as failed: a hang costs the budget of
# one run, not of the call. Where the batch took several device runs (worlds
# cut to fit the device's memory, or experiments run again with worst-case
# rings), each one's worlds, launch shape and overflows are printed.
run() {
  local od=$2 s
  shift 2
  rm -rf "$od"
  s=$(bench_now)
  env "${RUN_ENV[@]}" MULTIVERSE_VERBOSE=1 timeout "${BENCH_RUN_S:-900}" "$mv" net "$@" -o "$od" > "$od.out" 2> "$od.err"
  local rc=$?
  T=$(bench_calc 'b - a' a="$s" b="$(bench_now)")
  K=$(kern "$od.err")
  [ "$(grep -c '^cuda: .* windows (' "$od.err")" -le 1 ] ||
    grep -E '^(world: |cuda: [0-9]+ experiments in |storage overflowed)' "$od.err" | sed "s|^|  $od: |"
  [ $rc = 0 ] || { echo "  run $od failed (rc $rc$([ $rc = 124 ] && echo ", stopped after ${BENCH_RUN_S:-900} s")): $(tail -1 "$od.err")"; T=-; }
}
RUN_ENV=()
# pair DIR_A ENV_A DIR_B ENV_B N ARGS...: run of ARGS on CUDA in DIR_A with the
# variables ENV_A (VAR=VALUE words, or ""), then in DIR_B with ENV_B, side by
# side: A's times in $TA and $KA, B's in $T and $K, and in $ID whether their
# first N FCT files agree (same).
pair() {
  local da=$1 ea=$2 db=$3 eb=$4 n=$5
  shift 5
  read -ra RUN_ENV <<< "$ea"
  run a "$da" "$@" --backend cuda
  TA=$T KA=$K
  read -ra RUN_ENV <<< "$eb"
  run b "$db" "$@" --backend cuda
  RUN_ENV=()
  ID=$(same "$da" "$db" "$n")
}
# proxy_run DIR JOB [VAR=VALUE ...]: `multiverse run` of tests/bench/JOB.json
# on CUDA in a fresh folder DIR (its results in DIR/rd), with those variables
# and MULTIVERSE_VERBOSE=1; its exit status.
proxy_run() {
  local d=$1 j=$2
  shift 2
  rm -rf "$d" && mkdir -p "$d" && cp "$here/$j.json" "$d/"
  (cd "$d" && env "$@" MULTIVERSE_VERBOSE=1 timeout "${BENCH_RUN_S:-900}" \
    "$mv" run "$j.json" --run-dir rd --backend cuda --costs none > run.out 2> run.err)
}
# same_rows A B [--common]: identical when the results files of run folders
# A/rd and B/rd agree in every row (--common: B's experiments, a part of A's,
# agree with A's of the same ids; tests/mpi/same_results.py; its words in
# B/same.txt), else DIFFER.
same_rows() {
  local files=("$1/rd/results.nc" "$2/rd/results.nc")
  [ "${3:-}" = --common ] && files=(--common "$2/rd/results.nc" "$1/rd/results.nc")
  /usr/bin/python3 "$here/../mpi/same_results.py" "${files[@]}" > "$2/same.txt" 2>&1 &&
    echo identical || echo DIFFER
}
# planned JOB RUNDIR: "N H", the experiments and packet-hops (estimate) the
# plan of JOB on the CPU would run ("to run: N experiments, H packet-hops").
planned() {
  "$mv" plan "$1" --run-dir "$2" --backend cpu --threads "$threads" 2>&1 |
    sed -n 's/^to run: \([0-9]*\) experiments, \([0-9.e+]*\) packet-hops.*/\1 \2/p' | head -1
}
# same A B N: how many of the first N FCT files differ.
same() {
  local i bad=0
  for ((i = 0; i < $3; i++)); do cmp -s "$1/fct-$i.txt" "$2/fct-$i.txt" || bad=$((bad + 1)); done
  [ $bad = 0 ] && echo identical || echo "$bad of $3 DIFFER"
}
# perm_list: row 5's batch in k8.json and perm/ (2,048 permutations of 2 MB
# per host on a k=8 fat tree), made once for the parts that use it.
perm_list() {
  [ -s perm/list.txt ] && return
  gen_fat_tree 8 > k8.json
  mkdir -p perm && gen_perm_list perm 128 2000000 2048 2048 > perm/list.txt
}
# batch W: the arguments ($a) and the experiments ($n) of batch W, for the
# parts that take a list of batches: wsN and hpccN, N WebSearch variants under
# DCQCN (dcqcn_rate_ai_mbps 10...) or HPCC (hpcc_ai_mbps 10...), ws and hpcc
# 256 of them; perm, row 5's 2,048 permutations. Returns 1 for another name.
batch() {
  local k
  case $1 in
  ws | ws[0-9]*) k=${1#ws} && n=${k:-256} && a=("${ws[@]}" --set cc=dcqcn --sweep dcqcn_rate_ai_mbps="$(seqc 10 $((9 + n)))") ;;
  hpcc | hpcc[0-9]*) k=${1#hpcc} && n=${k:-256} && a=("${ws[@]}" --set cc=hpcc --sweep hpcc_ai_mbps="$(seqc 10 $((9 + n)))") ;;
  perm) perm_list && a=(--topology k8.json --flows-from perm/list.txt --set mtu=9000) && n=2048 ;;
  *) return 1 ;;
  esac
}
# sweep_run DIR [VAR=VALUE ...]: the training sweep (train-sweep-144.json) by
# `multiverse run` on CUDA in a fresh folder DIR (its results in DIR/rd), with
# those variables and MULTIVERSE_VERBOSE=1: its wall time in $T, - (said) when
# it failed.
sweep_run() {
  local d=$1 s rc
  shift
  rm -rf "$d" && mkdir -p "$d" && cp "$here/train-sweep-144.json" "$d/"
  s=$(bench_now)
  (cd "$d" && env "$@" MULTIVERSE_VERBOSE=1 timeout "${BENCH_RUN_S:-900}" "$mv" run train-sweep-144.json --run-dir rd --backend cuda > run.out 2> run.err)
  rc=$?
  T=$(bench_calc 'b - a' a="$s" b="$(bench_now)")
  [ $rc = 0 ] || { echo "  $d failed (rc $rc$([ $rc = 124 ] && echo ", stopped after ${BENCH_RUN_S:-900} s")): $(tail -1 "$d/run.err")"; T=-; }
}
# sweep_part DIR LABEL [VAR=VALUE ...]: sweep_run, then its line and table
# row: wall and kernel times, the shape model's pick, and (but for DIR train)
# whether its result rows equal train's (run train first).
sweep_part() {
  local d=$1 label=$2 id=-
  shift 2
  sweep_run "$d" "$@"
  [ "$d" != train ] && [ "$T" != - ] && [ -s train/rd/results.nc ] && id=$(same_rows train "$d")
  local k
  k=$(kern "$d/run.err")
  echo "$label${*:+ $*}: CUDA $T s ($k); $(tail -1 "$d/run.err"); results $id"
  grep -m 4 "launch shapes" "$d/run.err" | sed "s/^/  $d: /" # the shape model's pick, if it chose
  rows+=("| training sweep, 144 experiments (\`multiverse run\`)${*:+, $*} | $(fm "$T" %.1f) s (${k:-no kernel line}) | - | - | $id |")
}
seqc() { seq -s, "$1" "$2"; }
# has_ncu: whether Nsight Compute is on PATH (else says the part is skipped).
has_ncu() {
  command -v ncu > /dev/null && return 0
  echo "ncu: not on PATH, part skipped"
  return 1
}
# shaped DIR REF N ENV ARGS...: run of ARGS in DIR with the variables ENV
# (VAR=VALUE words, or ""); in $ID whether its first N FCT files agree with
# REF's (same; - for REF itself or a failed run).
shaped() {
  local d=$1 ref=$2 n=$3
  read -ra RUN_ENV <<< "$4"
  shift 4
  run x "$d" "$@"
  RUN_ENV=()
  ID=-
  [ "$T" = - ] || [ "$d" = "$ref" ] || ID=$(same "$ref" "$d" "$n")
}
# fm X FORMAT: X printed with FORMAT, or as it is when it is not a number.
fm() {
  is_num "$1" && fmt "$1" "$2" || printf '%s' "$1"
}
# ratio A B [FORMAT]: A / B, or - when either is not a positive number.
ratio() {
  awk -v a="$1" -v b="$2" -v f="${3:-%.2fx}" 'BEGIN { if (a + 0 > 0 && b + 0 > 0) printf f, a / b; else printf "-" }'
}
ws=(--topology "$data/topology_fat.txt" --flows "$data/websearch30.txt" --set preset=ns3_hpcc
  --set buffer_mb=32)
# ncu_ws NAME N ENV [CC]: the kernel of N WebSearch variants (DCQCN, or CC: hpcc) over their
# first 0.5 ms of simulated time (max_time_s: the flows start at 2 s; 498 of
# 6,615 windows) under ncu, with the variables ENV (VAR=VALUE words, or ""):
# one launch, kernel replay, a list of metrics (occupancy, issue, active
# threads per warp instruction, eligible warps, stalls at the barrier, on
# global loads and instruction fetch, L1, L2 and DRAM), in $prof (empty: no
# report); NAME.csv, NAME.err and NAME-run.
ncu_ws() {
  m=gpu__time_duration.sum,sm__warps_active.avg.pct_of_peak_sustained_active
  m+=,smsp__thread_inst_executed_per_inst_executed.ratio,smsp__issue_active.avg.pct_of_peak_sustained_active
  m+=,smsp__warps_eligible.avg.per_cycle_active,smsp__warps_active.avg.per_cycle_active
  m+=,dram__throughput.avg.pct_of_peak_sustained_elapsed,lts__throughput.avg.pct_of_peak_sustained_elapsed
  m+=,lts__t_sector_hit_rate.pct,l1tex__t_sector_hit_rate.pct,smsp__inst_executed.sum
  m+=,l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum,l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum
  for st in barrier long_scoreboard no_instruction; do
    m+=,smsp__average_warps_issue_stalled_${st}_per_issue_active.ratio
  done
  rm -rf "$1-run"
  local cc=${4:-dcqcn} key=dcqcn_rate_ai_mbps
  [ "$cc" = hpcc ] && key=hpcc_ai_mbps
  env $3 MULTIVERSE_VERBOSE=1 timeout "${BENCH_RUN_S:-900}" ncu --clock-control none --kernel-name regex:k_experiments \
    --launch-count 1 --metrics "$m" --csv --page raw "$mv" net "${ws[@]}" --set cc=$cc --set max_time_s=2.0005 \
    --sweep $key="$(seqc 10 $((9 + $2)))" --backend cuda -o "$1-run" > "$1.csv" 2> "$1.err"
  prof=$(/usr/bin/python3 -c '
import csv, sys
rows = list(csv.reader(l for l in open(sys.argv[1]) if l.startswith("\"")))
if len(rows) < 3: sys.exit(0)
v = dict(zip(rows[0], rows[2]))
num = lambda k: float(v[k].replace(",", ""))
print("; ".join(f"{n} {f}" for n, f in [
  ("kernel ms", "%.0f" % (num("gpu__time_duration.sum") / 1e6)),
  ("occupancy %", v["sm__warps_active.avg.pct_of_peak_sustained_active"]),
  ("issue slots busy %", v["smsp__issue_active.avg.pct_of_peak_sustained_active"]),
  ("active threads a warp instruction", v["smsp__thread_inst_executed_per_inst_executed.ratio"]),
  ("eligible warps a scheduler", v["smsp__warps_eligible.avg.per_cycle_active"]),
  ("warp cycles an issued instruction", "%.1f" % (num("smsp__warps_active.avg.per_cycle_active") / num("smsp__issue_active.avg.pct_of_peak_sustained_active") * 100)),
  ("barrier", v["smsp__average_warps_issue_stalled_barrier_per_issue_active.ratio"]),
  ("long scoreboard", v["smsp__average_warps_issue_stalled_long_scoreboard_per_issue_active.ratio"]),
  ("no instruction", v["smsp__average_warps_issue_stalled_no_instruction_per_issue_active.ratio"]),
  ("L1 hit %", v["l1tex__t_sector_hit_rate.pct"]), ("L2 hit %", v["lts__t_sector_hit_rate.pct"]),
  ("L2 throughput %", v["lts__throughput.avg.pct_of_peak_sustained_elapsed"]),
  ("DRAM throughput %", v["dram__throughput.avg.pct_of_peak_sustained_elapsed"]),
  ("sectors a global load", "%.2f" % (num("l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum") / num("l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum")))]))
' "$1.csv" 2> /dev/null)
}

for part in $parts; do
  case $part in
  ws | hpcc)
    cc=dcqcn key=dcqcn_rate_ai_mbps
    [ "$part" = hpcc ] && cc=hpcc key=hpcc_ai_mbps
    run gpu ws-$cc-gpu "${ws[@]}" --set cc=$cc --sweep $key="$(seqc 10 265)" --backend cuda
    tg=$T kg=$K
    run cpu ws-$cc-cpu "${ws[@]}" --set cc=$cc --sweep $key="$(seqc 10 $((9 + cpu_n)))" \
      --backend cpu --threads "$threads"
    tc=$(ratio "$T" "$cpu_n" %.3f | awk '{ print ($1 == "-") ? "-" : $1 * 256 }')
    [ "$part" = ws ] && ws_cpu_per=$(ratio "$T" "$cpu_n" %.6f)
    id=$(same ws-$cc-cpu ws-$cc-gpu "$cpu_n")
    echo "$part: CUDA 256 variants $tg s ($kg); CPU $cpu_n variants $T s -> 256: $tc s; $id"
    rows+=("| WebSearch $cc, 256 variants | $(fm "$tg" %.1f) s | $(fm "$tc" %.1f) s ($cpu_n measured) | $(ratio "$tc" "$tg") | $id |")
    ;;
  ws64 | hpcc64)
    cc=dcqcn key=dcqcn_rate_ai_mbps
    [ "$part" = hpcc64 ] && cc=hpcc key=hpcc_ai_mbps
    run gpu $part-gpu "${ws[@]}" --set cc=$cc --sweep $key="$(seqc 10 73)" --backend cuda
    tg=$T kg=$K
    run cpu $part-cpu "${ws[@]}" --set cc=$cc --sweep $key="$(seqc 10 73)" --backend cpu --threads "$threads"
    id=$(same $part-cpu $part-gpu 64)
    echo "$part: CUDA $tg s ($kg); CPU $T s; $id"
    rows+=("| WebSearch $cc, 64 variants | $(fm "$tg" %.1f) s | $(fm "$T" %.1f) s | $(ratio "$T" "$tg") | $id |")
    ;;
  ws1024)
    run gpu ws1024-gpu "${ws[@]}" --set cc=dcqcn --sweep dcqcn_rate_ai_mbps="$(seqc 10 1033)" --backend cuda
    tc=$(awk -v p="${ws_cpu_per:--}" 'BEGIN { print (p + 0 > 0) ? p * 1024 : "-" }')
    echo "ws1024: CUDA $T s ($K); CPU (ws's rate) $tc s"
    rows+=("| WebSearch dcqcn, 1,024 variants | $(fm "$T" %.1f) s | $(fm "$tc" %.1f) s (ws's rate) | $(ratio "$tc" "$T") | - |")
    ;;
  perm)
    perm_list
    run gpu perm-gpu --topology k8.json --flows-from perm/list.txt --set mtu=9000 --backend cuda
    tg=$T kg=$K
    run cpu perm-cpu --topology k8.json --flows-from perm/list.txt --set mtu=9000 --backend cpu --threads "$threads"
    id=$(same perm-cpu perm-gpu 2048)
    echo "perm: CUDA $tg s ($kg); CPU $T s; $id"
    rows+=("| permutations k=8, 2,048 | $(fm "$tg" %.2f) s | $(fm "$T" %.2f) s | $(ratio "$T" "$tg") | $id |")
    ;;
  host)
    perm_list
    for i in 1 2 3; do
      for b in cuda cpu; do
        run "$b" "host-$b" --topology k8.json --flows-from perm/list.txt --set mtu=9000 --backend "$b" --threads "$threads"
        echo "host $b $i: wall $(fm "$T" %.2f) s; $(grep -h '^world:\|^cuda: [0-9]\|^results:\|^batch: .* ran in\|^run:' "host-$b.err" |
          sed 's/ bytes, [0-9]* per experiment//' | tr '\n' ' ')"
      done
      echo "host $i: $(same host-cpu host-cuda 2048)"
    done
    ;;
  one)
    run gpu one-gpu "${ws[@]}" --set cc=dcqcn --backend cuda
    tg=$T kg=$K
    run cpu one-cpu "${ws[@]}" --set cc=dcqcn --backend cpu --threads 1
    id=$(same one-cpu one-gpu 1)
    echo "one: CUDA $tg s ($kg); one CPU thread $T s; $id"
    rows+=("| one WebSearch experiment (GPU over one core) | $(fm "$tg" %.2f) s | $(fm "$T" %.2f) s (1 thread) | $(ratio "$tg" "$T" "%.2fx of one core") | $id |")
    ;;
  phases)
    # Switches in port phases on the GPU (a warp per switch, a thread per
    # port; the GPU's default) against key order (MULTIVERSE_PHASES=0): one WebSearch experiment
    # (the persistent mode), and 64 variants with switch warps (experiment
    # mode, a block per experiment) and in the persistent mode.
    export MULTIVERSE_PHASES=0
    run gpu ph1-off "${ws[@]}" --set cc=dcqcn --backend cuda
    t0=$T k0=$K
    export MULTIVERSE_PHASES=1
    run gpu ph1-on "${ws[@]}" --set cc=dcqcn --backend cuda
    unset MULTIVERSE_PHASES
    id=$(same ph1-off ph1-on 1)
    echo "phases, one experiment: key order $t0 s ($k0); port phases $T s ($K); $id"
    rows+=("| one WebSearch experiment, port phases off / on | $(fm "$t0" %.2f) s / $(fm "$T" %.2f) s | - | $(ratio "$t0" "$T") | $id |")
    v=(--sweep dcqcn_rate_ai_mbps="$(seqc 10 73)")
    run gpu ph64-def "${ws[@]}" --set cc=dcqcn "${v[@]}" --backend cuda
    td=$T kd=$K
    for m in sw0 sw1 per0 per1; do
      case $m in
      sw*) export MULTIVERSE_CUDA_LAUNCH=experiment MULTIVERSE_LANES=1 MULTIVERSE_CUDA_SWITCH_WARPS=1 ;;
      per*) export MULTIVERSE_CUDA_LAUNCH=persistent ;;
      esac
      export MULTIVERSE_PHASES=${m: -1}
      run gpu ph64-$m "${ws[@]}" --set cc=dcqcn "${v[@]}" --backend cuda
      unset MULTIVERSE_CUDA_LAUNCH MULTIVERSE_LANES MULTIVERSE_CUDA_SWITCH_WARPS MULTIVERSE_PHASES
      id=$(same ph64-def ph64-$m 64)
      echo "phases, 64 variants, $m: $T s ($K); default $td s ($kd); $id"
      rows+=("| WebSearch dcqcn, 64 variants, ${m%?} with port phases ${m: -1} (default $(fm "$td" %.1f) s) | $(fm "$T" %.1f) s | - | $(ratio "$td" "$T") | $id |")
    done
    ;;
  pool)
    for w in ${BENCH_POOL_W:-ws16 ws64 ws256 hpcc64}; do
      batch "$w" || { echo "pool: no batch $w" && continue; }
      pair pool-$w-key MULTIVERSE_CUDA_POOL=0 pool-$w-pool MULTIVERSE_CUDA_POOL=1 "$n" "${a[@]}"
      echo "pool $w: key order $TA s ($KA); pool $T s ($K); $ID"
      rows+=("| $w, switches in key order / the block's pool | $(fm "$TA" %.2f) s | $(fm "$T" %.2f) s (pool) | $(ratio "$TA" "$T") | $ID |")
    done
    ;;
  ablate)
    perm_list
    gen_flows_prefix "$data/websearch30.txt" 300 > ws300.txt
    for w in perm ws300; do
      if [ $w = perm ]; then a=(--topology k8.json --flows-from perm/list.txt --set mtu=9000)
      else a=(--topology "$data/topology_fat.txt" --flows ws300.txt --set preset=ns3_hpcc --set buffer_mb=32
        --set cc=dcqcn --sweep dcqcn_rate_ai_mbps="$(seqc 10 265)"); fi
      n=$([ $w = perm ] && echo 2048 || echo 256)
      pair ab-$w-on "" ab-$w-off MULTIVERSE_LANES=1 "$n" "${a[@]}"
      echo "ablate $w: lanes on $TA s ($KA), off $T s ($K); $ID"
      rows+=("| lanes ablation, $w: on / off | $(fm "$TA" %.2f) s | $(fm "$T" %.2f) s (lanes off) | $(ratio "$T" "$TA") | $ID |")
    done
    ;;
  deal)
    # A lane group's rows dealt far apart (MULTIVERSE_CUDA_DEAL=0), packed
    # into the first warps (1: the default of sessions 15-21) and spread over
    # the warps (the default, eng_deal_span), side by side: the permutations
    # and 256 WebSearch variants (rows 5 and 1: tables that fill the threads),
    # and 64 variants (clusters of 2: 376 nodes on 1,024 threads). FCT files
    # compared with the spread deal's; the row's last column names any that
    # differ.
    perm_list
    for w in ${BENCH_DEAL_W:-perm ws ws64}; do
      batch "$w" || { echo "deal: no batch $w" && continue; }
      line="deal $w:" names=(far packed spread) td=() bad=""
      for dl in 2 1 0; do
        RUN_ENV=(MULTIVERSE_CUDA_DEAL=$dl)
        run gpu dl-$w-$dl "${a[@]}" --backend cuda
        RUN_ENV=()
        td[dl]=$T id=identical
        [ $dl = 2 ] || id=$(same dl-$w-2 dl-$w-$dl "$n")
        [ "$id" = identical ] || bad+="${bad:+; }${names[dl]}: $id"
        line+=" ${names[dl]} $T s ($K), $id;"
      done
      echo "$line"
      rows+=("| rows dealt far apart / packed / spread, $w | $(fm "${td[0]}" %.2f) / $(fm "${td[1]}" %.2f) s | $(fm "${td[2]}" %.2f) s (spread) | $(ratio "${td[1]}" "${td[2]}") (packed / spread) | ${bad:-identical} |")
    done
    ;;
  permshapes)
    # Row 5 in launch shapes (knobs: docs/cli.md), each dealt spread over the
    # warps (the default) and far apart; every run's FCT files compared with
    # the default's (the first).
    perm_list
    a=(--topology k8.json --flows-from perm/list.txt --set mtu=9000 --backend cuda)
    shapes=("" "MULTIVERSE_LANES=16 MULTIVERSE_CUDA_BLOCKS_PER_SM=1"
      "MULTIVERSE_LANES=8 MULTIVERSE_CUDA_BLOCK=256 MULTIVERSE_CUDA_BLOCKS_PER_SM=3"
      "MULTIVERSE_LANES=32 MULTIVERSE_CUDA_BLOCK=512")
    for i in "${!shapes[@]}"; do
      for deal in 2 0; do
        shaped "ps-$i-$deal" ps-0-2 2048 "${shapes[$i]} MULTIVERSE_CUDA_DEAL=$deal" "${a[@]}"
        line="| row 5, ${shapes[$i]:-the default shape}, $([ $deal = 2 ] && echo spread || echo far apart) | $(fm "$T" %.2f) s ($K) | - | - | $ID |"
        echo "permshapes: $line"
        rows+=("$line")
      done
    done
    ;;
  wsshapes)
    # Row 1 (256 WebSearch DCQCN variants) in lane and occupancy shapes: the
    # default (lanes of 2, a block of 512 a SM), the same in the kernel for 2 a
    # SM (64 registers; its 128 blocks still run one a SM), lanes of 1 (SPME
    # off), of 32 on clusters of 8 (a warp steps one node of 32 variants) and
    # of 4 on clusters of 2; then 512 variants (one world of compact rings:
    # worst-case ones would pass a table's 2^30 rows).
    # Kernel times; every FCT file compared with the default's.
    a=("${ws[@]}" --set cc=dcqcn --backend cuda)
    shapes=("" "MULTIVERSE_CUDA_POOL_THREADS=512" "MULTIVERSE_LANES=2 MULTIVERSE_CUDA_BLOCKS_PER_SM=2" "MULTIVERSE_LANES=1"
      "MULTIVERSE_LANES=32 MULTIVERSE_CUDA_CLUSTER=8" "MULTIVERSE_LANES=4 MULTIVERSE_CUDA_CLUSTER=2")
    for i in "${!shapes[@]}"; do
      shaped "wss-$i" wss-0 256 "${shapes[$i]}" "${a[@]}" --sweep dcqcn_rate_ai_mbps="$(seqc 10 265)"
      line="| row 1, ${shapes[$i]:-the default shape} | $(fm "$T" %.2f) s ($K; $(grep -m1 -o '[0-9]* blocks of [0-9]* threads ([0-9]* a SM), clusters of [0-9]*' "wss-$i.err")) | - | - | $ID |"
      echo "wsshapes: $line"
      rows+=("$line")
    done
    shaped wss-512 wss-0 256 "" "${a[@]}" --sweep dcqcn_rate_ai_mbps="$(seqc 10 521)"
    line="| WebSearch DCQCN, 512 variants | $(fm "$T" %.2f) s ($K) | - | - | first 256: $ID |"
    echo "wsshapes: $line"
    rows+=("$line")
    ;;
  poolshapes)
    # Row 1 where the block's pool steps the switches (eng_pool_default: lanes
    # of 1 or 2 in blocks of 512), in shapes the planner does not take, and
    # lanes of 4 (key order by default, the pool not measured there).
    # BENCH_SHAPES_N variants (256: row 1; 1024: row 2).
    nv=${BENCH_SHAPES_N:-256}
    a=("${ws[@]}" --set cc=dcqcn --backend cuda --sweep dcqcn_rate_ai_mbps="$(seqc 10 $((nv + 9)))")
    shapes=("" "MULTIVERSE_CUDA_POOL_THREADS=512" "MULTIVERSE_LANES=2 MULTIVERSE_CUDA_BLOCKS_PER_SM=2"
      "MULTIVERSE_LANES=1 MULTIVERSE_CUDA_BLOCKS_PER_SM=2" "MULTIVERSE_LANES=2 MULTIVERSE_CUDA_CLUSTER=2"
      "MULTIVERSE_LANES=4 MULTIVERSE_CUDA_POOL=1" "MULTIVERSE_LANES=4")
    [ -z "${BENCH_SHAPES+x}" ] || IFS=, read -ra shapes <<< "$BENCH_SHAPES,"
    for i in "${!shapes[@]}"; do
      shaped "wsp-$i" wsp-0 "$nv" "${shapes[$i]}" "${a[@]}"
      line="| $nv WebSearch variants, ${shapes[$i]:-the default shape} | $(fm "$T" %.2f) s ($K; $(grep -m1 -o '[0-9]* blocks of [0-9]* threads ([0-9]* a SM), clusters of [0-9]*\(, a pool\)*' "wsp-$i.err")) | - | - | $ID |"
      echo "poolshapes: $line"
      rows+=("$line")
    done
    ;;
  ncuws)
    # Row 1's kernel over its first 0.5 ms of simulated time (max_time_s: the
    # flows start at 2 s; 498 of 6,615 windows) under ncu: what limits rows 1-3.
    has_ncu || continue
    ncu_ws ncuws 256 ""
    echo "ncu row 1, first 0.5 ms ($(grep -m1 'lane groups' ncuws.err)): ${prof:-no report}"
    rows+=("| row 1's kernel, first 0.5 ms, under ncu: ${prof:-no report} | - | - | - | - |")
    ;;
  ncuhpcc)
    # 128 WebSearch HPCC variants over their first 0.5 ms under ncu in lane
    # groups of 1 and of 2 (MULTIVERSE_LANES): why a group of 2 took 1.95
    # times a group of 1 (session 35), where DCQCN's take about 1.4.
    has_ncu || continue
    for l in 1 2; do
      ncu_ws ncuhpcc$l 128 "MULTIVERSE_LANES=$l" hpcc
      echo "ncu 128 HPCC variants, first 0.5 ms, lanes of $l ($(grep -m1 'lane groups' ncuhpcc$l.err)): ${prof:-no report}"
      rows+=("| 128 HPCC variants' kernel, first 0.5 ms, lanes of $l, under ncu: ${prof:-no report} | - | - | - | - |")
    done
    ;;
  ncupool)
    # The same metrics on 64 variants (clusters of 2: the block's pool by
    # default) with the pool and without (MULTIVERSE_CUDA_POOL=0): what the
    # pool moved, and what limits it.
    has_ncu || continue
    for p in 1 0; do
      ncu_ws ncupool$p 64 "MULTIVERSE_CUDA_POOL=$p"
      echo "ncu 64 variants, first 0.5 ms, pool $p ($(grep -m1 'lane groups' ncupool$p.err)): ${prof:-no report}"
      rows+=("| 64 variants' kernel, first 0.5 ms, MULTIVERSE_CUDA_POOL=$p, under ncu: ${prof:-no report} | - | - | - | - |")
    done
    ;;
  ncu)
    # Row 5's kernel under Nsight Compute (one launch, kernel replay, clocks
    # not locked; ncu on PATH): the profile table's metrics, read by name from
    # the report's details page, and the four largest stall reasons (warp
    # cycles per issued instruction) from its raw page.
    has_ncu || continue
    perm_list
    rm -rf ncu-run
    MULTIVERSE_VERBOSE=1 timeout "${BENCH_RUN_S:-900}" ncu -o ncu-perm --force-overwrite --clock-control none \
      --kernel-name regex:k_experiments --launch-count 1 --section SpeedOfLight --section Occupancy \
      --section WarpStateStats --section SchedulerStats --section LaunchStats \
      --section MemoryWorkloadAnalysis --section InstructionStats \
      "$mv" net --topology k8.json --flows-from perm/list.txt --set mtu=9000 --backend cuda \
      -o ncu-run > ncu-perm.log 2>&1
    rc=$?
    ncu -i ncu-perm.ncu-rep --page details > ncu-perm.txt 2>&1
    ncu -i ncu-perm.ncu-rep --page raw > ncu-raw.txt 2>&1
    prof=$(awk 'BEGIN { k = split("Duration|Registers Per Thread|Achieved Occupancy|Avg. Active Threads Per Warp|" \
                  "Eligible Warps Per Scheduler|Warp Cycles Per Issued Instruction|DRAM Throughput|" \
                  "L2 Cache Throughput|L1/TEX Hit Rate|L2 Hit Rate|Issued Instructions|" \
                  "Local Memory Spilling Requests", name, "|") }
      { s = $0; sub(/^ +/, "", s)
        for (i = 1; i <= k; i++)
          if (!(i in got) && index(s, name[i] "  ") == 1) {
            got[i] = 1; v = substr(s, length(name[i]) + 1); gsub(/ +/, " ", v); sub(/^ /, "", v)
            n = split(v, f, " "); out[i] = name[i] " " (n == 2 ? f[2] " " f[1] : v) } }
      END { for (i = 1; i <= k; i++) if (i in out) printf "%s%s", (c++ ? "; " : ""), out[i] }' ncu-perm.txt)
    stalls=$(awk '$1 ~ /^smsp__average_warps_issue_stalled_.*_per_issue_active\.ratio$/ {
        r = $1; sub(/^smsp__average_warps_issue_stalled_/, "", r); sub(/_per_issue_active\.ratio$/, "", r)
        print $NF, r }' ncu-raw.txt | sort -g -r | head -4 | awk '{ printf "%s%s %s", (NR > 1 ? ", " : ""), $2, $1 }')
    # DRAM bytes a packet-hop: the memory section's throughput times the
    # duration, over the batch's packet-hops (its summary.jsonl)
    hop=$(awk 'function scale(u) { return u ~ /^T/ ? 1e12 : u ~ /^G/ ? 1e9 : u ~ /^M/ ? 1e6 : u ~ /^K/ ? 1e3 : 1 }
      FNR == NR { if ($1 == "Duration" && !d) d = $NF * ($2 == "ms" ? 1e-3 : $2 == "us" ? 1e-6 : 1)
                  if ($1 == "Memory" && $2 == "Throughput" && $3 ~ /byte\/s$/) bw = $NF * scale($3); next }
      { if (match($0, /"packet_hops":[0-9]+/)) h += substr($0, RSTART + 14, RLENGTH - 14) }
      END { if (d && bw && h) printf "%.0f B a packet-hop (%.3g TB over %.4g packet-hops)", bw * d / h, bw * d / 1e12, h }' \
      ncu-perm.txt ncu-run/summary.jsonl 2> /dev/null)
    prof="$prof${hop:+; DRAM $hop}"
    echo "ncu row 5 (rc $rc; $(grep -m1 'lane groups' ncu-perm.log)): $prof; stalls per issued instruction: $stalls"
    rows+=("| row 5's kernel under ncu: ${prof:-no report (rc $rc)}; stalls per issued instruction: ${stalls:--} | - | - | - | - |")
    ;;
  ncusrc)
    has_ncu || continue
    perm_list
    head -1024 perm/list.txt > perm/half.txt
    rm -rf ncusrc-run
    timeout "${BENCH_RUN_S:-900}" ncu -o ncu-src --force-overwrite --clock-control none \
      --kernel-name regex:k_experiments --launch-count 1 --section SourceCounters \
      --section WarpStateStats "$mv" net --topology k8.json --flows-from perm/half.txt \
      --set mtu=9000 --backend cuda -o ncusrc-run > ncu-src.log 2>&1
    rc=$?
    ncu -i ncu-src.ncu-rep --page source --csv --print-source sass > ncu-src.csv 2> /dev/null
    prof=$(/usr/bin/python3 - ncu-src.csv ncusrc-run/summary.jsonl << 'PY'
import csv, json, sys
rows = list(csv.reader(open(sys.argv[1])))[1:]  # the kernel's name first
head, rows = rows[0], rows[1:]
col = {k: i for i, k in enumerate(head)}  # a column ncu no longer names: no report, not zeros
def num(r, k):
    try:
        return float(r[col[k]].replace(",", ""))
    except (ValueError, IndexError):  # "-" where an instruction has no value
        return 0.0
def total(k):
    return sum(num(r, k) for r in rows)
hops = sum(json.loads(l).get("packet_hops", 0) for l in open(sys.argv[2]))
g, ideal = (total("L2 Theoretical Sectors Global" + s) for s in ("", " Ideal"))
loc = total("L2 Theoretical Sectors Local")
lsb = sorted((num(r, "stall_long_sb") for r in rows), reverse=True)
samples, waits = total("Warp Stall Sampling (All Samples)"), sum(lsb)
top = sum(lsb[:40]) / waits * 100
print(f"{hops:.4g} packet-hops; L2 sectors a packet-hop: global {g / hops:.0f} "
      f"(ideal {ideal / hops:.0f}), local {loc / hops:.0f}; stall samples: long scoreboard "
      f"{waits / samples * 100:.0f} %, barrier {total('stall_barrier') / samples * 100:.0f} %; "
      f"the 40 instructions (of {len(rows)}) most waited on hold {top:.0f} % of the long-scoreboard")
PY
    )
    echo "ncusrc row 5 at 1,024 (rc $rc): ${prof:-no report}"
    rows+=("| row 5's kernel at 1,024 under ncu SourceCounters: ${prof:-no report (rc $rc)} | - | - | - | - |")
    ;;
  ncusrcpool)
    # Where the pool's window goes, by source line (session 26: the barrier
    # after S3, the barrier before the pool, the certificate's loads).
    has_ncu || continue
    rm -rf ncusrcpool-run
    MULTIVERSE_VERBOSE=1 timeout "${BENCH_RUN_S:-900}" ncu -o ncusrcpool --force-overwrite \
      --clock-control none --kernel-name regex:k_experiments --launch-count 1 \
      --section SourceCounters --section WarpStateStats --import-source yes "$mv" net "${ws[@]}" \
      --set cc=dcqcn --set max_time_s=2.0002 --sweep dcqcn_rate_ai_mbps="$(seqc 10 $((9 + ${BENCH_SRC_N:-64})))" \
      --backend cuda -o ncusrcpool-run > ncusrcpool.log 2>&1
    ncu -i ncusrcpool.ncu-rep --page source --csv --print-source cuda,sass > ncusrcpool.csv 2> /dev/null
    ncu -i ncusrcpool.ncu-rep --page source --csv --print-source sass > ncusrcpool-sass.csv 2> /dev/null
    /usr/bin/python3 "$here/ncu_lines.py" ncusrcpool.csv ncusrcpool-sass.csv "${BENCH_SRC_TOP:-25}" ||
      echo "ncusrcpool: no report ($(tail -1 ncusrcpool.log))"
    ;;
  train | trainph | train128 | trainc2 | trainpack | trainfar | train2sm | train1sm | trainpool)
    # trainph: the same with port phases and switch warps (a block of 512 per
    # experiment, a warp per switch); train128: blocks of 128 (the shape before
    # the launch-shape model); trainc2: clusters of 2 blocks of 512 with lanes
    # of 2 (what the two knobs alone gave sessions 7 and 8: a block size asked
    # for sets the lanes that make 144 groups resident on 132 SMs); trainpack,
    # trainfar: the rows dealt packed into the first warps or far apart
    # (MULTIVERSE_CUDA_DEAL=1, 0); train2sm: the kernels compiled for 2 blocks
    # of 512 a SM only (MULTIVERSE_CUDA_BLOCKS_PER_SM=2: the shape model sees
    # blocks of 512 at 2 a SM and clusters of 2 at 2 a pair of SMs, twice the
    # experiments at once); train1sm: those for one a SM only (=1: the
    # default before session 24, when the model began to weigh both). Each
    # one's results compared with train's (run train first).
    d=$part knobs=()
    case $part in
    trainph) knobs=(MULTIVERSE_PHASES=1 MULTIVERSE_CUDA_SWITCH_WARPS=1 MULTIVERSE_LANES=1) ;;
    train128) knobs=(MULTIVERSE_CUDA_BLOCK=128) ;;
    trainc2) knobs=(MULTIVERSE_CUDA_BLOCK=512 MULTIVERSE_CUDA_CLUSTER=2 MULTIVERSE_LANES=2) ;;
    trainpack) knobs=(MULTIVERSE_CUDA_DEAL=1) ;;
    trainfar) knobs=(MULTIVERSE_CUDA_DEAL=0) ;;
    train2sm) knobs=(MULTIVERSE_CUDA_BLOCKS_PER_SM=2) ;;
    train1sm) knobs=(MULTIVERSE_CUDA_BLOCKS_PER_SM=1) ;;
    trainpool) knobs=(MULTIVERSE_CUDA_POOL=1) ;;
    esac
    sweep_part "$d" "$part" "${knobs[@]}"
    [ "$part" = train ] && train_T=$T
    ;;
  trainknobs)
    # The training sweep in each setting of BENCH_TRAIN_KNOBS (a list
    # separated by commas, each VAR=VALUE words), e.g.
    # "MULTIVERSE_CUDA_POOL=0,MULTIVERSE_CUDA_DEAL=1": wall and
    # kernel times, each one's results compared with train's (run train first).
    IFS=, read -ra sets <<< "${BENCH_TRAIN_KNOBS:-}"
    [ ${#sets[@]} -gt 0 ] || { echo "trainknobs: BENCH_TRAIN_KNOBS is empty, part skipped"; continue; }
    for i in "${!sets[@]}"; do
      read -ra knobs <<< "${sets[$i]}"
      sweep_part "trainknobs-$i" "trainknobs" "${knobs[@]}"
    done
    ;;
  ab)
    # A against each build of BENCH_AB, in turn, on the same batches.
    read -ra abs <<< "${BENCH_AB:-}"
    [ ${#abs[@]} -gt 0 ] || { echo "ab: BENCH_AB names no other build, part skipped"; continue; }
    bins=("$mv")
    for b in "${abs[@]}"; do bins+=("$(realpath -e "$b")") || continue 2; done
    for w in ${BENCH_AB_W:-ws}; do
      [ "$w" = train ] || batch "$w" || { echo "ab: no batch $w (wsN, hpccN, perm, train)" && continue; }
      for ((r = 1; r <= ${BENCH_AB_ROUNDS:-1}; r++)); do
        for i in "${!bins[@]}"; do
          d=ab-$w-$i-$r ref=ab-$w-0-1 mv0=$mv
          mv=${bins[$i]}
          if [ $w = train ]; then
            sweep_run "$d"
            K=$(kern "$d/run.err") id=-
            [ "$d" = "$ref" ] || [ "$T" = - ] || id=$(same_rows "$ref" "$d")
          else
            run x "$d" "${a[@]}" --backend cuda
            id=-
            [ "$d" = "$ref" ] || [ "$T" = - ] || id=$(same "$ref" "$d" "$n")
          fi
          mv=$mv0
          echo "ab $w, build $i (${bins[$i]}), round $r: $T s ($K); against build 0: $id"
          rows+=("| $w, build $i, round $r | $(fm "$T" %.2f) s ($K) | - | - | $id |")
        done
      done
    done
    ;;
  traincpu)
    # The training sweep on the CPU backend with every core, whole
    # (BENCH_TRAIN_PART=all) or the experiments of one value of one grid key
    # (default network.cc=dcqcn, 48 of the 144; training.micro_batch=1 is
    # half). Prints their wall time; the parts' times of one key summed are
    # the sweep's. Also their share of the
    # sweep's packet-hops as the plan estimates them and the sweep's time
    # scaled by it: an estimate (the plan's hops do not see the congestion
    # control's own cost). Their rows are compared with train's
    # (same_results.py --common; run train first in the same call).
    sel=${BENCH_TRAIN_PART:-network.cc=dcqcn}
    d=traincpu-${sel//[^A-Za-z0-9_.=-]/_}
    rm -rf "$d" && mkdir -p "$d"
    /usr/bin/python3 -c 'import json, sys
j = json.load(open(sys.argv[1]))
key, _, text = sys.argv[2].partition("=")
try:
    value = json.loads(text)
except ValueError:
    value = text
grid = j["sweep"]["grid"]
if sys.argv[2] == "all":
    json.dump(j, sys.stdout, indent=1)
    sys.exit(0)
if value not in grid.pop(key, []):
    sys.exit(f"BENCH_TRAIN_PART: {sys.argv[2]} is not a value of the grid")
node = j["base"]
for k in key.split(".")[:-1]:
    node = node.setdefault(k, {})
node[key.split(".")[-1]] = value
j["name"] += "-part"
json.dump(j, sys.stdout, indent=1)' "$here/train-sweep-144.json" "$sel" > "$d/sub.json" || { echo "  traincpu: no job for $sel"; continue; }
    n_all= h_all= n_sub= h_sub=
    read -r n_all h_all < <(planned "$here/train-sweep-144.json" "$d/plan-all")
    read -r n_sub h_sub < <(planned "$d/sub.json" "$d/plan-sub")
    s=$(bench_now)
    (cd "$d" && timeout "${BENCH_RUN_S:-900}" "$mv" run sub.json --run-dir rd --backend cpu --threads "$threads" > run.out 2> run.err)
    rc=$?
    T=$(bench_calc 'b - a' a="$s" b="$(bench_now)")
    [ $rc = 0 ] || { echo "  traincpu failed (rc $rc$([ $rc = 124 ] && echo ", stopped after ${BENCH_RUN_S:-900} s")): $(tail -1 "$d/run.err")"; T=-; }
    share=$(ratio "$h_sub" "$h_all" %.4f) all=-
    is_num "$T" && is_num "$share" && all=$(bench_calc 't / s' t="$T" s="$share")
    id=-
    [ "$T" != - ] && [ -s train/rd/results.nc ] && id=$(same_rows train "$d" --common)
    echo "traincpu: CPU ($threads threads), the ${n_sub:-?} experiments of $sel: $T s, $share of the sweep's packet-hops (${h_sub:-?} of ${h_all:-?}; the ${n_all:-?} scaled: ~$(fm "$all" %.1f) s); rows against train's: $id"
    rows+=("| training sweep, CPU on $threads threads: the ${n_sub:-?} of $sel ($share of the hops) | $(is_num "${train_T:--}" && echo "$(fm "$train_T" %.1f) s (train, all)" || echo -) | $(fm "$T" %.1f) s (~$(fm "$all" %.1f) s scaled) | - | $id |")
    ;;
  shapes | proxysw)
    # The training sweep's heaviest experiment with one layer (45 nodes, 1.27 M
    # critical-path events) in every launch shape (proxysw: its default shape,
    # then switch warps with port phases alone and on clusters), each compared
    # with the first.
    shapes=("MULTIVERSE_CUDA_BLOCK=128" "MULTIVERSE_CUDA_BLOCK=256" "MULTIVERSE_CUDA_BLOCK=512 MULTIVERSE_CUDA_CLUSTER=1"
      "MULTIVERSE_CUDA_BLOCK=512 MULTIVERSE_CUDA_CLUSTER=2" "MULTIVERSE_CUDA_BLOCK=512 MULTIVERSE_CUDA_CLUSTER=4"
      "MULTIVERSE_CUDA_BLOCK=512 MULTIVERSE_CUDA_CLUSTER=8")
    sw="MULTIVERSE_CUDA_BLOCK=512 MULTIVERSE_CUDA_SWITCH_WARPS=1 MULTIVERSE_LANES=1"
    [ "$part" = proxysw ] && shapes=("MULTIVERSE_CUDA_BLOCK=512 MULTIVERSE_CUDA_CLUSTER=8"
      "$sw MULTIVERSE_CUDA_CLUSTER=1" "$sw MULTIVERSE_CUDA_CLUSTER=4" "$sw MULTIVERSE_CUDA_CLUSTER=8")
    for i in "${!shapes[@]}"; do
      d=$part$i
      # shellcheck disable=SC2086 # the knobs are words
      proxy_run "$d" train-proxy-1layer ${shapes[$i]} MULTIVERSE_CUDA_LAUNCH=experiment
      rc=$? id=-
      [ "$i" -gt 0 ] && [ $rc = 0 ] && id=$(same_rows "${part}0" "$d")
      echo "$part: ${shapes[$i]}: rc $rc, $(kern "$d/run.err"); results $id"
      rows+=("| training proxy (1 layer), ${shapes[$i]} | $(kern "$d/run.err" | awk '{ print $2 " s kernel" }' | grep . || echo "- (rc $rc)") | - | - | $id |")
    done
    ;;
  conc)
    # The one-layer proxy alone in a block of 512, then 132 variants of it
    # (tests/bench/train-proxy-132.json: dcqcn_rate_ai_mbps 10..141, each
    # within 7 % of its critical path) at once, a block of 512 on each SM: the
    # same work per SM, so the ratio is what running beside 131 others costs.
    for j in train-proxy-1layer train-proxy-132; do
      d=conc-$j
      proxy_run "$d" $j MULTIVERSE_CUDA_BLOCK=512 MULTIVERSE_CUDA_CLUSTER=1
      echo "conc: $j: rc $?, $(kern "$d/run.err")"
    done
    k1=$(kern conc-train-proxy-1layer/run.err | awk '{ print $2 }') k132=$(kern conc-train-proxy-132/run.err | awk '{ print $2 }')
    echo "conc: 132 at once over one alone: $(ratio "$k132" "$k1")"
    rows+=("| one-layer proxy alone / 132 at once (blocks of 512) | $(fm "$k1" %.2f) s / $(fm "$k132" %.2f) s kernel | - | $(ratio "$k132" "$k1") slower at once | - |")
    ;;
  lanes132)
    k1=
    for L in 1 2 4 8 32; do
      d=lanes132-$L
      proxy_run "$d" train-proxy-132 MULTIVERSE_LANES=$L
      rc=$? k=$(kern "$d/run.err" | awk '{ print $2 }') id=-
      [ $L = 1 ] && k1=$k
      [ $L != 1 ] && [ $rc = 0 ] && id=$(same_rows lanes132-1 "$d")
      echo "lanes132: lanes of $L: rc $rc, $(kern "$d/run.err"); $id"
      rows+=("| 132 proxy variants, lanes of $L | $(fm "$k" %.2f) s kernel | - | $(ratio "$k1" "$k") of lanes of 1 | $id |")
    done
    ;;
  gpt3 | gpt3warp | gpt3cpu)
    knob=()
    [ "$part" = gpt3warp ] && knob=(MULTIVERSE_CUDA_SWITCH_BLOCK=0)
    sed 's/"link_gbps": 200}/"link_gbps": 200, "mtu": 64000}/' "$here/../../examples/train/gpt3_175b_1024.json" > gpt3_64k.json
    grep -q '"mtu": 64000' gpt3_64k.json || { echo "  gpt3: the example's network changed: set its mtu here"; continue; }
    if [ $part = gpt3cpu ]; then
      s=$(bench_now)
      timeout "${BENCH_RUN_S:-900}" "$mv" train gpt3_64k.json --backend cpu --threads "$threads" --json > gpt3-cpun.jsonl 2> gpt3-cpun.err
      rc=$?
      T=$(bench_calc 'b - a' a="$s" b="$(bench_now)")
      [ $rc = 0 ] || T=-
      # stopped by timeout: say for how long it ran, a lower bound on its time
      [ $rc = 124 ] && T=">${BENCH_RUN_S:-900}"
      echo "gpt3cpu (64000-byte packets): the CPU backend on $threads threads $T s (rc $rc)"
      rows+=("| GPT-3 175B, 1,024 GPUs, one iteration, 64000-byte packets, CPU alone | - | $(fm "$T" %.1f) s ($threads threads$([ $rc = 124 ] && echo ", not finished")) | - | - |")
      continue
    fi
    rm -f gpt3-cpu.time
    (s=$(bench_now)
      timeout "${BENCH_RUN_S:-900}" "$mv" train gpt3_64k.json --backend cpu --threads 1 --json > gpt3-cpu.jsonl 2> gpt3-cpu.err
      echo "$? $(bench_calc 'b - a' a="$s" b="$(bench_now)")" > gpt3-cpu.time) &
    s=$(bench_now)
    env "${knob[@]}" MULTIVERSE_VERBOSE=1 timeout "${BENCH_RUN_S:-900}" "$mv" train gpt3_64k.json --backend cuda --json > gpt3.jsonl 2> gpt3.err
    rc=$?
    T=$(bench_calc 'b - a' a="$s" b="$(bench_now)")
    [ $rc = 0 ] || T=-
    wait
    read -r rc_cpu tc < gpt3-cpu.time
    [ "$rc_cpu" = 0 ] || tc=-
    id=-
    [ "$T" != - ] && [ "$tc" != - ] && id=$(/usr/bin/python3 -c 'import json, sys
a, b = (json.loads(open(f).readline()) for f in sys.argv[1:3])
print("identical" if {k: v for k, v in a.items() if k != "wall_s"} == {k: v for k, v in b.items() if k != "wall_s"} else "DIFFER")' gpt3.jsonl gpt3-cpu.jsonl)
    echo "$part (64000-byte packets${knob[*]:+, ${knob[*]}}): CUDA $T s (rc $rc, $(kern gpt3.err)); one CPU thread $tc s (rc $rc_cpu, run beside it); $id"
    rows+=("| GPT-3 175B, 1,024 GPUs, one iteration, 64000-byte packets${knob[*]:+, ${knob[*]}} (GPU over one core) | $(fm "$T" %.1f) s | $(fm "$tc" %.1f) s (1 thread) | $(ratio "$T" "$tc" "%.2fx of one core") | $id |")
    ;;
  esac
done
echo
echo "| workload | CUDA | CPU ($threads threads unless said) | CPU / CUDA | FCT files |"
echo "|---|---|---|---|---|"
printf '%s\n' "${rows[@]}"
