#!/usr/bin/env bash
# A ring all-reduce among 128 hosts (one GPU per server) on a k=8 fat-tree at
# 400 Gb/s, MTU 9000, no congestion control: 1 MiB and 8 MiB per step (128 MiB
# and 1 GiB in all, 32512 flows), run alone per size on one CPU core and on
# the GPU: the collective's time and busbw, packet-hops, and the wall time.
# usage: coll_bench.sh MULTIVERSE TOPOLOGY [BACKENDS]
set -euo pipefail
mv=$(realpath "$1") topo=$(realpath "$2") backends=${3:-"cpu cuda"}
for bytes in 128M 1G; do
  for be in $backends; do
    opt=(--backend "$be")
    [ "$be" = cpu ] && opt+=(--threads 1)
    if ! out=$("$mv" collective --op allreduce --bytes $bytes --gpus 128 --gpus-per-server 1 \
        --nics-per-server 1 --nic-gbps 400 --topology "$topo" --set mtu=9000 --set cc=none \
        "${opt[@]}" --json 2>&1); then
      echo "$bytes $be: $out"; continue
    fi
    f() { sed "s/.*\"$1\":\([0-9.e+-]*\).*/\1/" <<< "$out"; }
    printf '%-5s %-4s time_us=%s busbw_GBps=%.2f packet_hops=%s wall_s=%.3f\n' "$bytes" "$be" \
      "$(f time_us)" "$(f busbw_GBps)" "$(f packet_hops)" "$(f wall_s)"
  done
done
