#!/usr/bin/env bash
# `make demo`: three experiments (a 16:1 incast, a permutation, 200 random flows)
# on a 32-host leaf-spine, run as one batch by `multiverse net`; then the incast
# again under each congestion control.
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
