#!/usr/bin/env bash
# net, train and collective through the pipeline of `multiverse run`
# (docs/cli.md, One pipeline):
# - --results FILE.nc holds one row per experiment whose values are the ones the
#   command prints (net: every experiment id and status, max FCT to the ns, the
#   counters; train: the iteration time and packet-hops; collective: the time
#   to the ps);
# - a net run stopped by SIGTERM after its first batch exits 143, and rerun the
#   same way continues: it runs only what was left (progress.json's skipped > 0)
#   and its FCT files and summaries equal an uninterrupted run's;
# - rerunning a complete train or collective command runs nothing and prints
#   the same lines;
# - net on 2 MPI ranks (mpirun) writes the FCT files of 1 rank, byte for byte;
# - the output rule (driver/drv_out.h) holds for the pipeline's files: --results
#   naming a folder, or train --trace naming its own job file, exit 2 before
#   anything runs, and the job file is unchanged.
# usage: pipeline.sh MULTIVERSE SRC_DIR WORK
set -uo pipefail
mv=$1 src=$2 work=$3
PY=/usr/bin/python3
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
rm -rf "$work" && mkdir -p "$work" && cd "$work" || exit 1
fail=0
ok() { echo "ok   $*"; }
bad() { echo "FAIL $*"; fail=1; }
strip() { sed 's/"wall_s":[^,]*,"packet_hops_per_s":[^,]*,//; s/wall=[^ ]*s ([^)]*)//'; }

cp "$src/examples/net/leafspine.json" topo.json
for f in incast16 permutation random; do cp "$src/examples/net/$f.txt" $f.txt; done
net=(net --topology topo.json --flows incast16.txt --flows permutation.txt --flows random.txt
     --sweep cc=none,dcqcn --max-batch 1)

# net --results: the rows are what the summaries say.
"$mv" "${net[@]}" -o ref --results ref.nc > ref.txt 2> err.txt || bad "net --results: $(cat err.txt)"
if $PY - ref.nc ref/summary.jsonl <<'EOF'; then ok "net --results: 6 rows equal to the summaries"; else bad "net --results rows"; fi
import json, sys
import netCDF4
ds = netCDF4.Dataset(sys.argv[1])
rows = {ds["experiment_id"][i]: i for i in range(len(ds.dimensions["experiment"]))}
status = ["ok", "oom", "invalid", "failed", "timed_out"]
n = 0
for line in open(sys.argv[2]):
    s = json.loads(line)
    i = rows[s["experiment_id"]]
    assert status[int(ds["status"][i])] == s["status"], s["experiment_id"]
    assert int(round(float(ds["max_fct"][i]) * 1e12)) // 1000 == s["max_fct_ns"], s["experiment_id"]
    for k in ("drops", "pfc_pauses", "ecn_marks", "packet_hops", "flows", "bytes"):
        assert int(ds[k][i]) == s[k], (k, s["experiment_id"])
    n += 1
assert n == 6 == len(rows), (n, len(rows))
EOF

# Stopped after its first batch (SIGTERM), then rerun: what was done is kept.
"$mv" "${net[@]}" -o cut --run-dir cut.run > /dev/null 2> cut.err &
pid=$!
for _ in $(seq 300); do ls cut.run/shards/*.nc > /dev/null 2>&1 && break; sleep 0.05; done
kill -TERM $pid
wait $pid
rc=$?
if [ $rc = 143 ] || [ $rc = 0 ]; then ok "SIGTERM after a batch: exit $rc"; else bad "SIGTERM: exit $rc $(cat cut.err)"; fi
if [ $rc = 143 ]; then
  "$mv" "${net[@]}" -o cut --force --run-dir cut.run > cut.txt 2> cut.err || bad "rerun: $(cat cut.err)"
  skipped=$(sed -n 's/.*"skipped": \([0-9]*\).*/\1/p' cut.run/progress.json)
  same=1
  for f in ref/fct-*.txt; do cmp -s "$f" "cut/${f#ref/}" || same=0; done
  diff -q <(strip < ref/summary.jsonl) <(strip < cut/summary.jsonl) > /dev/null || same=0
  diff -q <(strip < ref.txt) <(strip < cut.txt) > /dev/null || same=0
  if [ "${skipped:-0}" -ge 1 ] && [ $same = 1 ]; then
    ok "rerun: $skipped of 6 kept, outputs equal to the uninterrupted run's"
  else
    bad "rerun: skipped=$skipped same=$same"
  fi
fi

