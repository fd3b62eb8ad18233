#!/usr/bin/env bash
# `make demo` (examples/demo.sh) as a user runs it, against this build's
# program: a command line of the demo that the program no longer takes fails
# here, not first on a user's machine (session 32 found `collective
# --topology ... --nic-gbps`, an error since c2c2ddf, stopping `make demo`).
# Each part gives what its inputs make: the three flow files' flows and
# bytes; the incast's 16 flows under each of 4 congestion controls; the
# all-reduce of 64 MiB under 2; the sweep's 36 points all ok on 2 ranks, with
# its heat map a PNG; the 6 training plans ok on 32 GPUs, with a trace that
# is JSON.
# usage: demo.sh MULTIVERSE WORKDIR
set -uo pipefail
mv=$(realpath "$1") work=$2
src=$(cd "$(dirname "$0")/../.." && pwd)
rm -rf "$work" && mkdir -p "$work/driver" && ln -s "$mv" "$work/driver/multiverse" || exit 1
out=$work/demo.txt
"$src/examples/demo.sh" "$work" > "$out" 2>&1 || { cat "$out"; echo "demo.sh failed"; exit 1; }
fail=0
want() { # COUNT ERE WHAT: COUNT lines of the demo's output match ERE
  local n
  n=$(grep -cE "$2" "$out")
  [ "$n" = "$1" ] || { echo "demo: $3: $n lines match, want $1"; fail=1; }
}
want 1 '^exp 0 .*/incast16\.txt: ok flows=16 bytes=32000000 ' "the incast"
want 1 '^exp 1 .*/permutation\.txt: ok flows=32 bytes=32000000 ' "the permutation"
want 1 '^exp 2 .*/random\.txt: ok flows=200 bytes=48053409 ' "the random flows"
want 4 '^  (none|dcqcn|dctcp|hpcc) +ok flows=16 bytes=32000000 ' "the incast under 4 CCs"
want 2 '^ +67108864 +[0-9.]+ +[0-9.]+ +[0-9.]+ +ok ' "the all-reduce under 2 CCs"
want 1 'results\.nc: 36 experiments \(36 ok\) from 2 shard files' "the sweep's results"
want 6 '^exp [0-5]: ok iteration=[0-9.]+s .* gpus=32 ' "the training plans"
[ "$(head -c 8 "$work/demo-run/p99_slowdown.png" | od -An -tx1 | tr -d ' \n')" = 89504e470d0a1a0a ] ||
  { echo "demo: the heat map is not a PNG"; fail=1; }
/usr/bin/python3 -c 'import json, sys; json.load(open(sys.argv[1]))' "$work/demo-train/trace.json" ||
  { echo "demo: the trace is not JSON"; fail=1; }
[ $fail = 0 ] || { cat "$out"; exit 1; }
echo "demo: every part as its inputs make it"
