#!/usr/bin/env bash
# MPI tests of `multiverse run` (mpi_common.sh describes the jobs).
# usage: mpi_test.sh MODE SRC_DIR MULTIVERSE MV_GENFLOWS WORK
#   setup   the work folder and the reference: the mixed job on 1 rank, and
#           the report of its folder
#   ranks   2 and 4 ranks give the reference's results, each experiment once
#   kill    kill -9 one of 2 ranks mid-sweep, rerun: the reference's results,
#           every experiment exactly once, the finished ones not run again
#   signal  SIGUSR1 to mpirun mid-sweep: exit 138 with its message, progress.json
#           "stopped"; rerun: the reference's results, each experiment once
#   resume  a rerun runs nothing; --only-failed the 2 failed; --force all 35
#           again (old shards gone); merge by hand = the run's merge
#   grid    the grid job on 2 ranks, unstacked by xarray (test_grid.py) and
#           compared with its shards and with `multiverse net`
#   workers two workers of different threads on one rank (--workers
#           cpu:1,cpu:2, as a GPU and the cores share a rank): the
#           reference's results, each experiment once, both workers took
#           batches
#   nodes   4 ranks as 2 nodes of 2 (--ranks-per-node 2): the reference's
#           results, each rank's node and place in its log, a core each
#   costs   the costs file: one record per batch measured, the fitted
#           coefficients (the contention too) beside them under the CPU's
#           name with its CPUID family and model, the next run plans with
#           them (and adds its own), a file that does not read is named,
#           left as it was and not used; --costs none writes nothing; a
#           folder is refused before any work; a preset's contention
#           printed by plan, one of 0 refused
#   inside  progress from inside a batch: one batch of the 32 grid
#           experiments on one thread (presets where a batch costs 1000 s);
#           progress.json shows some ended before it does, and so does a
#           line on stderr
set -euo pipefail
mode=$1 src=$2 mv=$3 gen=$4 work=$5
here=$(cd "$(dirname "$0")" && pwd)
. "$here/mpi_common.sh"
same() { $PY "$here/same_results.py" "$@" || fail "results differ"; }
check() { $PY "$here/run_checks.py" "$@" || fail "run_checks $*"; }
ref=$work/ref/results.nc

# Waits until both ranks have written a shard (rank 1's holds a finished batch).
wait_shards() {
  local dir=$1 pid=$2
  for _ in $(seq 1200); do
    kill -0 "$pid" 2>/dev/null || fail "the run ended before both ranks wrote a shard"
    [ "$(ls "$dir"/shards/*.nc 2>/dev/null | wc -l)" -ge 2 ] && return 0
    sleep 0.05
  done
  fail "no shards in $dir"
}

case $mode in
setup)
  mv_setup "$src" "$gen" "$work"
  cd "$work"
  mvrun 1 "$mv" mixed.json --run-dir ref > ref.out
  grep -q "wrote ref/results.nc: 36 experiments (33 ok, 1 invalid, 2 failed) from 1 shard file" ref.out ||
    fail "$(cat ref.out)"
  check mixed ref/results.nc
  check rows ref 35
  # The report of a run folder: 33 ok; mtu 64990 has no ok experiment.
  "$mv" report ref --by network.mtu --top 2 > report.txt
  grep -q "^ref/results.nc: 36 experiments: 33 ok, 1 invalid, 2 failed$" report.txt &&
    grep -q "^64990         0            -            -       1$" report.txt ||
    fail "report: $(cat report.txt)"
  ;;
ranks)
  cd "$work"
  mvrun 2 "$mv" mixed.json --run-dir ranks2 > ranks2.out
  mvrun 4 "$mv" mixed.json --run-dir ranks4 --max-batch 2 > ranks4.out
  for n in 2 4; do
    grep -q "on $n ranks" ranks$n.out || fail "ranks$n: $(cat ranks$n.out)"
    same "$ref" ranks$n/results.nc
    check rows ranks$n 35
    [ "$(ls ranks$n/shards | wc -l)" = "$n" ] || fail "ranks$n: expected one shard per rank"
  done
  ;;
