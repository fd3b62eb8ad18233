#!/usr/bin/env bash
# The output rule (docs/outputs.md): no command replaces a device, a folder, a
# file it reads (whatever its name: device and inode), or a file of a run
# folder that is not its results file; a job's `output` stays in its run
# folder; `run` refuses a folder holding another job's run or files a run does
# not write (unless --force). Each refusal: exit 2, one line, before any work,
# and the file untouched.
# usage: out_rule.sh MULTIVERSE SRC_DIR WORK
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
# same FILE SUM: FILE still has checksum SUM.
same() { [ "$(cksum < "$1")" = "$2" ] || fail "$1 was changed"; }

cp "$src/tests/data/line3.txt" line3.txt
printf '2\n0 1 3 100 10000 0\n1 0 3 100 20000 0.000001\n' > f2.txt
cat > j6.json <<'JSON'
{"name": "j6", "base": {"kind": "network", "network": {"topology": "line3.txt", "flows": "f2.txt"}},
 "sweep": {"grid": {"network.mtu": [1000, 2000, 4096], "network.cc": ["none", "dcqcn"]}}}
JSON
"$mv" run j6.json --run-dir rd6 > /dev/null 2> /dev/null || fail "run j6"

# 1. merge -o: not a device, not the manifest, the job file, a shard or the lock.
mknod null_merge c 1 3
expect 2 "multiverse merge: -o null_merge: a device, not a regular file: give a file's path" \
  "$mv" merge rd6 -o null_merge
[ -c null_merge ] || fail "the device node was replaced"
expect 2 "multiverse merge: -o rd6: a folder, not a regular file: give a file's path" \
  "$mv" merge rd6 -o rd6
for f in rd6/manifest.jsonl rd6/shards/a0001-r000000-p0000.nc rd6/lock j6.json; do
  sum=$(cksum < $f)
  expect 2 "multiverse merge: -o $f: is an input of this command: give another file" \
    "$mv" merge rd6 -o $f
  same $f "$sum"
done
ln j6.json hard.json # another name, the same file
expect 2 "multiverse merge: -o hard.json: is j6.json, an input of this command: give another file" \
  "$mv" merge rd6 -o hard.json
"$mv" merge rd6 -o rd6/results.nc > /dev/null || fail "merge into the run's own results file"
"$mv" merge rd6 -o copy.nc > /dev/null || fail "merge -o copy.nc"
ls -a rd6 | grep -q mvtmp && fail "a temporary copy was left: $(ls -a rd6)"

# 2. The job's output stays in the run folder: refused when the job is read.
for o in ../rdref/results.nc /abs/path.nc x/y/z.nc .hidden.nc; do
  sed "s#\"name\": \"j6\"#\"name\": \"jout\", \"output\": \"$o\"#" j6.json > jout.json
  expect 2 "jout.json: output: must be a file name ending in .nc, in the run folder (no '/', not starting with '.', at most 200 bytes, no control characters)
multiverse run: 1 problem; nothing ran" "$mv" run jout.json --run-dir rdout
  [ ! -e rdout ] || fail "output $o: a run folder was made"
done
# ... and a results file that is a folder is refused before anything runs.
mkdir -p rd6b/results.nc
sed 's#"name": "j6"#"name": "j6b"#' j6.json > j6b.json
"$mv" run j6b.json --run-dir rd6b > /dev/null 2>&1 && fail "a results.nc folder was accepted"
cp -r rd6 rd7 && rm rd7/results.nc && mkdir rd7/results.nc
expect 2 "multiverse run: results file rd7/results.nc: a folder, not a regular file: give a file's path" \
  "$mv" run j6.json --run-dir rd7
[ -z "$(ls rd7/logs | grep a0002)" ] || fail "rd7: the refused run started"

# 5. calibrate -o: not one of its logs.
cp "$src/jobs/presets/measured/h200/all_reduce_2.log" inout.log
sum=$(cksum < inout.log)
expect 2 "multiverse calibrate: -o inout.log: is an input of this command: give another file" \
  "$mv" calibrate inout.log -o inout.log
same inout.log "$sum"

# 4. train --trace: checked before anything runs, never the job file or a file the
# traced experiment reads (the job file was replaced by the trace; a folder was
# found after the whole simulation, its message twice without --trace).
cp "$src/tests/data/wl_toy.txt" wl.txt
cat > t1.json <<'JSON'
{"name": "tiny", "base": {"model": {"layers": 2, "hidden": 256, "heads": 4, "vocab": 1024, "seq_len": 128},
 "training": {"global_batch": 4, "micro_batch": 1, "tp": 1, "pp": 1},
 "cluster": {"gpu": "h200", "servers": 1, "gpus_per_server": 2}, "network": {"topology": {"kind": "rail_optimized"}}}}
