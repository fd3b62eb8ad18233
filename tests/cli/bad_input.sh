#!/usr/bin/env bash
# Hostile values that were read silently wrong (bad-input trial 2): every
# number of an option or environment variable read whole by the options'
# parser, with its range; each refusal one exact line, exit 2, nothing run.
# Also what `report` says about a run folder and a file it cannot use.
# usage: bad_input.sh MULTIVERSE SRC_DIR WORK
set -euo pipefail
mv=$1 src=$2 work=$3
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
rm -rf "$work" && mkdir -p "$work" && cd "$work"
fail() { echo "FAIL: $*" >&2; exit 1; }

# expect RC WANT CMD...: exit status and stderr exactly.
expect() {
  local rc=$1 want=$2 got=0
  shift 2
  "$@" > out.txt 2> err.txt || got=$?
  [ "$got" = "$rc" ] || fail "$*: exit $got, expected $rc; stderr: $(cat err.txt)"
  [ "$(cat err.txt)" = "$want" ] || fail "$*: stderr: $(cat err.txt); expected: $want"
}

cp "$src/tests/data/line3.txt" line3.txt
printf '2\n0 1 3 100 10000 0\n1 0 3 100 20000 0.000001\n' > f2.txt
cat > j.json <<'JSON'
{"name": "j", "base": {"kind": "network", "network": {"topology": "line3.txt", "flows": "f2.txt"}},
 "sweep": {"grid": {"network.mtu": [1000, 2000, 4096], "network.cc": ["none", "dcqcn"]}}}
JSON
"$mv" run j.json --run-dir rd > /dev/null 2>&1 || fail "run"

# 9. report --top: read whole (atoi made 1e9 one row, 3x three).
for v in 1e9 3x 5.5 2e1 " 3" +3 0 -1 1000000000000000000000; do
  expect 2 "multiverse report: --top $v: expected an integer from 1 to 2147483647" \
    "$mv" report rd --top "$v"
done
"$mv" report rd --top 1000000000 > out.txt || fail "--top 1000000000"
grep -q "^best 6 of 6 ok experiments:$" out.txt || fail "--top 1e9: $(cat out.txt)"
# 29. report: one --by, a metric that is a result, a stopped run, a damaged file.
expect 2 "multiverse report: --by is given twice: give it once" \
  "$mv" report rd --by network.cc --by network.mtu
expect 2 "multiverse report: rd/results.nc: experiment_index: not a result to rank by (give a result column)" \
  "$mv" report rd --metric experiment_index
expect 2 "multiverse report: rd/results.nc: network.mtu: a swept parameter, not a result to rank by" \
  "$mv" report rd --metric network.mtu
cp -r rd stopped && rm stopped/results.nc
expect 2 "multiverse report: stopped: no results.nc yet (a run that stopped?): rerun \`multiverse run\` to complete it, or \`multiverse merge stopped --partial\`" \
  "$mv" report stopped
head -c 5000 rd/results.nc > cut.nc
expect 2 "multiverse report: cut.nc: not a NetCDF file that reads (NetCDF: HDF error): not a results file, or a damaged one (multiverse merge writes a run's again)" \
  "$mv" report cut.nc

# 19. A value written twice in different ways is given twice (3 runs of one id before).
expect 2 "multiverse net: --sweep mtu: the value 1e3 is given twice (as 1000)" \
  "$mv" net --topology line3.txt --flows f2.txt --sweep mtu=1000,1e3,1000.0 -o o
expect 2 "multiverse net: --sweep buffer_mb: the value 32.0 is given twice (as 32)" \
  "$mv" net --topology line3.txt --flows f2.txt --sweep buffer_mb=16,32,32.0 -o o

# 22. A hand-edited manifest is refused, not trusted (it relabelled results silently).
cp -r rd edited
/usr/bin/python3 - edited/manifest.jsonl <<'PY'
import json, sys
lines = open(sys.argv[1]).read().splitlines()
row = json.loads(lines[1])
row["values"] = [999999, "hacked"]
lines[1] = json.dumps(row, separators=(",", ":"))
open(sys.argv[1], "w").write("\n".join(lines) + "\n")
PY
expect 2 "multiverse merge: edited/manifest.jsonl:2: network.mtu is 999999 here but 1000 in its config (the manifest was changed by hand? rerun \`multiverse run\`)" \
  "$mv" merge edited