kill)
  cd "$work"
  rm -rf killed
  mpirun --oversubscribe -np 2 "$mv" run mixed.json --run-dir killed --max-batch 1 > killed.out 2>&1 &
  pid=$! # mpirun's; its children are the ranks
  wait_shards killed $pid
  victim=$(pgrep -P $pid -f "multiverse run" | tail -1)
  [ -n "$victim" ] || fail "no rank to kill"
  kill -9 "$victim"
  if wait $pid; then fail "mpirun exited 0 after a rank was killed"; fi
  [ ! -e killed/results.nc ] || fail "a killed run wrote results"
  mvrun 2 "$mv" mixed.json --run-dir killed --max-batch 1 > rerun.out
  same "$ref" killed/results.nc
  check rows killed 35
  skipped=$(sed -n 's/.*"skipped": \([0-9]*\).*/\1/p' killed/progress.json)
  [ "$skipped" -ge 4 ] && [ "$skipped" -lt 35 ] || fail "the rerun skipped $skipped experiments"
  check progress killed state=done to_run=$((35 - skipped)) done=$((35 - skipped))
  ;;
signal)
  cd "$work"
  rm -rf signalled
  mpirun --oversubscribe -np 2 "$mv" run mixed.json --run-dir signalled --max-batch 1 \
    > signalled.out 2> signalled.err &
  pid=$!
  wait_shards signalled $pid
  kill -USR1 $pid
  rc=0
  wait $pid || rc=$?
  [ $rc = 138 ] || fail "mpirun exited $rc after SIGUSR1, expected 138 (128 + 10)"
  grep -q "stopped by signal 10 (SIGUSR1) with [0-9]* of 35 experiments of this run done" \
    signalled.out || fail "$(cat signalled.out)"
  check progress signalled state=stopped
  [ ! -e signalled/results.nc ] || fail "a stopped run merged"
  mvrun 2 "$mv" mixed.json --run-dir signalled --max-batch 1 > rerun.out
  same "$ref" signalled/results.nc
  check rows signalled 35
  # A batch abandoned at the stop ends on its thread after the loop returned,
  # often inside MPI_Finalize: it must touch nothing of the loop's stack (its
  # wake-up there smashed MPI_Finalize's stack in 10 of 30 such stops). Eight
  # more stops, each 138 and nothing aborted.
  for i in 1 2 3 4 5 6 7 8; do
    rm -rf stops
    mpirun --oversubscribe -np 2 "$mv" run mixed.json --run-dir stops --max-batch 1 --costs none \
      > stops.out 2>&1 &
    pid=$!
    wait_shards stops $pid
    kill -USR1 $pid
    rc=0
    wait $pid || rc=$?
    [ $rc = 138 ] && ! grep -q "stack smashing\|Aborted\|Segmentation\|signal 11" stops.out ||
      fail "stop $i: exit $rc: $(cat stops.out)"
  done
  ;;
resume)
  cd "$work"
  rm -rf resumed && cp -r ref resumed && rm -f resumed/lock
  mvrun 2 "$mv" mixed.json --run-dir resumed > again.out
  grep -q "(35 distinct; 35 with results already), 0 to run" again.out || fail "$(cat again.out)"
  same "$ref" resumed/results.nc
  mvrun 2 "$mv" mixed.json --run-dir resumed --only-failed > failed.out
  grep -q "(35 distinct; 33 with results already), 2 to run" failed.out || fail "$(cat failed.out)"
  check rows resumed 37 35
  same "$ref" resumed/results.nc
  "$mv" merge resumed -o by_hand.nc > merge.out
  grep -q "wrote by_hand.nc: 36 experiments (33 ok, 1 invalid, 2 failed) from 2 shard files" merge.out ||
    fail "$(cat merge.out)"
  same "$ref" by_hand.nc
  mvrun 1 "$mv" mixed.json --run-dir resumed --force > force.out
  grep -q "(35 distinct; 0 with results already), 35 to run" force.out || fail "$(cat force.out)"
  check rows resumed 35
  same "$ref" resumed/results.nc
  ;;
