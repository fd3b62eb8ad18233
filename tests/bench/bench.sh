#!/usr/bin/env bash
# Multiverse's speed benchmarks in one command: packet-hops/s of the CPU and
# CUDA backends side by side on the same batches (permutations on k=8 and k=16
# fat-trees, the WebSearch trace under DCQCN and HPCC), persistent kernel
# against per-system launches, scale, a 54,000-host fat-tree, and bytes per
# packet-hop against the device's copy bandwidth. Each figure is the median of
# BENCH_RUNS runs; each batch's CPU and CUDA outputs are compared first. Every
# section fits a share of BENCH_BUDGET_S, running fewer runs or skipping a
# batch (saying so) when the time would not suffice. Writes RESULTS_MD, and
# bench.log and results.tsv in LOG_DIR. tests/bench/README.md: figures, knobs.
# usage: bench.sh BUILD_DIR RESULTS_MD [LOG_DIR]
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
[ $# -ge 2 ] || { echo "usage: bench.sh BUILD_DIR RESULTS_MD [LOG_DIR]" >&2; exit 2; }
build=$(cd "$1" && pwd) results=$2 logs=${3:-$1/bench-logs}
. "$here/lib.sh"
. "$here/gen.sh"
. "$here/render.sh"
# The hand-written part of the results (render appends it), read before any
# render rewrites the file.
BY_HAND=$(sed -n '/^## Measured by hand/,$p' "$here/RESULTS.md")
. "$here/sections.sh"
. "$here/scale.sh"
BENCH_MV=$build/driver/multiverse BENCH_GEN=$build/tests/mv_genflows
for f in "$BENCH_MV" "$BENCH_GEN"; do
  [ -x "$f" ] || { echo "bench.sh: $f: not built" >&2; exit 2; }
done

runs=${BENCH_RUNS:-3}
budget=${BENCH_BUDGET_S:-400}
backends=${BENCH_BACKENDS:-cpu cuda}
cpu_threads=${BENCH_CPU_THREADS:-}
perm_bytes=${BENCH_PERM_BYTES:-2000000}
k8_batches=${BENCH_K8_BATCHES:-1 64 512 2048}
k16_batches=${BENCH_K16_BATCHES:-1 64 512}
ws_batches=${BENCH_WS_BATCHES:-64 512}
ws_flows=${BENCH_WS_FLOWS:-100}
launch_batches=${BENCH_LAUNCH_BATCHES:-1 2048}
scale_bytes=${BENCH_SCALE_BYTES:-200000}
scale_k8_from=${BENCH_SCALE_K8_FROM:-1024}
scale_k16_from=${BENCH_SCALE_K16_FROM:-128}
scale_max=${BENCH_SCALE_MAX:-65536}
big_k=${BENCH_BIG_K:-60}
big_bytes=${BENCH_BIG_BYTES:-2000000}
big_backends=${BENCH_BIG_BACKENDS:-cuda cpu}
ar_bytes=${BENCH_AR_BYTES:-8388608}
bph_min=${BENCH_BYTES_PER_HOP_MIN:-128}
bph_all=${BENCH_BYTES_PER_HOP_ALL:-916}
# Shares of the budget, in the order the sections run (most important first).
read -ra shares <<< "${BENCH_SHARES:-100 40 100 80 50 30}"
[ ${#shares[@]} = 6 ] || { echo "bench.sh: BENCH_SHARES: six numbers, one per section" >&2; exit 2; }

# A run the device refuses aborts; its core (tens of GB of host memory) is not wanted.
ulimit -c 0
data=$here/../data/ns3_hpcc
work=$build/bench-work
rm -rf "$work" && mkdir -p "$work" "$logs"
: > "$logs/bench.log"
printf 'section\tworkload\tbatch\tbackend\truns\tmedian_wall_s\tpacket_hops\tpacket_hops_per_s\tworld_bytes\tcuda_upload_s\tcuda_windows_s\tcuda_download_s\tmedian_elapsed_s\tnote\n' > "$logs/results.tsv"
say() { echo "$*" | tee -a "$logs/bench.log"; }

t_start=$(bench_now)
BENCH_HARD_END=$(bench_calc 's + b' s="$t_start" b="$budget")
share_total=0
for s in "${shares[@]}"; do share_total=$((share_total + s)); done
share_done=0
# Starts the next section: its end is its cumulative share of the budget.
section() {
  section_name=$1
  share_done=$((share_done + shares[section_idx]))
  section_idx=$((section_idx + 1))
  section_end=$(bench_calc 's + b * d / t' s="$t_start" b="$budget" d="$share_done" t="$share_total")
  say "== $section_name (until +$(bench_calc 'e - s' e="$section_end" s="$t_start") s)"
}
section_idx=0

info_collect
say "bench: $INFO_CPU ($INFO_CORES cores), GPU: $INFO_GPU, commit $INFO_COMMIT; budget $budget s, $runs runs"
cuda_absent=
if [[ " $backends " != *" cuda "* ]]; then
  cuda_absent="not requested (BENCH_BACKENDS)"
else
  gen_fat_tree 4 > "$work/probe.json"
  "$BENCH_GEN" permutation 16 1 16 1000 0 > "$work/probe.txt"
  if ! "$BENCH_MV" net --topology "$work/probe.json" --flows "$work/probe.txt" --backend cuda \
    -o "$work/probe" > /dev/null 2> "$work/probe.err"; then
    cuda_absent=$(tail -1 "$work/probe.err" | sed 's/^multiverse net: //; s/^--backend cuda: //')
  fi
fi
[ -z "$cuda_absent" ] || say "cuda: $cuda_absent"

bandwidth_measure
render
section "permutations, k=8"
perm_rows 8 "$k8_batches"
render
section "persistent kernel against per-system launches"
launch_rows
render
section "WebSearch"
ws_rows
render
section "permutations, k=16"
perm_rows 16 "$k16_batches"
render
section "scale"
scale_search
render
section "big fat-tree"
big_run
render
say "bench: done in $(bench_calc 'n - s' n="$(bench_now)" s="$t_start") s; $results"