# Two MPI ranks: the FCT files of one.
if mpirun --oversubscribe -np 2 "$mv" "${net[@]}" -o two --run-dir two.run > two.txt 2> two.err; then
  same=1
  for f in ref/fct-*.txt; do cmp -s "$f" "two/${f#ref/}" || same=0; done
  [ "$(strip < two.txt)" = "$(strip < ref.txt)" ] || same=0
  if [ $same = 1 ]; then ok "net on 2 ranks: FCT files and lines of 1 rank"; else bad "net on 2 ranks differs"; fi
  # A kept run folder (--run-dir) gets copies, not links to its files: an
  # output edited in place must not change what a rerun renders.
  links=$(stat -c %h two/fct-*.txt | sort -u | tr '\n' ' ')
  if [ "$links" = "1 " ]; then ok "net --run-dir: outputs are copies"; else bad "net --run-dir: link counts $links"; fi
else
  bad "net on 2 ranks: $(cat two.err)"
fi

# train: rows, and a rerun that runs nothing.
cat > train.json <<'EOF'
{"base": {"model": {"preset": "gpt3-1.3b"}, "training": {"global_batch": 8, "tp": 8},
          "cluster": {"gpu": "a100-80gb", "servers": 1}},
 "sweep": {"grid": {"training.micro_batch": [1, 2]}}}
EOF
"$mv" train train.json --json --results train.nc > t1.txt 2> t.err || bad "train: $(cat t.err)"
"$mv" train train.json --json --results train.nc > t2.txt 2> t.err || bad "train again: $(cat t.err)"
skipped=$(sed -n 's/.*"skipped": \([0-9]*\).*/\1/p' train.run/progress.json)
if [ "$(sed 's/"wall_s":[^,}]*//' t1.txt)" = "$(sed 's/"wall_s":[^,}]*//' t2.txt)" ] && [ "$skipped" = 2 ] &&
   $PY - train.nc t1.txt <<'EOF'; then ok "train --results: rows equal to the lines; the rerun ran nothing"; else bad "train --results"; fi
import json, sys
import netCDF4
ds = netCDF4.Dataset(sys.argv[1])
rows = {ds["experiment_id"][i]: i for i in range(len(ds.dimensions["experiment"]))}
for line in open(sys.argv[2]):
    s = json.loads(line)
    i = rows[s["experiment_id"]]
    assert float(ds["iteration_time_s"][i]) == s["iteration_time_s"]
    assert float(ds["packet_hops"][i]) == s["packet_hops"]
EOF

# collective: rows, and a rerun that runs nothing.
coll=(collective --op allreduce --bytes 1M,16M --gpus 16 --sweep cc=none,dcqcn --json)
"$mv" "${coll[@]}" --results coll.nc > c1.txt 2> c.err || bad "collective: $(cat c.err)"
"$mv" "${coll[@]}" --results coll.nc > c2.txt 2> c.err || bad "collective again: $(cat c.err)"
skipped=$(sed -n 's/.*"skipped": \([0-9]*\).*/\1/p' coll.run/progress.json)
if [ "$(sed 's/"wall_s":[^,}]*//' c1.txt)" = "$(sed 's/"wall_s":[^,}]*//' c2.txt)" ] && [ "$skipped" = 4 ] &&
   $PY - coll.nc c1.txt <<'EOF'; then ok "collective --results: rows equal to the lines; the rerun ran nothing"; else bad "collective --results"; fi
import json, sys
import netCDF4
ds = netCDF4.Dataset(sys.argv[1])
rows = {ds["experiment_id"][i]: i for i in range(len(ds.dimensions["experiment"]))}
assert len(rows) == 4
for line in open(sys.argv[2]):
    s = json.loads(line)
    i = rows[s["experiment_id"]]
    assert round(float(ds["time"][i]) * 1e12) == round(s["time_us"] * 1e6), s["experiment_id"]
EOF

# The output rule, before anything runs.
mkdir -p folder.nc
"$mv" net --topology topo.json --flows incast16.txt -o rule --results folder.nc > rule.out 2>&1
rc=$?
if [ $rc = 2 ] && grep -q "^multiverse net: --results folder.nc: a folder" rule.out && [ ! -e rule ] &&
   [ ! -e folder.run ]; then ok "net --results FOLDER: exit 2, nothing made"; else bad "net --results FOLDER: rc $rc: $(cat rule.out)"; fi
cp train.json train.keep
"$mv" train train.json --trace train.json > rule.out 2>&1
rc=$?
if [ $rc = 2 ] && grep -q "is an input of this command" rule.out && cmp -s train.json train.keep; then
  ok "train --trace JOB: exit 2, the job file unchanged"; else bad "train --trace JOB: rc $rc: $(cat rule.out)"; fi
exit $fail