cp -r rd edited2
/usr/bin/python3 - edited2/manifest.jsonl <<'PY'
import json, sys
lines = open(sys.argv[1]).read().splitlines()
a, b = json.loads(lines[2]), json.loads(lines[3])
a["id"] = b["id"]
lines[2] = json.dumps(a, separators=(",", ":"))
open(sys.argv[1], "w").write("\n".join(lines) + "\n")
PY
"$mv" merge edited2 > out.txt 2> err.txt && fail "two configurations under one id were merged"
grep -q "^multiverse merge: edited2/manifest.jsonl:4: experiment id [0-9a-f]\{16\} is an earlier row's, with another configuration" \
  err.txt || fail "one id twice: $(cat err.txt)"

# 23. --force that cannot delete an old shard stops before anything is lost.
cp -r rd forced
mkdir forced/shards/a0009-r000000-p0000.nc && touch forced/shards/a0009-r000000-p0000.nc/x
sum=$(cksum < forced/results.nc)
"$mv" run j.json --run-dir forced --force > out.txt 2> err.txt && fail "--force ran"
grep -q "^multiverse run: --force: cannot delete the old shard forced/shards/a0009-r000000-p0000.nc: Directory not empty; nothing ran (the results file is kept)$" \
  err.txt || fail "--force: $(cat err.txt)"
[ "$(cksum < forced/results.nc)" = "$sum" ] || fail "--force lost the results file"

# 20. A mistake inside an inline topology object is a problem of the job (it was a
# `failed` row that --only-failed retried forever), with its JSON path.
cat > jtopo.json <<'JSON'
{"base": {"kind": "network", "network": {"topology": {"kind": "fat_tree", "tiers": 2, "k": 4, "colour": 1}, "flows": "f2.txt"}},
 "sweep": {"grid": {"network.topology.k": [4, "four"]}}}
JSON
expect 2 'jtopo.json: experiment 0 (network.topology.k=4): network.topology.colour: unknown key (this kind takes: kind, tiers, k, oversubscription, leaves, spines, hosts_per_leaf, link_gbps, host_gbps, link_delay_ns, host_delay_ns)
jtopo.json: experiment 1 (network.topology.k="four"): network.topology.k: must be an integer, got "four"
multiverse plan: 2 problems' "$mv" plan jtopo.json
# 21. plan: a reason of several problems keeps its continuation lines indented.
cat > t_types.json <<'JSON'
{"base": {"model": {"layers": "2", "hidden": 256.5, "heads": true, "vocab": 1024, "seq_len": 128},
 "training": {"global_batch": 4, "micro_batch": 1, "tp": 1, "pp": 1},
 "cluster": {"gpu": "h200", "servers": 1, "gpus_per_server": 2}}}
JSON
"$mv" plan t_types.json > out.txt 2> err.txt && fail "t_types: exit 0"
# The paths are the file's (base.model...; it said experiments[0].model..., a key the file lacks).
grep -A2 "^  experiment 0 ([0-9a-f]*): invalid: t_types.json: base.model.layers: must be an integer, got \"2\"$" out.txt |
  tail -2 > got.txt
printf '      t_types.json: base.model.hidden: must be an integer, got 256.5\n      t_types.json: base.model.heads: must be an integer, got true\n' > want.txt
diff want.txt got.txt || fail "plan's continuation lines"
# 29. One line for one problem; a one-experiment job's paths in base.
echo '{"base": {"kind": "bogus", "network": {"topology": "line3.txt", "flows": "f2.txt"}}}' > kb.json
expect 2 'kb.json: base.kind: must be "network", "training" or "collective"
multiverse plan: 1 problem' "$mv" plan kb.json
echo '{"base": {"kind": "network", "model": {"layers": 2}, "network": {"topology": "line3.txt", "flows": "f2.txt"}}}' > km.json
expect 2 'km.json: base.model: unknown member (kind, network)
multiverse plan: 1 problem' "$mv" plan km.json

# 11. run sizes its threads by the batch, as net and train do: a one-experiment
# batch runs on one thread (the rank's 2 spun against the box's load, 10-90x
# slower); --threads is exact.
"$mv" run j.json --run-dir thr --max-batch 1 > /dev/null 2>&1 || fail "run --max-batch 1"
grep -q "cpu ([0-9]* threads)" thr/logs/a0001-r000000.log || fail "rank line: $(cat thr/logs/*.log)"
[ "$(grep -c 'worker [0-9]* (cpu): 1 experiments .*, 1 CPU threads$' thr/logs/a0001-r000000.log)" = 6 ] ||
  fail "one-experiment batches: $(cat thr/logs/*.log)"
"$mv" run j.json --run-dir thr2 --max-batch 1 --threads 2 > /dev/null 2>&1 || fail "run --threads 2"
[ "$(grep -c 'worker [0-9]* (cpu): 1 experiments .*, 2 CPU threads$' thr2/logs/a0001-r000000.log)" = 6 ] ||
  fail "--threads 2: $(cat thr2/logs/*.log)"

