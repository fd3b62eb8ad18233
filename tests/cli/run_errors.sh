#!/usr/bin/env bash
# Bad job files and bad uses of run/plan/merge/report: every problem of a job
# in one pass, one line each naming the file and the JSON path (problems that
# many experiments share: one line naming them), printed once under mpirun,
# exit 2 before anything runs; experiments that cannot run listed by plan.
# usage: run_errors.sh MULTIVERSE SRC_DIR WORK
set -euo pipefail
mv=$1 src=$2 work=$3
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
rm -rf "$work" && mkdir -p "$work" && cd "$work"
cp "$src/examples/net/leafspine.json" topo.json
cp "$src/examples/net/incast16.txt" f0.txt
fail() { echo "FAIL: $*" >&2; exit 1; }

# expect RC EXPECTED_STDERR_FILE CMD...: exit status and stderr exactly (less
# the notice mpirun adds after a rank's non-zero exit).
expect() {
  local rc=$1 want=$2
  shift 2
  local got=0
  "$@" > out.txt 2> all.txt || got=$?
  sed '/^-\{20,\}$/,$d' all.txt > err.txt
  [ "$got" = "$rc" ] || fail "$*: exit $got, expected $rc; stderr: $(cat err.txt)"
  diff -u "$want" err.txt || fail "$*: stderr differs"
}

cat > values.json <<'JSON'
{"base": {"network": {"topology": "topo.json", "flows": "f0.txt", "mtu": "big", "colour": 1}},
 "sweep": {"grid": {"network.cc": ["dcqcn", "bogus"], "network.lb": ["ecmp", "sprey", "spray"]}}}
JSON
cat > want.txt <<'TXT'
values.json: every experiment (6): network.mtu: expected an integer
values.json: every experiment (6): network.colour: unknown key
values.json: experiments 1, 4 (the first: network.cc="dcqcn", network.lb="sprey"): network.lb: unknown load balancing 'sprey' (ecmp, spray, adaptive)
values.json: experiments 3, 4, 5 (the first: network.cc="bogus", network.lb="ecmp"): network.cc: unknown congestion control 'bogus' (none, dcqcn_mlx, dcqcn, dcqcn_paper, dctcp, hpcc)
multiverse plan: 4 problems
TXT
expect 2 want.txt "$mv" plan values.json
sed -i 's/multiverse plan: 4 problems/multiverse run: 4 problems; nothing ran/' want.txt
expect 2 want.txt mpirun --oversubscribe -np 2 "$mv" run values.json --run-dir r
[ ! -e r ] || fail "a job with problems created its run folder"

cat > sweep.json <<'JSON'
{"base": {"network": {"topology": "topo.json", "flows": "f0.txt", "ring_cap": 3, "ecn": 2}},
 "sweep": {"grid": {"network.cc": ["dcqcn", "dcqcn"]}, "colour": 1}, "output": "x.txt"}
JSON
cat > want.txt <<'TXT'
sweep.json: output: must be a file name ending in .nc, in the run folder (no '/', not starting with '.', at most 200 bytes, no control characters)
sweep.json: sweep.colour: unknown key (expected grid, zip, samples, include, exclude)
sweep.json: sweep.grid.network.cc[1]: "dcqcn" repeats [0]
sweep.json: base.network.ring_cap: 3 is out of range: 0 (derived) or a power of two up to 134217728 (2^27) packets
sweep.json: base.network.ecn: expected true or false
multiverse plan: 5 problems
TXT
expect 2 want.txt "$mv" plan sweep.json

# A good job whose experiments cannot all run: plan lists them, exit 1.
cat > rows.json <<'JSON'
{"base": {"network": {"topology": "topo.json", "flows": "f0.txt"}},
 "sweep": {"grid": {"network.mtu": [4096, 64990]}, "include": [{"network.flows": "nothing.txt"}]}}
JSON
: > want.txt
expect 1 want.txt "$mv" plan rows.json --run-dir r
grep -q "^rows.json: 3 experiments of kind network, 3 distinct$" out.txt || fail "$(cat out.txt)"
grep -q "^  experiment 1 ([0-9a-f]\{16\}): invalid: mtu: must be 1..65000-header bytes$" \
  out.txt || fail "$(cat out.txt)"
grep -q "^  experiment 2 ([0-9a-f]\{16\}): failed: .*/nothing.txt: No such file or directory$" \
  out.txt || fail "$(cat out.txt)"

# Too little memory for a batch: oom rows, and a run that writes them.
expect 1 want.txt "$mv" plan rows.json --run-dir r --memory 0.001
grep -q "^  experiment 0 ([0-9a-f]\{16\}): oom: needs 0.00[1-9][0-9]* GiB of memory; a batch may use 0.001 GiB (--memory)$" \
  out.txt || fail "$(cat out.txt)"
grep -q "^to run: 0 experiments, 0 packet-hops (estimate), in 0 batches" out.txt || fail "$(cat out.txt)"
# Every experiment has its row, some not ok: exit 1 (docs/cli.md, Exit status).
rc=0
mpirun --oversubscribe -np 2 "$mv" run rows.json --run-dir r --memory 0.001 > out.txt 2> err.txt ||
  rc=$?
[ $rc = 1 ] || fail "run: exit $rc, expected 1: $(cat err.txt)"
grep -q "3 to run in 0 batches" out.txt || fail "$(cat out.txt)"
grep -q "wrote r/results.nc: 3 experiments (0 ok, 1 oom, 1 invalid, 1 failed) from 1 shard file" out.txt ||
  fail "$(cat out.txt)"

# Bad uses.
echo "multiverse run: --force and --only-failed exclude each other" > want.txt
expect 2 want.txt "$mv" run rows.json --force --only-failed
echo "multiverse plan: unknown option --frobnicate (--help)" > want.txt
expect 2 want.txt "$mv" plan rows.json --frobnicate
echo "multiverse plan: --backend gpu: expected auto, cpu or cuda" > want.txt
expect 2 want.txt "$mv" plan rows.json --backend gpu
echo "multiverse plan: --ranks 0: expected an integer from 1 to 1000000" > want.txt
expect 2 want.txt "$mv" plan rows.json --ranks 0
echo "multiverse merge: nowhere/manifest.jsonl: No such file or directory (not a run folder?)" > want.txt
expect 2 want.txt "$mv" merge nowhere
echo "multiverse report: nothing.nc: No such file or directory" > want.txt
expect 2 want.txt "$mv" report nothing.nc
echo "run_errors: ok"
