#!/usr/bin/env bash
# Slurm tests of cluster/multiverse.sbatch on a one-node cluster started here
# (cluster/testcluster.sh; stopped on exit, whatever happens), with the mixed
# job and the reference of tests/mpi (fixture mpi_setup).
# usage: slurm_test.sh MODE SRC_DIR MULTIVERSE WORK    (exit 77: no root or no Slurm)
#   sbatch   sbatch --wait, 2 ranks: the reference's results, one shard per rank,
#            each experiment once, the job's id in the results' provenance
#   requeue  USR1 to the batch shell mid-sweep (as --signal=B:USR1@N sends it):
#            the ranks stop, the script requeues, the job runs again and
#            completes; the reference's results with every experiment run
#            exactly once, two attempts in the logs, Restarts=1
#   nodes    a 2-node allocation (two slurmd on this machine, mv1 and mv2),
#            one rank on each: the reference's results, each rank on its own
#            Slurm node and MPI node (node 0 of 2, node 1 of 2)
set -euo pipefail
mode=$1 src=$2 mv=$3 work=$4
here=$(cd "$(dirname "$0")" && pwd)
PY=/usr/bin/python3
fail() { echo "FAIL: $*" >&2; exit 1; }
if [ "$(id -u)" != 0 ] || [ ! -x /usr/sbin/slurmctld ] || [ ! -x /usr/sbin/munged ]; then
  echo "slurm_test: needs root and Debian's slurm-wlm and munge (tools/deps.sh); skipped"
  exit 77
fi
cluster=$work/cluster-$mode
cleanup() {
  [ -n "${jid:-}" ] && scancel "$jid" 2>/dev/null
  "$src/cluster/testcluster.sh" stop "$cluster"
}
trap cleanup EXIT
nodes=1
[ "$mode" = nodes ] && nodes=2
"$src/cluster/testcluster.sh" start "$cluster" 2 $nodes
. "$cluster/env"
# MV_CORE_DUMPS: a rank that crashes leaves its core and the job's output its
# backtraces (slurm_nodes segfaulted once, rank 0 at address nil, on a loaded box).
export MULTIVERSE=$mv OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 MV_CORE_DUMPS=1
cd "$work"
same() { $PY "$here/../mpi/same_results.py" "$@" || fail "results differ"; }
check() { $PY "$here/../mpi/run_checks.py" "$@" || fail "run_checks $*"; }
state() { scontrol show job "$jid" | sed -n 's/.*JobState=\([A-Z_]*\).*/\1/p'; }
sbatch_args=(--nodes=1 --ntasks-per-node=2 --time=10)

case $mode in
sbatch)
  rm -rf slurm-sbatch
  out=$(sbatch --wait --parsable "${sbatch_args[@]}" --output=slurm-sbatch.out \
    "$src/cluster/multiverse.sbatch" mixed.json slurm-sbatch) || fail "sbatch: $(cat slurm-sbatch.out)"
  jid=${out%%;*}
  grep -q "complete; merge step" slurm-sbatch.out || fail "$(cat slurm-sbatch.out)"
  same ref/results.nc slurm-sbatch/results.nc
  check rows slurm-sbatch 35
  [ "$(ls slurm-sbatch/shards | wc -l)" = 2 ] || fail "expected one shard per rank"
  $PY -c "import xarray as xr, sys
a = xr.open_dataset('slurm-sbatch/results.nc').attrs
assert a['slurm_job_id'] == '$jid', a['slurm_job_id']
print('slurm_job_id', a['slurm_job_id'], 'hostname', a['hostname'])" || fail "provenance"
  [ "$(state)" = COMPLETED ] || fail "job $jid is $(state)"
  ;;
requeue)
  rm -rf slurm-requeue slurm-requeue.out
  sbatch --wait --parsable "${sbatch_args[@]}" --output=slurm-requeue.out \
    "$src/cluster/multiverse.sbatch" mixed.json slurm-requeue --max-batch 1 > sbatch.out &
  waiter=$!
  for _ in $(seq 1200); do
    jid=$(squeue -h -o %i -n multiverse | head -1)
    [ -n "$jid" ] && [ "$(ls slurm-requeue/shards/*.nc 2>/dev/null | wc -l)" -ge 2 ] && break
    sleep 0.05
  done
  [ -n "$jid" ] || fail "no job"
  scancel --signal=USR1 --batch "$jid"
  # Slurm holds a requeued batch job for about two minutes (its EligibleTime):
  # once it is pending again, let it start now.
  for _ in $(seq 600); do
    [ "$(state)" = PENDING ] && break
    sleep 0.1
  done
  [ "$(state)" = PENDING ] || fail "job $jid was not requeued: $(state); $(cat slurm-requeue.out)"
  # The stopped step's ranks exited 138, so srun ended the step (--kill-on-bad-exit):
  # its slurmstepd removes its PMIx socket a moment later. Slurm's two minutes cover
  # that; starting the job at once must wait for it, or the new step with the same
  # id cannot bind the socket (in the spool folder of its node, spool/NODE).
  for _ in $(seq 300); do
    compgen -G "$cluster/spool/*/stepd.slurm.pmix.$jid.0" > /dev/null || break
    sleep 0.1
  done
  scontrol update JobId="$jid" StartTime=now
  wait $waiter || fail "sbatch --wait: $(cat slurm-requeue.out)"
  for want in "USR1: the time limit is near" "stopped by signal 10 (SIGUSR1)" "requeueing" \
    "(restart 1): running mixed.json" "(restart 1): complete; merge step"; do
    grep -qF "$want" slurm-requeue.out || fail "no '$want' in: $(cat slurm-requeue.out)"
  done
  [ "$(state)" = COMPLETED ] || fail "job $jid is $(state)"
  scontrol show job "$jid" | grep -q "Restarts=1" || fail "$(scontrol show job "$jid")"
  same ref/results.nc slurm-requeue/results.nc
  check rows slurm-requeue 35
  ls slurm-requeue/logs/a0001-r000000.log slurm-requeue/logs/a0002-r000001.log > /dev/null ||
    fail "expected two attempts' logs"
  skipped=$(sed -n 's/.*"skipped": \([0-9]*\).*/\1/p' slurm-requeue/progress.json)
  [ "$skipped" -ge 4 ] && [ "$skipped" -lt 35 ] || fail "the second attempt skipped $skipped"
  ;;
nodes)
  rm -rf slurm-nodes
  out=$(sbatch --wait --parsable --nodes=2 --ntasks-per-node=1 --time=10 --output=slurm-nodes.out \
    "$src/cluster/multiverse.sbatch" mixed.json slurm-nodes --max-batch 2) ||
    fail "sbatch: $(cat slurm-nodes.out)"
  jid=${out%%;*}
  grep -q "complete; merge step" slurm-nodes.out || fail "$(cat slurm-nodes.out)"
  same ref/results.nc slurm-nodes/results.nc
  check rows slurm-nodes 35
  scontrol show job "$jid" | grep -q "NumNodes=2 " || fail "$(scontrol show job "$jid")"
  for r in 0 1; do
    grep -q "rank $r of 2 (node $r of 2, local 0 of 1): .*, Slurm node mv$((r + 1))$" \
      slurm-nodes/logs/a0001-r00000$r.log || fail "rank $r: $(head -1 slurm-nodes/logs/a0001-r00000$r.log)"
  done
  ;;
*)
  fail "unknown mode $mode"
  ;;
esac
echo "slurm_$mode: ok"