# 30. Planning a huge sweep: sized before work (the first experiment's text + 1 KB
# each against half of what the process may use), progress every 2 s.
/usr/bin/python3 -c 'import json, sys
print(json.dumps({"name": "g", "base": {"kind": "network", "network": {"topology": "line3.txt", "flows": "f2.txt"}},
  "sweep": {"grid": {"network.dcqcn_fast_steps": list(range(1, int(sys.argv[1]) + 1)),
                     "network.dcqcn_g": [(i + 1) / 1000 for i in range(1000)]}}}))' 1000 > g6.json
(ulimit -v 1500000; "$mv" plan g6.json --run-dir rg6 > out.txt 2> err.txt) && fail "g6: planned"
grep -qE "^g6.json: 1000000 experiments need about [0-9.]+ GB to plan \([0-9.]+ KB each\), more than half of the [0-9.]+ GB this process may use: fewer experiments \(sweep.include, sweep.exclude, fewer values\) or a larger machine$" \
  err.txt || fail "g6: $(cat err.txt)"
[ ! -e rg6 ] || fail "g6: a run folder was made"
/usr/bin/python3 -c 'import json, sys
print(json.dumps({"name": "g5", "base": {"kind": "network", "network": {"topology": "line3.txt", "flows": "f2.txt"}},
  "sweep": {"grid": {"network.dcqcn_fast_steps": list(range(1, 101)),
                     "network.dcqcn_g": [(i + 1) / 1000 for i in range(1000)]}}}))' > g5.json
MULTIVERSE_PROGRESS=1 timeout 5 "$mv" plan g5.json --run-dir rg5 > out.txt 2> err.txt || true
grep -qE "^multiverse: g5.json: [0-9]+ of 100000 experiments (read|sized), [0-9]+ s$" err.txt ||
  fail "no progress in 5 s: $(cat err.txt)"

# 29. train stopped by SIGINT says so (it exited 130 with no message); the
# sbatch script outside Slurm is one line (it died on SLURM_NTASKS: unbound).
cat > tlong.json <<'JSON'
{"base": {"model": {"preset": "gpt3-1.3b"}, "training": {"global_batch": 64, "tp": 8},
          "cluster": {"gpu": "a100-80gb", "servers": 8}},
 "sweep": {"grid": {"training.global_batch": [64, 128, 256, 512]}}}
JSON
expect 130 "multiverse train: stopped by SIGINT: 0 of 4 experiments finished (printed above)" \
  timeout --preserve-status -s INT 2 "$mv" train tlong.json --threads 1
expect 2 "multiverse.sbatch: not inside a Slurm job (no SLURM_JOB_ID): submit it with sbatch, or run \`multiverse run j.json\` (mpirun -np N for several ranks)" \
  env -u SLURM_JOB_ID -u SLURM_NTASKS bash "$src/cluster/multiverse.sbatch" j.json

# 25. Environment variables: whole values in range, or one line naming the variable.
env_expect() { # VAR=VALUE MESSAGE
  local got=0
  env "$1" "$mv" net --topology line3.txt --flows f2.txt -o eo > out.txt 2> err.txt || got=$?
  [ "$got" = 2 ] || fail "$1: exit $got"
  [ "$(cat err.txt)" = "multiverse: $1: $2" ] || fail "$1: $(cat err.txt)"
  [ ! -e eo ] || fail "$1: the command ran"
}
presets="expected the folder of the preset files (network.json, gpus.json, models.json, ...)"
env_expect MULTIVERSE_PRESETS= "empty; $presets"
env_expect MULTIVERSE_PRESETS=/nonexistent "No such file or directory; $presets"
env_expect MULTIVERSE_PRESETS=j.json "not a folder; $presets"
env_expect MULTIVERSE_PRESETS=. "it has no network.json; $presets"
for v in -1 2 yes; do env_expect MULTIVERSE_VERBOSE=$v "expected 0 or 1"; done
env_expect MULTIVERSE_PROGRESS=on "expected 0 or 1"
for v in abc -5 0 99999999999999999999; do
  env_expect MULTIVERSE_WORLD_ROWS=$v "expected rows, an integer from 1 to 1073741823"
