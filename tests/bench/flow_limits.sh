#!/usr/bin/env bash
# The flow level's limits, measured: the same flow files at the packet level
# (with each congestion control, PFC on and off) and at the flow level, on the
# 32-host leaf-spine of examples/net: an incast, a permutation, random
# traffic. Prints a Markdown table of max, p50 of FCT (from fct-0.txt) and the
# packet counters (docs/fidelity.md quotes it).
# usage: flow_limits.sh MULTIVERSE MV_GENFLOWS WORKDIR
set -euo pipefail
mv=$(realpath "$1") gen=$(realpath "$2") work=$3
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
topo=$here/../../examples/net/leafspine.json
mkdir -p "$work" && cd "$work"
"$gen" incast 32 1 31 2000000 0 > incast31.txt
cp "$here/../../examples/net/permutation.txt" permutation.txt
cp "$here/../../examples/net/random.txt" random.txt
# p50 and max FCT (ns) of an FCT file: column 7.
fcts() { awk '{print $7}' "$1" | sort -n | awk '{v[NR] = $1} END {printf "%d %d", v[int((NR + 1) / 2)], v[NR]}'; }
echo "| flows | level | settings | p50 FCT (us) | max FCT (us) | max / flow level | drops | PFC pauses | retransmits |"
echo "|---|---|---|---|---|---|---|---|---|"
for f in incast31 permutation random; do
  "$mv" net --topology "$topo" --flows $f.txt --set model=flow -o flow-$f --force > /dev/null
  read -r p50f maxf <<< "$(fcts flow-$f/fct-0.txt)"
  printf '| %s | flow | - | %.1f | %.1f | 1 | 0 | 0 | 0 |\n' $f "$(echo "$p50f / 1000" | bc -l)" "$(echo "$maxf / 1000" | bc -l)"
  for s in "cc=dcqcn" "cc=hpcc" "cc=dctcp" "cc=none" "cc=none pfc=false" "cc=dcqcn pfc=false"; do
    args=()
    for kv in $s; do args+=(--set "$kv"); done
    tag=$(echo "$s" | tr ' =' '__')
    "$mv" net --topology "$topo" --flows $f.txt "${args[@]}" --json -o pk-$f-$tag --force > pk-$f-$tag.json
    read -r p50 max <<< "$(fcts pk-$f-$tag/fct-0.txt)"
    /usr/bin/python3 - "$f" "$s" "$p50" "$max" "$maxf" pk-$f-$tag.json << 'PY'
import json, sys
f, s, p50, mx, mxf, path = sys.argv[1:]
r = json.loads(open(path).read().splitlines()[0])
print(f"| {f} | packet | {s} | {int(p50) / 1000:.1f} | {int(mx) / 1000:.1f} | {int(mx) / int(mxf):.3f} | "
      f"{r['drops']} | {r['pfc_pauses']} | {r['retransmits']} |")
PY
  done
done
