#!/usr/bin/env bash
# multiverse train on bad input: a broken job file or bad usage exits 2 with one line
# naming the file and line (or option); an experiment with unknown keys or an
# impossible plan is an `invalid` row naming every problem by its JSON path, the
# other experiments run, and the exit status is 1; an experiment that does not fit
# is an `oom` row (exit 0); a malformed imported workload names its file and line.
# usage: train_errors.sh MULTIVERSE WORKDIR DATADIR
set -uo pipefail
mv=$(realpath "$1") work=$2 data=$(realpath "$3")
rm -rf "$work" && mkdir -p "$work" && cd "$work" || exit 1
fail=0

# usage CASE-NAME EXPECTED-SUBSTRING ARGS...: exit 2, one line on stderr
usage() {
  local name=$1 want=$2; shift 2
  "$mv" train "$@" > stdout.txt 2> stderr.txt
  local rc=$? lines
  lines=$(wc -l < stderr.txt)
  if [ $rc -ne 2 ] || [ "$lines" -ne 1 ] || ! grep -qF -- "$want" stderr.txt; then
    echo "FAIL $name: rc=$rc lines=$lines stderr: $(cat stderr.txt)"; fail=1
  else
    echo "ok   $name: $(cat stderr.txt)"
  fi
}

# rows CASE-NAME RC FILE EXPECTED-LINE...: stdout holds each expected line
rows() {
  local name=$1 want_rc=$2 job=$3; shift 3
  "$mv" train "$job" > stdout.txt 2> stderr.txt
  local rc=$? ok=1
  [ $rc -eq "$want_rc" ] || ok=0
  for want in "$@"; do grep -qF -- "$want" stdout.txt || ok=0; done
  if [ $ok -eq 1 ]; then echo "ok   $name"; else
    echo "FAIL $name: rc=$rc"; cat stdout.txt stderr.txt; fail=1
  fi
}

printf '{"base": {"model": {"preset": "gpt3-1.3b"},\n "training": {"global_batch": 8,\n' > broken.json
usage "broken job file" "broken.json:3:" broken.json
usage "missing job file" "nope.json" nope.json
printf '{"base": {"training": {"global_batch": 8}}, "sweep": {"grid": {"training.tp": []}}}' > empty.json
usage "empty sweep axis" "empty.json: sweep.grid.training.tp" empty.json
cat > ok.json << 'EOF'
{"base": {"model": {"preset": "gpt3-1.3b"}, "training": {"global_batch": 8, "tp": 8},
          "cluster": {"gpu": "a100-80gb", "servers": 1}}}
EOF
usage "experiment out of range" "--experiment 3: the job has 1 experiments" ok.json --experiment 3
usage "unknown option" "unknown option --frob" ok.json --frob 1
usage "threads out of range" "--threads 0: expected an integer from 1 to 1024" ok.json --threads 0
usage "unknown backend" "multiverse train: --backend gpu: expected cpu or cuda" ok.json --backend gpu
usage "batch size not a number" "--batch-gb 1e: expected" ok.json --batch-gb 1e
printf '{"base": {"network": {"topology": {"kind": "fat_tree"}}}}' > net.json
usage "a network experiment" "experiment 0 is a network experiment" net.json

cat > bad.json << 'EOF'
{"base": {"model": {"preset": "gpt3-1.3b"},
          "training": {"global_batch": 16, "tpp": 2, "tp": 16},
          "cluster": {"gpu": "a100-80gb", "servers": 2},
          "network": {"cc": "dcqcn", "mtuu": 4000}}}
EOF
rows "every problem by its JSON path" 1 bad.json \
  "exp 0: invalid: bad.json: base.network.mtuu: unknown key" \
  "    bad.json: base.training.tpp: unknown key" \
  "    bad.json: base.training.tp: must divide cluster.gpus_per_server (8)"

cat > mixed.json << 'EOF'
{"base": {"model": {"preset": "gpt3-1.3b"}, "training": {"global_batch": 8, "tp": 8},
          "cluster": {"gpu": "a100-80gb", "servers": 1}},
 "sweep": {"grid": {"training.pp": [1, 3]}}}
EOF
rows "an impossible plan beside a good one" 1 mixed.json \
  "exp 0: ok iteration=" \
  "exp 1: invalid: mixed.json: experiments[1].training.pp: tp*pp = 24 must divide the cluster's 8 GPUs"

cat > oom.json << 'EOF'
{"base": {"model": {"preset": "korthikanti-1t"}, "training": {"global_batch": 64, "tp": 8, "pp": 8},
          "cluster": {"gpu": "a100-80gb", "servers": 8}}}
EOF
rows "does not fit" 0 oom.json "exp 0: oom mem="

cp "$data/wl_toy_bad.txt" .
cat > wl.json << 'EOF'
{"base": {"workload": {"file": "wl_toy_bad.txt"},
          "cluster": {"gpu": "a100-80gb", "servers": 1, "gpus_per_server": 4, "nics_per_server": 4}}}
EOF
rows "malformed workload" 1 wl.json "exp 0: invalid: ./wl_toy_bad.txt:4: input-gradient communication"
exit $fail