grid)
  cd "$work"
  mvrun 2 "$mv" grid.json --run-dir grid > grid.out
  grep -q "wrote grid/results.nc: 32 experiments (32 ok) from 2 shard files" grid.out ||
    fail "$(cat grid.out)"
  "$mv" net --topology topo.json --flows f0.txt --flows f1.txt --flows f2.txt --flows f3.txt \
    --sweep cc=none,dcqcn,dctcp,hpcc --sweep lb=ecmp,spray --json -o net > net.out
  $PY "$here/test_grid.py" grid net/summary.jsonl || fail "test_grid.py"
  ;;
workers)
  cd "$work"
  rm -rf workers
  rc=0 # the mixed job's rows not ok: exit 1 (docs/cli.md, Exit status)
  mpirun --oversubscribe --bind-to none -np 1 "$mv" run mixed.json --run-dir workers \
    --workers cpu:1,cpu:2 --max-batch 3 > workers.out || rc=$?
  [ $rc = 1 ] || fail "exit $rc, expected 1: $(cat workers.out)"
  grep -q "on 1 rank (rank 0: cpu (1 thread) + cpu (2 threads))" workers.out || fail "$(cat workers.out)"
  same "$ref" workers/results.nc
  # The comparison without numpy (a GPU machine's python): the NetCDF C
  # library read through ctypes finds them the same, and finds one packet-hop
  # and one message changed in a copy, as xarray does.
  MV_SAME_RESULTS_READER=ctypes same "$ref" workers/results.nc
  cp workers/results.nc changed.nc
  $PY -c "import netCDF4; d = netCDF4.Dataset('changed.nc', 'a'); d['packet_hops'][4] += 1
d['message'][7] = 'changed'; d.close()"
  part_n=$($PY -c "import netCDF4, sys
src, dst = netCDF4.Dataset(sys.argv[1]), netCDF4.Dataset('part.nc', 'w')
src.set_auto_mask(False)
ids = list(src['experiment_id'][:])
rows = [i for i in reversed(range(len(ids))) if ids.count(ids[i]) == 1]
for d, dim in src.dimensions.items():
    dst.createDimension(d, len(rows) if d == 'experiment' else len(dim))
for v, var in src.variables.items():
    out = dst.createVariable(v, var.datatype, var.dimensions,
                             fill_value=getattr(var, '_FillValue', False))
    out[:] = var[:][rows] if var.dimensions[:1] == ('experiment',) else var[:]
dst.close()
print(len(rows))" "$ref") || fail "part.nc"
  [ "$part_n" -gt 2 ] || fail "part.nc: $part_n experiments"
  for reader in xarray ctypes; do
    MV_SAME_RESULTS_READER=$reader $PY "$here/same_results.py" "$ref" changed.nc > changed.out &&
      fail "$reader: a changed copy read the same"
    [ "$(grep -c '^  packet_hops\[4\] (experiment 4): \|^  message\[7\] (experiment 7): ' changed.out)" = 2 ] ||
      fail "$reader: $(cat changed.out)"
    # --common: experiments looked up by id: the reference's rows of ids it
    # holds once, in reverse order, within the workers' file
    MV_SAME_RESULTS_READER=$reader $PY "$here/same_results.py" --common part.nc workers/results.nc \
      > common.out || fail "$reader --common: $(cat common.out)"
    grep -q "part.nc within workers/results.nc: $part_n experiments" common.out ||
      fail "$reader --common: $(cat common.out)"
    MV_SAME_RESULTS_READER=$reader $PY "$here/same_results.py" --common "$ref" changed.nc > common.out &&
      fail "$reader --common: a changed copy read the same"
    [ "$(grep -c '^  packet_hops (experiment \|^  message (experiment ' common.out)" = 2 ] ||
      fail "$reader --common: $(cat common.out)"
  done
  check rows workers 35
  log=workers/logs/a0001-r000000.log
  for g in 0 1; do
    grep -q "^ *[0-9.]* worker $g (cpu): [0-9]* experiments (" $log || fail "worker $g ran nothing: $(cat $log)"
  done
  ;;
nodes)
  cd "$work"
  rm -rf nodes
  mvrun 4 "$mv" mixed.json --run-dir nodes --ranks-per-node 2 --max-batch 2 > nodes.out
  same "$ref" nodes/results.nc
  check rows nodes 35
  for r in 0 1 2 3; do
    grep -q "rank $r of 4 (node $((r / 2)) of 2, local $((r % 2)) of 2): cpu (1 thread)" \
      nodes/logs/a0001-r00000$r.log || fail "rank $r: $(head -1 nodes/logs/a0001-r00000$r.log)"
  done
  ;;
