#!/usr/bin/env bash
# `make demo`: three experiments (a 16:1 incast, a permutation, 200 random flows)
# on a 32-host leaf-spine, run as one batch by `multiverse net`.
set -euo pipefail
build=${1:-build}
here=$(cd "$(dirname "$0")" && pwd)
out=$build/demo-net
"$build/driver/multiverse" net --topology "$here/net/leafspine.json" \
  --flows "$here/net/incast16.txt" --flows "$here/net/permutation.txt" --flows "$here/net/random.txt" \
  -o "$out"
echo "FCT files (ns-3 HPCC format): $out/fct-0.txt .. fct-2.txt; summaries: $out/summary.jsonl"
