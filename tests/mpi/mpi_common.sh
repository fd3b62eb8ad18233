# Shared by the tests/mpi scripts (sourced): a work folder with a topology,
# generated flow files and two job files, and `mvrun N ...` = mpirun -np N
# multiverse run ... (oversubscribed: more ranks than cores is fine here).
#   grid.json:  3 random-traffic files and an incast x 4 CCs x 2 load balancers
#               = 32 experiments, a full grid.
#   mixed.json: the same grid, plus include entries: mtu=64990 (invalid: with
#               the 62-byte header, packets over 65000 bytes), a
#               malformed flow file (failed), a missing flow file (failed) and
#               mtu=4096 set explicitly (the base's value: a repeat of
#               experiment 0, simulated once) = 36 experiments, 35 distinct.
set -euo pipefail
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
export OMPI_MCA_rmaps_base_oversubscribe=1
PY=/usr/bin/python3

# mv_setup SRC_DIR GENFLOWS WORK: fills WORK (emptied first).
mv_setup() {
  local src=$1 gen=$2 work=$3
  rm -rf "$work" && mkdir -p "$work"
  cp "$src/examples/net/leafspine.json" "$work/topo.json"
  for i in 0 1 2; do "$gen" random 32 $((i + 1)) 60 1500000 50000 > "$work/f$i.txt"; done
  "$gen" incast 32 7 12 1000000 0 3 > "$work/f3.txt"
  printf '2\n0 1 3 100 1000 0\n' > "$work/bad.txt" # announces 2 flows, holds 1
  local grid='"grid": {"network.flows": ["f0.txt", "f1.txt", "f2.txt", "f3.txt"],
                       "network.cc": ["none", "dcqcn", "dctcp", "hpcc"],
                       "network.lb": ["ecmp", "spray"]}'
  local base='"base": {"network": {"topology": "topo.json", "flows": "f0.txt"}}'
  printf '{"name": "grid", %s, "sweep": {%s}}\n' "$base" "$grid" > "$work/grid.json"
  printf '{"name": "mixed", %s, "sweep": {%s, "include": [
      {"network.flows": "f1.txt", "network.mtu": 64990},
      {"network.flows": "bad.txt"},
      {"network.flows": "missing.txt"},
      {"network.flows": "f0.txt", "network.cc": "none", "network.lb": "ecmp", "network.mtu": 4096}]}}\n' \
    "$base" "$grid" > "$work/mixed.json"
}

# mvrun N MULTIVERSE ARGS...: the run command on N ranks.
# mvrun N MULTIVERSE ARGS...: `multiverse run` on N ranks. Its exit status is 0,
# or 1 for the mixed job, whose invalid and failed experiments have rows that
# are not ok (docs/cli.md, Exit status); anything else fails the test.
mvrun() {
  local n=$1 mv=$2 rc=0 want=0
  shift 2
  case " $* " in *" mixed.json "*) want=1 ;; esac
  mpirun --oversubscribe -np "$n" "$mv" run "$@" || rc=$?
  [ "$rc" = "$want" ] || { echo "FAIL: multiverse run $*: exit $rc, expected $want" >&2; exit 1; }
}

fail() {
  echo "FAIL: $*" >&2
  exit 1
}
