#!/usr/bin/env bash
# On the GPU machine, in one call: build with CUDA for sm_90 in build-gpu, run
# the gpu-labelled tests, then the benchmarks (tests/bench/bench.sh) in the
# time that is left of GPU_RUN_BUDGET_S (default 530 s, under 9 minutes in
# all). Writes OUTDIR/RESULTS.md and OUTDIR/logs/; prints a summary last.
# With GPU_RUN_SPME_PARTS set (parts of tests/bench/spme_bench.sh, e.g. "conc
# train"), those run in place of bench.sh, each stopped after BENCH_RUN_S
# (default: what is left of the budget).
# usage: tools/gpu_run.sh OUTDIR   (BENCH_* knobs: tests/bench/README.md)
set -euo pipefail
[ $# = 1 ] || { echo "usage: tools/gpu_run.sh OUTDIR" >&2; exit 2; }
mkdir -p "$1/logs"
out=$(cd "$1" && pwd)
cd "$(dirname "$0")/.."
t0=$(date +%s)
total=${GPU_RUN_BUDGET_S:-530}
since() { echo $(($(date +%s) - t0)); }

nvidia-smi > "$out/logs/nvidia-smi.txt" 2>&1 || true
if ! { cmake -S . -B build-gpu -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=90 &&
  cmake --build build-gpu -j "$(nproc)"; } > "$out/logs/build.log" 2>&1; then
  tail -40 "$out/logs/build.log"
  echo "gpu_run: build failed after $(since) s (log: logs/build.log)"
  exit 1
fi
t_build=$(since)
tests="passed"
ctest --test-dir build-gpu -L gpu --timeout 120 --output-on-failure > "$out/logs/ctest-gpu.log" 2>&1 ||
  tests="FAILED (logs/ctest-gpu.log)"
tests="$tests: $(grep -E 'tests passed|tests failed' "$out/logs/ctest-gpu.log" | tail -1)" || true
skipped=$(grep -c '(Skipped)' "$out/logs/ctest-gpu.log") || true
[ "$skipped" = 0 ] || tests="$tests; $skipped skipped (no GPU?)"
t_tests=$(since)

budget=$((total - t_tests - 15))
[ "$budget" -gt 60 ] || budget=60
bench=ok
if [ -n "${GPU_RUN_SPME_PARTS:-}" ]; then
  # The GPU engine's parts (tests/bench/spme_bench.sh) in place of bench.sh;
  # their run folders go to a scratch folder, not OUTDIR.
  BENCH_PARTS=$GPU_RUN_SPME_PARTS BENCH_RUN_S=${BENCH_RUN_S:-$budget} tests/bench/spme_bench.sh \
    build-gpu/driver/multiverse build-gpu/tests/mv_genflows "${TMPDIR:-/tmp}/gpu_run_spme" \
    > "$out/logs/bench.out" 2>&1 || bench="FAILED (exit $?, logs/bench.out)"
  grep -v '^|' "$out/logs/bench.out" | tail -20
  grep '^|' "$out/logs/bench.out" || true
else
  BENCH_BUDGET_S=${BENCH_BUDGET_S:-$budget} tests/bench/bench.sh build-gpu "$out/RESULTS.md" "$out/logs" \
    > "$out/logs/bench.out" 2>&1 || bench="FAILED (exit $?, logs/bench.out)"
  tail -5 "$out/logs/bench.out"
fi
echo
echo "| step | result | done at |"
echo "|---|---|---|"
echo "| build (build-gpu, sm_90) | ok | $t_build s |"
echo "| ctest -L gpu | $tests | $t_tests s |"
echo "| benchmarks${GPU_RUN_SPME_PARTS:+ (spme_bench.sh: $GPU_RUN_SPME_PARTS)} (budget $budget s) | $bench | $(since) s |"
echo
if [ -s "$out/RESULTS.md" ]; then
  sed -n '/^| date/,/^| time/p' "$out/RESULTS.md"
  echo
  sed -n '/^## Targets/,/^## 1\./p' "$out/RESULTS.md" | sed '$d'
fi
