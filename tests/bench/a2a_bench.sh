#!/usr/bin/env bash
# Cost per packet-hop of an all-to-all against a permutation (issue 6: a host's
# cost per event must not grow with the flows it holds). On a k=8 3-tier
# fat-tree (128 hosts, 100 Gb/s, 1 us) under DCQCN, one experiment each: a
# 128x127 all-to-all of BYTES per pair (16,256 flows, 127 per host) and a
# permutation of 127 x BYTES per host (128 flows, one per host), so both move
# the same bytes. RUNS runs of each, alternating, one thread; the figures are
# the simulation's own time (`wall_s`: the run, without reading the files and
# building the world) and the process's user CPU time (with them), each per
# packet-hop, median of the runs, and the ratios of the medians.
# usage: a2a_bench.sh MULTIVERSE MV_GENFLOWS WORKDIR [BYTES] [RUNS] [CC]
set -euo pipefail
mv=$(realpath "$1") gen=$(realpath "$2") work=$3 bytes=${4:-100000} runs=${5:-5} cc=${6:-dcqcn}
rm -rf "$work" && mkdir -p "$work" && cd "$work"
echo '{"kind":"fat_tree","tiers":3,"k":8,"host_gbps":100,"link_gbps":100,"link_delay_ns":1000}' > fat.json
"$gen" alltoall 128 1 1 "$bytes" 0 > a2a.txt
"$gen" permutation 128 1 1 $((bytes * 127)) 0 > perm.txt
declare -A cpu run hops
for r in $(seq "$runs"); do
  for w in a2a perm; do
    /usr/bin/env time -f %U -o t.txt "$mv" net --topology fat.json --flows $w.txt --set cc="$cc" \
      --threads 1 --json --force -o out-$w > $w.jsonl
    cpu[$w]="${cpu[$w]:-} $(cat t.txt)"
    run[$w]="${run[$w]:-} $(sed -n 's/.*"wall_s":\([0-9.e+-]*\).*/\1/p' $w.jsonl | head -1)"
    hops[$w]=$(sed -n 's/.*"packet_hops":\([0-9]*\).*/\1/p' $w.jsonl | head -1)
  done
done
median() { printf '%s\n' $1 | sort -g | awk '{v[NR] = $1} END {print v[int((NR + 1) / 2)]}'; }
per_hop() { awk -v m="$1" -v h="$2" 'BEGIN {print m * 1e9 / h}'; }
for w in a2a perm; do
  printf '%-4s flows=%-5s packet_hops=%-9s run s: median %s (runs:%s), %.1f ns per hop; user CPU s: median %s (runs:%s), %.1f ns per hop\n' \
    $w "$(head -1 $w.txt)" "${hops[$w]}" "$(median "${run[$w]}")" "${run[$w]}" \
    "$(per_hop "$(median "${run[$w]}")" "${hops[$w]}")" "$(median "${cpu[$w]}")" "${cpu[$w]}" \
    "$(per_hop "$(median "${cpu[$w]}")" "${hops[$w]}")"
done
for k in run cpu; do
  declare -n t=$k
  awk -v k=$k -v a="$(median "${t[a2a]}")" -v ha="${hops[a2a]}" -v p="$(median "${t[perm]}")" -v hp="${hops[perm]}" \
    'BEGIN {printf "all-to-all / permutation per packet-hop (%s): %.2fx (target <= 1.5x)\n", k == "run" ? "the run" : "user CPU, with set-up", (a / ha) / (p / hp)}'
done