costs)
  cd "$work"
  rm -rf costs c1 c2 c3
  mkdir costs
  mvrun 2 "$mv" grid.json --run-dir c1 --costs costs/c.json > c1.out
  batches=$(cat c1/logs/*.log | grep -c "experiments ([0-9]* not ok) in")
  $PY - "$batches" 1 << 'PY' || fail "costs file after one run: $(cat costs/c.json)"
import json, sys
d = json.load(open("costs/c.json"))
(name, m), = d["models"].items()
assert d["runs"] == int(sys.argv[2]) and name.endswith("|network/packet"), (d["runs"], name)
assert len(m["records"]) == int(sys.argv[1]), (len(m["records"]), sys.argv[1])
assert all(r[0] == d["runs"] and r[3] > 0 for r in m["records"])
# The fitted coefficients beside them: the seconds and the contention.
want = ["hops", "windows", "node_windows", "exp", "rows", "batch", "contention"]
assert sorted(m["fitted"]) == sorted(want) and all(m["fitted"][k] > 0 for k in want), m["fitted"]
# The CPU's name: its model name with the CPUID family and model (drv_cpu.c).
info = open("/proc/cpuinfo").read().split("\n\n")[0]
if "cpu family" in info:
    fam = [l.split(":")[1].strip() for l in info.split("\n") if l.startswith("cpu family")][0]
    assert name.startswith("cpu:") and f", family {fam} model " in name, name
print(name, len(m["records"]), "records")
PY
  "$mv" plan grid.json --costs costs/c.json --run-dir none > plan.out
  grep -q "refitted to $batches measured batches of costs/c.json" plan.out || fail "$(cat plan.out)"
  mvrun 1 "$mv" grid.json --run-dir c2 --costs costs/c.json > c2.out
  more=$(grep -c "experiments ([0-9]* not ok) in" c2/logs/a0001-r000000.log)
  grep -q "model .*|network/packet: $((batches + 1)) batches" c2/logs/a0001-r000000.log ||
    fail "the second run did not start from the first's $batches records"
  $PY -c "import json; d = json.load(open('costs/c.json')); m, = d['models'].values()
assert d['runs'] == 2 and len(m['records']) == $batches + $more, (d['runs'], len(m['records']))"
  echo '{"runs": 1, "models": {"x|y": {"records": [[1, 2]]}}}' > costs/bad.json
  cp costs/bad.json costs/bad.orig
  mvrun 1 "$mv" grid.json --run-dir c3 --costs costs/bad.json > c3.out 2> c3.err
  grep -q "^multiverse: costs/bad.json: models.x|y.records\[0\]: expected 19 numbers >= 0; the costs file is neither used nor written (--costs)$" \
    c3.err || fail "$(cat c3.err)"
  cmp costs/bad.json costs/bad.orig || fail "a costs file that does not read was overwritten"
  same c1/results.nc c3/results.nc
  MULTIVERSE_COSTS=costs/env.json mvrun 1 "$mv" grid.json --run-dir c3 --force --costs none > c3.out
  [ ! -e costs/env.json ] || fail "--costs none wrote a costs file"
  # The contention from the presets: printed by plan apart from the seconds;
  # one that is not a number > 0 refused, the file and member named.
  rm -rf presets-c && cp -r "$src/jobs/presets" presets-c
  contention() {
    $PY -c "import json; p = 'presets-c/batching.json'; d = json.load(open(p))
d['workers']['cpu']['contention'] = $1; json.dump(d, open(p, 'w'))"
    MULTIVERSE_PRESETS=$work/presets-c "$mv" plan grid.json --run-dir none --costs none > c5.out 2> c5.err
  }
  contention 2.5 || fail "$(cat c5.out c5.err)"
  grep -q "|network/packet: hops .* batch .* s, contention 2.5 (the presets')$" c5.out || fail "$(cat c5.out)"
  if contention 0; then fail "a contention of 0 was taken"; fi
  grep -qx "multiverse plan: $work/presets-c/batching.json: workers.cpu.contention: expected a number > 0" c5.err ||
    fail "$(cat c5.err)"
  # A path that cannot be a costs file: refused before any work (the output
  # rule; and the name of a .json file).
  mkdir -p costs/dir.json
  if "$mv" plan grid.json --run-dir none --costs costs/dir.json > c4.out 2> c4.err; then
    fail "--costs FOLDER ran"
  fi
  grep -qx "multiverse plan: --costs costs/dir.json: a folder, not a regular file: give a file's path" \
    c4.err || fail "$(cat c4.err)"
  if "$mv" plan grid.json --run-dir none --costs costs > c4.out 2> c4.err; then fail "--costs costs ran"; fi
  grep -qx "multiverse plan: --costs costs: expected none or the path of a .json file" c4.err ||
    fail "$(cat c4.err)"
  ;;
inside)
  cd "$work"
  rm -rf inside presets
  # One batch: presets where a batch costs 1000 s more than its experiments,
  # and its experiments 20x what they cost on any machine this runs on
  # (--costs none: no record rescales them): only an estimate rebuilt from
  # the batch's ended experiments comes near the measured time.
  cp -r "$src/jobs/presets" presets
  $PY -c "import json; p = 'presets/batching.json'; d = json.load(open(p)); w = d['workers']['cpu']
w['batch'] = 1000
for k in ('hops', 'windows', 'node_windows', 'exp', 'rows'): w[k] *= 20
json.dump(d, open(p, 'w'))"
  MULTIVERSE_PRESETS=$work/presets mpirun --oversubscribe -np 1 "$mv" run grid.json \
    --run-dir inside --workers cpu:1 --costs none --progress-every 0.5 > inside.out 2> inside.err &
  pid=$!
  seen=""
  while kill -0 $pid 2> /dev/null; do
    seen="$seen $(sed -n 's/.*"done": \([0-9]*\).*/\1/p' inside/progress.json 2> /dev/null || true)"
    sleep 0.1
  done
  wait $pid || fail "$(cat inside.out inside.err)"
  [ "$(grep -c "experiments ([0-9]* not ok) in" inside/logs/a0001-r000000.log)" = 1 ] ||
    fail "expected one batch: $(cat inside/logs/a0001-r000000.log)"
  echo "progress.json's done: $seen"
  echo "$seen" | tr ' ' '\n' | awk '$1 > 0 && $1 < 32 {n++} END {exit n ? 0 : 1}' ||
    fail "progress.json never showed experiments ended inside the batch: $seen"
  grep -q "multiverse run: [1-9][0-9]*/32 experiments ([1-9][0-9]* in running batches)" inside.err ||
    fail "stderr: $(cat inside.err)"
  # The batch's estimate from its own ended experiments (a CPU batch's): the
  # 1000 s the presets add stay, its experiments' part follows their ends.
  # Rank 0's last estimate inside the batch: that part within 0.25-4x of the
  # measured makespan (the plan's 1000 s blended with the rate so far, as
  # before, gave a part below 0).
  m=$($PY -c "import json; print(json.load(open('inside/progress.json'))['elapsed_s'])")
  awk -v m="$m" '/ estimate: 0 batches done, [1-9][0-9]* of 32 / {for (i = 1; i <= NF; i++)
    if ($i == "makespan") {x = $(i + 1) - 1000; line = $0}}
    END {if (line == "") {print "no estimate inside the batch"; exit 1}
      printf "last estimate inside the batch: %s\n  its experiments: %.3f s, %.2fx the measured %.3f s\n", line, x, x / m, m
      exit !(x >= 0.25 * m && x <= 4 * m)}' inside/logs/a0001-r000000.log ||
    fail "the batch's own estimate: $(cat inside/logs/a0001-r000000.log)"
  ;;
*)
  fail "unknown mode $mode"
  ;;
esac
echo "mpi_$mode: ok"
