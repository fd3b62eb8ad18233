#!/usr/bin/env bash
# --sweep: 4 flow files x 4 CCs x 2 load balancers = 32 experiments, each with
# its own parameters, in one batch; each FCT file byte-identical to the same
# experiment run alone with --set, and the summary names the swept values.
# usage: net_sweep.sh MULTIVERSE MV_GENFLOWS WORKDIR
set -euo pipefail
mv=$(realpath "$1") gen=$(realpath "$2") work=$3
rm -rf "$work" && mkdir -p "$work" && cd "$work"
echo '{"kind":"fat_tree","tiers":3,"k":4,"link_delay_ns":1000}' > fat.json
args=()
for i in 0 1 2 3; do
  "$gen" random 16 $((i + 7)) 12 200000 20000 > f$i.txt
  args+=(--flows f$i.txt)
done
"$mv" net --topology fat.json "${args[@]}" --set buffer_mb=1 \
  --sweep cc=none,dcqcn,dctcp,hpcc --sweep lb=ecmp,adaptive -o batch > /dev/null
e=0
for i in 0 1 2 3; do
  for cc in none dcqcn dctcp hpcc; do
    for lb in ecmp adaptive; do
      "$mv" net --topology fat.json --flows f$i.txt --set buffer_mb=1 --set cc=$cc --set lb=$lb -o alone --force > /dev/null
      cmp batch/fct-$e.txt alone/fct-0.txt
      sed -n "$((e + 1))p" batch/summary.jsonl | grep -q "\"sweep\":{\"cc\":\"$cc\",\"lb\":\"$lb\"}"
      e=$((e + 1))
    done
  done
done
[ "$(wc -l < batch/summary.jsonl)" -eq 32 ]
# A parameter of one cc swept beside cc: each value alone passes, the pair
# (dcqcn, dcqcn_g=0) does not. The refusal names the experiment and the key
# (it said "0 problems; nothing ran" when each key alone passed).
set +e
"$mv" net --topology fat.json --flows f0.txt --sweep cc=dcqcn,none --sweep dcqcn_g=0,0.5 -o pair > pair.out 2> pair.err
rc=$?
set -e
[ $rc = 2 ] && [ ! -e pair ]
grep -q 'experiment 0 (.*network.cc="dcqcn", network.dcqcn_g=0): network.dcqcn_g: 0 is out of range: more than 0 and at most 1' pair.err
grep -qx 'multiverse net: 1 problem; nothing ran' pair.err
# Every problem in one pass: the cc's parameter is checked under that cc beside
# a key refused alone.
printf '{"name":"j","base":{"network":{"topology":"fat.json","flows":"f0.txt","cc":"dcqcn","dcqcn_g":0,"buffer_mb":-1}}}\n' > two.json
set +e
"$mv" run two.json --run-dir two > /dev/null 2> two.err
rc=$?
set -e
[ $rc = 2 ]
grep -qx 'two.json: base.network.dcqcn_g: 0 is out of range: more than 0 and at most 1' two.err
grep -qx 'two.json: base.network.buffer_mb: -1 is out of range: more than 0 and at most 65536 MiB (64 GiB)' two.err
grep -qx 'multiverse run: 2 problems; nothing ran' two.err
echo "sweep: 32 experiments identical to their runs alone; a refused pair of swept values named"
