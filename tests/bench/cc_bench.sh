#!/usr/bin/env bash
# The HPCC paper's 320-server fat-tree (100G hosts, 400G fabric, 1 us links)
# with twenty 16:1 incasts of 1 MB flows at once, under each congestion
# control: FCT statistics, drops, pauses, and the median wall time of RUNS runs
# per backend.
# usage: cc_bench.sh MULTIVERSE WORKDIR [RUNS] [BACKENDS]
set -euo pipefail
mv=$(realpath "$1") work=$2 runs=${3:-3} backends=${4:-"cpu cuda"}
rm -rf "$work" && mkdir -p "$work" && cd "$work"
echo '{"kind":"fat_tree","tiers":3,"pods":5,"tors_per_pod":4,"aggs_per_pod":4,"cores":16,"hosts_per_tor":16,"host_gbps":100,"link_gbps":400,"link_delay_ns":1000}' > hpcc.json
{ echo 320
  for g in $(seq 0 19); do for j in $(seq 0 15); do
    echo "$(( 16 * ((g + 1 + j) % 20) + (g + j) % 16 )) $(( 16 * g )) 3 100 1000000 0"
  done; done; } > incasts.txt
for cc in none dcqcn dctcp hpcc; do
  for be in $backends; do
    if [ "$be" = cuda ] && ! "$mv" net --topology hpcc.json --flows incasts.txt --backend cuda -o probe --force >/dev/null 2>&1; then
      echo "$cc cuda: not available here"; continue
    fi
    walls=()
    for r in $(seq "$runs"); do
      "$mv" net --topology hpcc.json --flows incasts.txt --set cc=$cc --backend "$be" --json -o out-$cc-$be --force > run.json
      walls+=("$(sed 's/.*"wall_s":\([0-9.e+-]*\).*/\1/' run.json)")
    done
    m=$(printf '%s\n' "${walls[@]}" | sort -g | sed -n "$(( (runs + 1) / 2 ))p")
    f() { sed "s/.*\"$1\":\([0-9.e+-]*\).*/\1/" run.json; }
    printf '%-6s %-4s max_fct_us=%-8.1f p99_fct_us=%-8.1f mean_fct_us=%-8.1f drops=%s pauses=%s cnps=%s ecn=%s hops=%s median_wall_s=%.4f\n' \
      "$cc" "$be" "$(awk -v x="$(f max_fct_ns)" 'BEGIN {print x / 1000}')" "$(awk -v x="$(f p99_fct_ns)" 'BEGIN {print x / 1000}')" \
      "$(awk -v x="$(f mean_fct_ns)" 'BEGIN {print x / 1000}')" "$(f drops)" "$(f pfc_pauses)" "$(f cnps)" "$(f ecn_marks)" "$(f packet_hops)" "$m"
  done
  if [ -e out-$cc-cuda/fct-0.txt ]; then
    cmp -s out-$cc-cpu/fct-0.txt out-$cc-cuda/fct-0.txt && echo "$cc: cpu and cuda fct files identical" || echo "$cc: cpu and cuda fct files DIFFER"
  fi
done
