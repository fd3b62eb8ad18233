#!/usr/bin/env bash
# The CPU's instructions per packet-hop, counted by callgrind, for two builds of
# the program side by side: what a change to the events' code costs, measured
# where wall clocks are noisy (a shared machine) and without a GPU. Each build
# runs one WebSearch experiment (tests/data/ns3_hpcc, 1,777 flows, 320 hosts,
# preset=ns3_hpcc, buffer_mb=32) on one thread, under each congestion control
# of INSTR_CCS (default "dcqcn hpcc"), once under callgrind (about 2 minutes a
# run) and INSTR_RUNS times plainly (default 5, the two builds alternating),
# and the outputs are compared (bench_same). Prints, for each, the
# instructions, the packet-hops, their ratio, and the median wall time; then
# the new build's top functions by inclusive instructions.
#   tests/bench/instr_bench.sh OLD_BIN NEW_BIN [WORKDIR]
# A build for it: cmake -S . -B B -DCMAKE_BUILD_TYPE=Release -DMV_CUDA=OFF
# -DCMAKE_C_FLAGS=-g && cmake --build B --target multiverse.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=lib.sh
source "$here/lib.sh"
old=$(realpath "$1") new=$(realpath "$2") work=${3:-$(mktemp -d)}
data=$here/../data/ns3_hpcc
export MV_PRESETS=${MV_PRESETS:-$here/../../jobs/presets}
export OMP_WAIT_POLICY=passive # the program would start again with it set: callgrind stays on it
command -v valgrind > /dev/null || { echo "instr_bench: valgrind is not installed" >&2; exit 2; }
mkdir -p "$work"

# one experiment of cc $1 by binary $2 into folder $3; $4: a command to run it
# under. It writes to one folder first, whose name its run record keeps.
run1() {
  rm -rf "$3" "$work/run"
  $4 "$2" net --topology "$data/topology_fat.txt" --flows "$data/websearch30.txt" \
    --set preset=ns3_hpcc --set buffer_mb=32 --set cc="$1" \
    --backend cpu --threads 1 -o "$work/run" > "$3.log" 2>&1 || { tail -3 "$3.log" >&2; return 1; }
  mv "$work/run" "$3"
}

printf '%-6s %-4s %16s %12s %10s %10s\n' cc side instructions hops instr/hop wall_s
for cc in ${INSTR_CCS:-dcqcn hpcc}; do
  for side in old new; do
    bin=$old
    [ $side = new ] && bin=$new
    run1 "$cc" "$bin" "$work/$cc-$side-cg" \
      "valgrind --tool=callgrind --callgrind-out-file=$work/$cc-$side.cg"
  done
  for i in $(seq "${INSTR_RUNS:-5}"); do
    for side in old new; do
      bin=$old
      [ $side = new ] && bin=$new
      run1 "$cc" "$bin" "$work/$cc-$side-$i" ""
      bench_field wall_s < "$work/$cc-$side-$i/summary.jsonl" >> "$work/$cc-$side.wall"
    done
  done
  bench_same "$work/$cc-old-1" "$work/$cc-new-1" || { echo "instr_bench: $cc: outputs differ" >&2; exit 1; }
  for side in old new; do
    ir=$(sed -n 's/^==[0-9]*== Collected : \([0-9]*\)$/\1/p' "$work/$cc-$side-cg.log")
    hops=$(bench_field packet_hops < "$work/$cc-$side-1/summary.jsonl")
    printf '%-6s %-4s %16s %12s %10s %10s\n' "$cc" $side "$ir" "$hops" \
      "$(fmt "$(bench_calc 'i / h' i="$ir" h="$hops")" %.1f)" \
      "$(fmt "$(bench_median < "$work/$cc-$side.wall")" %.3f)"
  done
done
echo "outputs identical (old against new, each cc)"
first=$(echo "${INSTR_CCS:-dcqcn hpcc}" | cut -d' ' -f1)
echo "new build's functions by inclusive instructions ($first):"
callgrind_annotate --inclusive=yes "$work/$first-new.cg" \
  2> /dev/null | grep -E 'eng_(sim|step|phase|net|mmu|host|hash|task)\.h:|eng_cpu\.c:cpu_window' |
  head -20 | sed 's/ \[.*//; s#[^ ]*/engine/#engine/#'
