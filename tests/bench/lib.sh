# Helpers of the benchmarks (sourced by bench.sh and tests/cli/bench_lib.sh):
# medians, summary.jsonl fields, comparing two backends' outputs, timed runs of
# `multiverse net` with their memory, and the time budget.

# The median of the numbers on stdin (the mean of the middle two for an even
# count); fails on no input.
bench_median() {
  sort -g | awk '{ v[NR] = $1 } END {
    if (NR == 0) exit 1
    if (NR % 2) print v[(NR + 1) / 2]; else printf "%.9g\n", (v[NR / 2] + v[NR / 2 + 1]) / 2 }'
}

# The numeric field KEY of each JSON line on stdin, one per line.
bench_field() {
  sed -n "s/.*\"$1\":\(-\{0,1\}[0-9][0-9.e+-]*\).*/\1/p"
}

# The sum of the numeric field KEY over the lines of FILE (an integer).
bench_sum() {
  bench_field "$1" < "$2" | awk '{ s += $1 } END { printf "%.0f\n", s }'
}

# awk arithmetic on named values: bench_calc 'a / b' a=1 b=2 (10 digits).
bench_calc() {
  local expr=$1 args=(-v OFMT=%.10g)
  shift
  for v in "$@"; do args+=(-v "$v"); done
  awk "${args[@]}" "BEGIN { print $expr }"
}

# $1 printed with the printf format $2 (default %.3g).
fmt() {
  awk -v x="$1" -v f="${2:-%.3g}" 'BEGIN { printf f, x }'
}

# 0 when $1 is a number.
is_num() {
  [[ ${1:-} =~ ^-?[0-9][0-9.e+-]*$ ]]
}

# 0 when two output folders of `multiverse net` hold the same results: every
# file other than summary.jsonl byte-identical (fct-N.txt, partial files,
# traces), and summary.jsonl identical once the fields that describe the run
# rather than the results (backend, wall_s, packet_hops_per_s) are removed.
bench_same() {
  local a=$1 b=$2
  [ -s "$a/summary.jsonl" ] && [ -s "$b/summary.jsonl" ] || return 1
  diff -rq -x summary.jsonl "$a" "$b" > /dev/null || return 1
  # wall_s and packet_hops_per_s wherever they stand (last field or not)
  local strip='s/"backend":"[a-z]*",//; s/"wall_s":[^,}]*,//; s/,"wall_s":[^,}]*}/}/; s/"packet_hops_per_s":[^,}]*,//; s/,"packet_hops_per_s":[^,}]*}/}/'
  cmp -s <(sed "$strip" "$a/summary.jsonl") <(sed "$strip" "$b/summary.jsonl")
}

# The sum of the values the sed script picks from FILE, empty when none.
bench_cuda_sum() {
  sed -n "$1" "$2" | awk '{ s += $1; n++ } END { if (n) printf "%.3f\n", s }'
}

# Seconds since the epoch, with microseconds.
bench_now() {
  echo "${EPOCHREALTIME/,/.}"
}

# Seconds left before the epoch time $1 (negative once past).
bench_left() {
  bench_calc 'd - n' d="$1" n="$(bench_now)"
}

# bench_net OUTDIR [options...]: one run of `$BENCH_MV ${BENCH_CMD:-net}`
# (verbose, --json) writing OUTDIR, killed at the epoch time $BENCH_HARD_END if
# set; with BENCH_POLL=1 it samples the process's peak resident memory and the
# GPU's used memory while it runs. Sets R_RC (124: killed at the deadline),
# R_ELAPSED (s, the whole command), R_WALL (s, the batch's run as the program
# reports it), R_WORLD (bytes of tables), R_UP, R_RUN, R_DOWN (s: CUDA upload,
# windows, download, summed over device runs), R_PARTS (device runs), R_DEVB
# (bytes the first device run allocated), R_RSS_KB, R_GPU_MB (peak device memory used, MiB), R_ERR
# (the last other line of stderr). stderr is kept in OUTDIR.err.
bench_net() {
  local out=$1 t0 pid poll= hwm
  shift
  rm -rf "$out" "$out.err" "$out.gpumem"
  mkdir -p "$(dirname "$out")"
  R_RSS_KB= R_GPU_MB=
  t0=$(bench_now)
  if [ "${BENCH_POLL:-0}" = 1 ] && command -v nvidia-smi > /dev/null; then
    nvidia-smi --query-gpu=memory.used --format=csv,noheader,nounits -lms 100 > "$out.gpumem" 2> /dev/null &
    poll=$!
  fi
  if [ "${BENCH_CMD:-net}" = collective ]; then # it prints its JSON lines: the summary
    mkdir -p "$out"
    MULTIVERSE_VERBOSE=1 "$BENCH_MV" collective "$@" --json > "$out/summary.jsonl" 2> "$out.err" &
  else
    MULTIVERSE_VERBOSE=1 "$BENCH_MV" "${BENCH_CMD:-net}" "$@" --json -o "$out" > /dev/null 2> "$out.err" &
  fi
  pid=$!
  R_RC=
  while kill -0 "$pid" 2> /dev/null; do
    if [ "${BENCH_POLL:-0}" = 1 ]; then
      hwm=$(sed -n 's/^VmHWM:[[:space:]]*\([0-9]*\).*/\1/p' "/proc/$pid/status" 2> /dev/null) || true
      [ -n "$hwm" ] && R_RSS_KB=$hwm
    fi
    if [ -n "${BENCH_HARD_END:-}" ] && [ "$(bench_left "$BENCH_HARD_END" | cut -c1)" = - ]; then
      kill "$pid" 2> /dev/null || true
      R_RC=124
      break
    fi
    sleep 0.05
  done
  if [ -n "$R_RC" ]; then
    wait "$pid" 2> /dev/null || true
  else
    wait "$pid" && R_RC=0 || R_RC=$?
  fi
  R_ELAPSED=$(bench_calc 'b - a' a="$t0" b="$(bench_now)")
  if [ -n "$poll" ]; then
    kill "$poll" 2> /dev/null || true
    wait "$poll" 2> /dev/null || true
    R_GPU_MB=$(sort -g "$out.gpumem" | tail -1) || true
  fi
  R_WALL=$(head -1 "$out/summary.jsonl" 2> /dev/null | bench_field wall_s) || true
  R_WORLD=$(sed -n 's/^world: \([0-9]*\) bytes.*/\1/p' "$out.err" | head -1)
  # One "cuda:" line per device run: several when the engine split a batch
  # too large for the device, or re-ran experiments whose compact rings or pools overflowed.
  R_PARTS=$(grep -c '^cuda: ' "$out.err") || true
  R_DEVB=$(sed -n 's/^cuda: \([0-9]*\) bytes.*/\1/p' "$out.err" | head -1)
  R_UP=$(bench_cuda_sum 's/^cuda: .*upload \([0-9.]*\) s.*/\1/p' "$out.err")
  R_RUN=$(bench_cuda_sum 's/^cuda: .* windows[^,]* \([0-9.]*\) s, download.*/\1/p' "$out.err")
  R_DOWN=$(bench_cuda_sum 's/^cuda: .* download \([0-9.]*\) s.*/\1/p' "$out.err")
  R_ERR=$(grep -v -e '^world:' -e '^cuda:' -e '^batch:' "$out.err" | tail -1 | cut -c1-200) || true
  [ "$R_RC" != 124 ] || R_ERR="killed: out of time"
  return 0
}
