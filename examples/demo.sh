#!/usr/bin/env bash
# `make demo`: three experiments (a 16:1 incast, a permutation, 200 random flows)
# on a 32-host leaf-spine, run as one batch by `multiverse net`; then the incast
# again under each congestion control; then a ring all-reduce across 4 servers
# of 8 GPUs on that leaf-spine under two congestion controls.
set -euo pipefail
build=${1:-build}
here=$(cd "$(dirname "$0")" && pwd)
out=$build/demo-net
mv=$build/driver/multiverse
"$mv" net --topology "$here/net/leafspine.json" \
  --flows "$here/net/incast16.txt" --flows "$here/net/permutation.txt" --flows "$here/net/random.txt" \
  -o "$out"
echo "FCT files (ns-3 HPCC format): $out/fct-0.txt .. fct-2.txt; summaries: $out/summary.jsonl"
echo
echo "The incast under each congestion control:"
for cc in none dcqcn dctcp hpcc; do
  printf '  %-6s ' "$cc"
  "$mv" net --topology "$here/net/leafspine.json" --flows "$here/net/incast16.txt" --set cc=$cc \
    -o "$out/cc-$cc" | sed 's/^exp 0 [^:]*: //'
done
echo
echo "A ring all-reduce of 64 MiB among 32 H200 (4 servers of 8 GPUs, a 100 Gb/s NIC per GPU on the leaf-spine):"
"$mv" collective --op allreduce --bytes 64M --gpus 32 --topology "$here/net/leafspine.json" \
  --nic-gbps 100 --sweep cc=dcqcn,hpcc
