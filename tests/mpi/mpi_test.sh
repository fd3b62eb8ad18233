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
*)
  fail "unknown mode $mode"
  ;;
esac
echo "mpi_$mode: ok"