done
env_expect MULTIVERSE_CUDA_LAUNCH=bogus "expected experiment, persistent or systems"
env_expect MULTIVERSE_POOLS=quarter "expected auto, compact or worst"
env_expect MULTIVERSE_CUDA_SETTLE=2 "expected 0 or 1"
env_expect MULTIVERSE_CUDA_POOL_THREADS=600 "expected 512, 768 or 1024"
env_expect MULTIVERSE_CUDA_BLOCKS_PER_SM=8 "expected 1, 2, 3 or 4"
env_expect MULTIVERSE_LANES=3 "expected 1, 2, 4, 8, 16 or 32"
env_expect MULTIVERSE_CUDA_CLUSTER=3 "expected 1, 2, 4 or 8"
for v in 101 -1 50%; do
  env_expect MULTIVERSE_CUDA_CARVEOUT=$v "expected a percentage, an integer from 0 to 100"
done
env_expect SOURCE_DATE_EPOCH=1e9 \
  "expected seconds since 1970, an integer from 0 to 253402300799 (year 9999)"
# Every variable the sources read is checked (a new knob must be declared in drv_env.c).
for v in $(grep -rhoE 'MULTIVERSE_[A-Z_]+' "$src/engine" "$src/driver" "$src/analysis" "$src/jobs" | sort -u); do
  env "$v=garbage!" "$mv" report nothing.nc > out.txt 2> err.txt && fail "$v=garbage! accepted"
  grep -q "^multiverse: $v=garbage!: " err.txt || fail "$v is not checked: $(cat err.txt)"
done
# Good values still run, and MULTIVERSE_VERBOSE=0 is quiet (it used to mean on).
MULTIVERSE_VERBOSE=0 MULTIVERSE_WORLD_ROWS=50000 SOURCE_DATE_EPOCH=0 \
  "$mv" net --topology line3.txt --flows f2.txt -o ok > out.txt 2> err.txt || fail "good values"
[ ! -s err.txt ] || fail "MULTIVERSE_VERBOSE=0 printed: $(cat err.txt)"
# 12. Inputs that are not regular files: refused at once (a /dev/zero topology grew to
# GBs, a /dev/zero flow file or list spun forever, a pipe blocked).
printf '1\n0 1 3 100 1000 0\n' > f1.txt
echo '{"kind": "file", "path": "/dev/zero"}' > tz.json
mkfifo fifo
expect 2 "multiverse net: cannot open /dev/zero: a device, not a regular file" \
  timeout 20 "$mv" net --topology /dev/zero --flows f1.txt -o o
expect 2 "multiverse net: cannot open /dev/zero: a device, not a regular file" \
  timeout 20 "$mv" net --topology tz.json --flows f1.txt -o o
expect 2 "multiverse net: /dev/zero: cannot open: a device, not a regular file" \
  timeout 20 "$mv" net --topology line3.txt --flows /dev/zero -o o
expect 2 "multiverse net: cannot open /dev/zero: a device, not a regular file" \
  timeout 20 "$mv" net --topology line3.txt --flows-from /dev/zero -o o
expect 2 "multiverse net: fifo: cannot open: a pipe, not a regular file" \
  timeout 20 "$mv" net --topology line3.txt --flows fifo -o o
expect 2 "multiverse net: .: cannot open: a folder, not a regular file" \
  timeout 20 "$mv" net --topology line3.txt --flows . -o o
# JSON inputs too (base_json_load): a calibration or a presets file given as a
# pipe blocked its reader before session 16.
expect 2 "multiverse collective: fifo: a pipe, not a regular file" \
  timeout 20 "$mv" collective --op allreduce --bytes 1K --gpus 2 --calibration fifo
expect 2 "multiverse collective: /dev/zero: a device, not a regular file" \
  timeout 20 "$mv" collective --op allreduce --bytes 1K --gpus 2 --calibration /dev/zero
expect 2 "fifo: a pipe, not a regular file
multiverse plan: 1 problem" timeout 20 "$mv" plan j.json --presets fifo
# A job's JSON topology given as a pipe: the experiment is a failed row, the
# plan ends (its id read the file and blocked).
cat > jt.json <<'JSON'
{"name": "jt", "base": {"kind": "network", "network": {"topology": "fifo.json", "flows": "f1.txt"}}}
JSON
mkfifo fifo.json
got=0
timeout 20 "$mv" plan jt.json > out.txt 2> err.txt || got=$?
[ $got = 1 ] || fail "plan with a pipe as topology: exit $got; $(cat err.txt)"
grep -q "^  experiment 0 ([0-9a-f]\{16\}): failed: .*/fifo.json: a pipe, not a regular file$" out.txt ||
  fail "plan with a pipe as topology: $(cat out.txt)"
[ ! -e o ] || fail "a refused input made the output folder"
echo "bad_input: every value refused exactly"