JSON
cat > wl.json <<'JSON'
{"base": {"workload": {"file": "wl.txt"}, "cluster": {"gpu": "a100-80gb", "servers": 1, "gpus_per_server": 4, "nics_per_server": 4}}}
JSON
for f in t1.json wl.txt; do
  sum=$(cksum < $f) job=t1.json
  [ $f = wl.txt ] && job=wl.json
  expect 2 "multiverse train: --trace $f: is an input of this command: give another file" \
    "$mv" train $job --trace $f
  same $f "$sum"
  [ ! -s out.txt ] || fail "--trace $f: experiments ran"
done
expect 2 "multiverse train: --trace rd6: a folder, not a regular file: give a file's path" \
  "$mv" train t1.json --trace rd6
expect 2 "multiverse train: --trace nodir/x.json: cannot write in nodir: No such file or directory" \
  "$mv" train t1.json --trace nodir/x.json
[ ! -s out.txt ] || fail "--trace nodir: experiments ran"
# The trace of an experiment that did not run: said, exit 1, no file.
sed 's#"tp": 1#"tp": 4#' t1.json > tbad.json
expect 1 "multiverse train: --trace tbad.trace.json: experiment 0 is invalid: no schedule to trace, nothing written" \
  "$mv" train tbad.json --trace tbad.trace.json
[ ! -e tbad.trace.json ] || fail "a trace of an invalid experiment"
"$mv" train t1.json --trace t1.trace.json > /dev/null || fail "--trace t1.trace.json"
/usr/bin/python3 -c 'import json, sys; e = json.load(open(sys.argv[1]))["traceEvents"]; sys.exit(0 if sum(x["ph"] == "X" for x in e) > 0 else 1)' \
  t1.trace.json || fail "the trace has no events"
ls -a | grep -q mvtmp && fail "a temporary copy was left: $(ls -a)"

# 6. run --run-dir: not a folder of someone else's files, not another job's run.
mkdir userdir && echo "my thesis data" > userdir/results.nc && echo keep > userdir/manifest.jsonl
sum=$(cksum < userdir/results.nc)
expect 2 "multiverse run: run folder userdir: its manifest.jsonl is not a run's manifest; give another --run-dir, or --force to run there anyway" \
  "$mv" run j6.json --run-dir userdir
same userdir/results.nc "$sum"
mkdir notes && echo hi > notes/notes.txt
expect 2 "multiverse run: run folder notes: holds notes.txt, which a run does not write; give another --run-dir, or --force to run there anyway" \
  "$mv" run j6.json --run-dir notes
mkdir bare && echo "my data" > bare/results.nc
expect 2 "multiverse run: run folder bare: holds results.nc but no manifest.jsonl: not a run folder; give another --run-dir, or --force to run there anyway" \
  "$mv" run j6.json --run-dir bare
sum=$(cksum < rd6/results.nc)
want="run folder rd6: holds the run of another job (\"j6\"; this one is \"j6b\"); give another --run-dir, or --force to run there anyway"
expect 2 "multiverse run: $want" "$mv" run j6b.json --run-dir rd6
expect 2 "multiverse plan: $want" "$mv" plan j6b.json --run-dir rd6
same rd6/results.nc "$sum"
# The same job continues there; its job file may live in the folder.
"$mv" run j6.json --run-dir rd6 > out.txt 2> err.txt || fail "rerun: $(cat err.txt)"
grep -q "6 with results already" out.txt || fail "rerun: $(cat out.txt)"
mkdir own && sed 's#"line3.txt"#"../line3.txt"#; s#"f2.txt"#"../f2.txt"#' j6.json > own/j6.json
"$mv" run own/j6.json --run-dir own > out.txt 2> err.txt || fail "a run folder holding its job file"
grep -q "(6 ok)" out.txt || fail "own: $(cat out.txt)"
# --force runs there anyway (the user's choice).
"$mv" run j6.json --run-dir notes --force > /dev/null 2>&1 || fail "--force"
[ -f notes/notes.txt ] || fail "--force removed a file a run does not write"
echo "out_rule: every refusal exact, every file untouched"
