#!/usr/bin/env bash
# Benchmark of `multiverse net`: a batch of EXPS experiments (random traffic and
# incasts on a k=8 3-tier fat-tree, 128 hosts), median wall time of RUNS runs per
# backend, packet-hops per second, and the CUDA/CPU ratio measured side by side.
# usage: net_bench.sh MULTIVERSE MV_GENFLOWS WORKDIR [EXPS] [RUNS] [BACKENDS]
set -euo pipefail
mv=$(realpath "$1") gen=$(realpath "$2") work=$3 exps=${4:-64} runs=${5:-3} backends=${6:-"cpu cuda"}
rm -rf "$work" && mkdir -p "$work" && cd "$work"
echo '{"kind":"fat_tree","tiers":3,"k":8,"host_gbps":100,"link_gbps":100,"link_delay_ns":1000}' > fat.json
args=()
for i in $(seq 0 $((exps - 1))); do
  if [ $((i % 2)) = 0 ]; then "$gen" random 128 $((i + 1)) 256 200000 50000 > f$i.txt
  else "$gen" incast 128 $((i + 1)) 16 500000 0 $((i % 128)) > f$i.txt; fi
  args+=(--flows f$i.txt)
done
declare -A med
for be in $backends; do
  if [ "$be" = cuda ] && ! "$mv" net --topology fat.json --flows f0.txt --backend cuda -o probe --force >/dev/null 2>&1; then
    echo "cuda: not available here"; continue
  fi
  walls=()
  for r in $(seq "$runs"); do
    "$mv" net --topology fat.json "${args[@]}" --backend "$be" --json -o out-$be --force > run.jsonl
    walls+=("$(head -1 run.jsonl | sed 's/.*"wall_s":\([0-9.e+-]*\).*/\1/')")
  done
  hops=$(sed 's/.*"packet_hops":\([0-9]*\).*/\1/' run.jsonl | awk '{s += $1} END {print s}')
  m=$(printf '%s\n' "${walls[@]}" | sort -g | sed -n "$(( (runs + 1) / 2 ))p")
  med[$be]=$m
  printf '%-5s experiments=%d packet_hops=%d median_wall_s=%.4f (runs: %s) packet_hops_per_s=%.3g\n' \
    "$be" "$exps" "$hops" "$m" "${walls[*]}" "$(awk -v h="$hops" -v m="$m" 'BEGIN {print h / m}')"
done
if [ -n "${med[cpu]:-}" ] && [ -n "${med[cuda]:-}" ]; then
  cmp -s out-cpu/fct-0.txt out-cuda/fct-0.txt && same=identical || same=DIFFERENT
  printf 'cuda/cpu speed-up: %.2fx (fct files %s)\n' "$(awk -v a="${med[cpu]}" -v b="${med[cuda]}" 'BEGIN {print a / b}')" "$same"
fi
