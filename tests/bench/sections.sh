# The sections of bench.sh (sourced): machine facts, copy bandwidth, batches
# on both backends (figure 1), launch modes, scale search, the 54,000-host
# fat-tree, and the all-reduce hook. They fill the arrays render.sh reads.

declare -A LAST=() HPS=() LABELS=() SCALE_FIG=()
F1_ROWS=() LAUNCH_ROWS=() SCALE_ROWS=() BIG_ROWS=()
IDENT_N=0 IDENT_BAD=
LAUNCH_BEST= LAUNCH_PCT= BIG_FIG= AR_FIG= BW= BW_SRC=

info_collect() {
  INFO_DATE=$(date -u '+%Y-%m-%d %H:%M UTC')
  INFO_CPU=$(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo | head -1) || true
  INFO_CORES=$(nproc)
  INFO_MEM=$(awk '/^MemTotal/ { printf "%.0f GiB", $2 / 1048576 }' /proc/meminfo)
  INFO_GPU=none
  if command -v nvidia-smi > /dev/null; then
    INFO_GPU=$(nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv,noheader 2> /dev/null |
      head -1 | sed 's/, / (/; s/, /, driver /; s/$/)/') || true
    [ -n "$INFO_GPU" ] || INFO_GPU="none (nvidia-smi found no GPU)"
  fi
  local src
  src=$(cd "$here/../.." && pwd)
  if [ -n "${BENCH_COMMIT:-}" ]; then
    INFO_COMMIT="$BENCH_COMMIT (as given)"
  elif INFO_COMMIT=$(git -C "$src" rev-parse --short=12 HEAD 2> /dev/null); then
    [ -z "$(git -C "$src" status --porcelain -uno 2> /dev/null)" ] ||
      INFO_COMMIT="$INFO_COMMIT (with uncommitted changes)"
  else
    INFO_COMMIT="unknown: not a git checkout (set BENCH_COMMIT)"
  fi
}

# Figure 7's denominator: measured with mv_bw where CUDA runs, else the value
# measured earlier on an H200 host (or BENCH_BW, in bytes/s, either way).
bandwidth_measure() {
  local line
  if [ -n "${BENCH_BW:-}" ]; then
    BW=$BENCH_BW BW_SRC="given (BENCH_BW)"
  elif [ -z "$cuda_absent" ] && [ -x "$build/tests/mv_bw" ] &&
    line=$("$build/tests/mv_bw" "${BENCH_BW_MIB:-4096}" 9 2>&1); then
    say "$line"
    BW=$(echo "$line" | sed 's/.*cudaMemcpy \([0-9.e+]*\) B\/s, kernel \([0-9.e+]*\) B\/s.*/\1 \2/' |
      awk '{ print ($1 > $2) ? $1 : $2 }')
    BW_SRC="measured here (tests/bench/mv_bw.cu: device-to-device copy, read + write)"
  else
    BW=4.3e12 BW_SRC="not measured here: 4.3 TB/s measured earlier on an H200 host"
  fi
}

want() { [[ " $backends " == *" $1 "* ]]; }

# Seconds one run of workload WL on backend BE at BATCH should take, from its
# last batch (linear in the batch); 0 when not known.
predict() {
  local v=${LAST[$1,$2]:-}
  if [ -z "$v" ]; then echo 0; else bench_calc 'e * b / b0' e="${v#* }" b="$3" b0="${v%% *}"; fi
}

tsv() { (IFS=$'\t'; echo "$*") >> "$logs/results.tsv"; }

# row WL LABEL BATCH [options]: one batch on each backend, CUDA first; run 1 of
# each is compared (bit-identity) before the other runs. A row of figure 1.
row() {
  local wl=$1 label=$2 batch=$3
  shift 3
  local dir=$work/rows/$wl-$batch be r left p sum=0 ok_n=- exps_n=- hops=- ident=- cuda_t=- cu=(- - -)
  local -A walls=() els=() note=() med=() pred=() n=()
  local planned=() extra=()
  LABELS[$wl]=$label
  rm -rf "$dir" && mkdir -p "$dir"
  left=$(bench_left "$section_end")
  # One run of each backend that fits, then more runs while they fit: CUDA's
  # first (its runs are the cheaper), then the CPU's.
  for be in cuda cpu; do
    want "$be" || { note[$be]="not requested"; continue; }
    if [ "$be" = cuda ] && [ -n "$cuda_absent" ]; then note[$be]="not run: no CUDA backend"; continue; fi
    pred[$be]=$(predict "$wl" "$be" "$batch")
    if [ "$(bench_calc '(s + p <= l) ? 1 : 0' s="$sum" p="${pred[$be]}" l="$left")" = 1 ]; then
      planned+=("$be")
      n[$be]=1
      sum=$(bench_calc 's + p' s="$sum" p="${pred[$be]}")
    else
      note[$be]="not run: needs ~$(fmt "${pred[$be]}" %.0f) s, $(fmt "$left" %.0f) s left"
    fi
  done
  for be in "${planned[@]}"; do
    while [ "${n[$be]}" -lt "$runs" ] &&
      [ "$(bench_calc '(s + p <= l) ? 1 : 0' s="$sum" p="${pred[$be]}" l="$left")" = 1 ]; do
      n[$be]=$((n[$be] + 1))
      sum=$(bench_calc 's + p' s="$sum" p="${pred[$be]}")
    done
  done
  for ((r = 1; r <= runs; r++)); do
    for be in "${planned[@]}"; do
      [ -z "${note[$be]:-}" ] && [ "$r" -le "${n[$be]}" ] || continue
      [ "$r" = 1 ] || [ "$(bench_left "$section_end" | cut -c1)" != - ] || continue
      extra=()
      [ "$be" != cpu ] || [ -z "$cpu_threads" ] || extra=(--threads "$cpu_threads")
      bench_net "$dir/$be-$r" --backend "$be" "${extra[@]}" "$@"
      # Exit 1: some experiment failed or timed out; the batch still ran.
      if [ "$R_RC" != 0 ] && { [ "$R_RC" != 1 ] || [ ! -s "$dir/$be-$r/summary.jsonl" ]; }; then
        note[$be]="failed (exit $R_RC): $R_ERR"
        continue
      fi
      walls[$be]+="$R_WALL " els[$be]+="$R_ELAPSED "
      if [ "$r" = 1 ]; then
        hops=$(bench_sum packet_hops "$dir/$be-1/summary.jsonl")
        ok_n=$(grep -c '"status":"ok"' "$dir/$be-1/summary.jsonl") || true
        exps_n=$(wc -l < "$dir/$be-1/summary.jsonl")
      fi
      if [ "$be" = cuda ]; then
        cu=("${R_UP:--}" "${R_RUN:--}" "${R_DOWN:--}")
        cuda_t="${R_UP:--} / ${R_RUN:--} / ${R_DOWN:--}"
        [ "${R_PARTS:-0}" -le 1 ] || cuda_t+=" ($R_PARTS device runs)"
      fi
      [ "$r" = 1 ] || rm -rf "$dir/$be-$r"
    done
    if [ "$r" = 1 ] && [ -n "${walls[cpu]:-}" ] && [ -n "${walls[cuda]:-}" ]; then
      IDENT_N=$((IDENT_N + 1))
      if bench_same "$dir/cpu-1" "$dir/cuda-1"; then
        ident=yes
      else
        ident="**NO**"
        IDENT_BAD+="${IDENT_BAD:+, }$label at batch $batch"
      fi
      say "  $label, batch $batch: CPU and CUDA outputs $([ "$ident" = yes ] && echo identical || echo DIFFER)"
    fi
  done
  local cells=() runs_done=()
  for be in cpu cuda; do
    if [ -n "${walls[$be]:-}" ]; then
      med[$be]=$(printf '%s\n' ${walls[$be]} | bench_median)
      LAST[$wl,$be]="$batch $(printf '%s\n' ${els[$be]} | bench_median)"
      HPS[$wl,$batch,$be]=$(bench_calc 'h / w' h="$hops" w="${med[$be]}")
      local k
      k=$(echo ${walls[$be]} | wc -w)
      runs_done+=("$k")
      cells+=("$(fmt "${med[$be]}" %.3f)" "$(fmt "${HPS[$wl,$batch,$be]}")")
      tsv "$section_name" "$wl" "$batch" "$be" "$k" "${med[$be]}" "$hops" "${HPS[$wl,$batch,$be]}" \
        "${R_WORLD:--}" "$([ "$be" = cuda ] && echo "${cu[*]}" | tr ' ' '\t' || printf -- '-\t-\t-')" \
        "$(printf '%s\n' ${els[$be]} | bench_median)" "${note[$be]:-}"
      say "  $label, batch $batch, $be: median $(fmt "${med[$be]}" %.3f) s of $k, $(fmt "${HPS[$wl,$batch,$be]}") packet-hops/s"
    else
      runs_done+=(0)
      cells+=("${note[$be]:-not run}" -)
      say "  $label, batch $batch, $be: ${note[$be]:-not run}"
    fi
  done
  local ratio=-
  [ -z "${med[cpu]:-}" ] || [ -z "${med[cuda]:-}" ] || ratio="$(fmt "$(bench_calc 'a / b' a="${med[cpu]}" b="${med[cuda]}")")x"
  [ "$ok_n" = "$exps_n" ] || hops="$hops ($ok_n of $exps_n ok)"
  F1_ROWS+=("| $label | $batch | $hops | ${cells[0]} | ${cells[1]} | ${cells[2]} | ${cells[3]} | $ratio | ${runs_done[0]} / ${runs_done[1]} | $ident | $cuda_t |")
  [ "${BENCH_KEEP:-0}" = 1 ] || rm -rf "$dir"
}

# Permutations of PERM_BYTES per host on a k=K fat-tree (400 Gb/s, 1 us, MTU
# 9000, no CC), one distinct permutation per experiment, at each batch.
perm_rows() {
  local k=$1 batches=$2 hosts=$(($1 * $1 * $1 / 4)) max=0 b
  local dir=$work/perm-k$k
  for b in $batches; do [ "$b" -le "$max" ] || max=$b; done
  gen_fat_tree "$k" > "$work/k$k.json"
  mkdir -p "$dir"
  gen_perm_list "$dir" "$hosts" "$perm_bytes" "$max" "$max" > "$dir/list-all.txt"
  for b in $batches; do
    head -"$b" "$dir/list-all.txt" > "$dir/list-$b.txt"
    row "perm-k$k" "permutation k=$k ($hosts hosts)" "$b" --topology "$work/k$k.json" \
      --flows-from "$dir/list-$b.txt" --set mtu=9000
  done
  [ "$k" != 8 ] || allreduce_hook "$work/k8.json" "ring all-reduce k=8 (128 hosts)" "$batches"
}

# The WebSearch trace (its first WS_FLOWS flows) under DCQCN and HPCC with the
# ns-3 comparison's parameters, each batch made of --sweep variants.
ws_rows() {
  local b cc opts sweep
  gen_flows_prefix "$data/websearch30.txt" "$ws_flows" > "$work/websearch.txt"
  for b in $ws_batches; do
    for cc in dcqcn hpcc; do
      read -ra opts <<< "$(gen_ns3_params "$cc")"
      read -ra sweep <<< "$(gen_ws_sweep "$cc" "$b")"
      row "ws-$cc" "WebSearch $ws_flows flows, $cc" "$b" --topology "$data/topology_fat.txt" \
        --flows "$work/websearch.txt" "${opts[@]}" "${sweep[@]}"
    done
  done
}

# HOOK (collectives, not merged yet): a ring all-reduce step needs the command
# `multiverse collective`. Where it exists this runs it through `row` (which
# expects summary.jsonl with packet_hops and wall_s, as `net` writes); adjust
# the options below to the command's interface when it lands.
allreduce_hook() {
  local topo=$1 label=$2 batches=$3 b
  if ! "$BENCH_MV" collective --help > /dev/null 2>&1; then
    F1_ROWS+=("| $label | - | not run: needs multiverse collective | | | | | | | | |")
    AR_FIG="not run: needs multiverse collective"
    return
  fi
  for b in $batches; do
    # b experiments: all-reduces of ar_bytes, ar_bytes + 4 KiB, ... (one per size)
    local sizes
    sizes=$(seq 0 $((b - 1)) | awk -v a="$ar_bytes" '{ printf "%s%d", (NR > 1 ? "," : ""), a + 4096 * $1 }')
    BENCH_CMD=collective row "ar-$(basename "$topo" .json)" "$label" "$b" --topology "$topo" \
      --op allreduce --bytes "$sizes" --gpus 128 --gpus-per-server 1 --nics-per-server 1 \
      --nic-gbps 400 --set mtu=9000
  done
  AR_FIG="see figure 1: $label"
}

# Figure 5: the CUDA backend with MULTIVERSE_CUDA_LAUNCH=systems (kernels per
# system per window) against its default, one kernel for every window (a thread
# block per experiment taking experiments from a device-side counter when the
# batch has at least one experiment per SM, else one cooperative grid with
# grid barriers), on the k=8 permutations, alternating which runs first; the
# two modes' outputs are compared too.
launch_rows() {
  local b r mode left p n dir list same
  if [ -n "$cuda_absent" ]; then
    LAUNCH_BEST="not run: no CUDA backend"
    return
  fi
  if ! grep -aq MULTIVERSE_CUDA_LAUNCH "$BENCH_MV"; then
    LAUNCH_BEST="not run: this build does not read MULTIVERSE_CUDA_LAUNCH"
    return
  fi
  for b in $launch_batches; do
    dir=$work/launch-$b list=$work/perm-k8/list-$b.txt
    [ -s "$list" ] || gen_perm_list "$work/perm-k8" 128 "$perm_bytes" "$b" "$b" > "$list"
    left=$(bench_left "$section_end")
    p=$(bench_calc '2 * p' p="$(predict perm-k8 cuda "$b")")
    if [ "$(bench_calc '(p > l) ? 1 : 0' p="$p" l="$left")" = 1 ]; then
      LAUNCH_ROWS+=("| $b | not run: needs ~$(fmt "$p" %.0f) s, $(fmt "$left" %.0f) s left | | | | | |")
      continue
    fi
    n=$runs
    while [ "$n" -gt 1 ] && [ "$(bench_calc '(p * n > l) ? 1 : 0' p="$p" n="$n" l="$left")" = 1 ]; do n=$((n - 1)); done
    local -A w=() k=() fail=()
    for ((r = 1; r <= n; r++)); do
      for mode in $([ $((r % 2)) = 1 ] && echo systems persistent || echo persistent systems); do
        [ -z "${fail[$mode]:-}" ] || continue
        [ "$mode" = systems ] && export MULTIVERSE_CUDA_LAUNCH=systems
        bench_net "$dir/$mode-$r" --backend cuda --topology "$work/k8.json" --flows-from "$list" --set mtu=9000
        unset MULTIVERSE_CUDA_LAUNCH
        if [ "$R_RC" != 0 ]; then
          fail[$mode]="failed (exit $R_RC): $R_ERR"
          continue
        fi
        w[$mode]+="$R_WALL " k[$mode]+="${R_RUN:-} "
        [ "$r" = 1 ] || rm -rf "$dir/$mode-$r"
      done
    done
    if [ -n "${fail[systems]:-}${fail[persistent]:-}" ]; then
      LAUNCH_ROWS+=("| $b | ${fail[systems]:-ok} | ${fail[persistent]:-ok} | | | | |")
      continue
    fi
    bench_same "$dir/systems-1" "$dir/persistent-1" && same=yes || same="**NO**"
    local ws wp ks kp less lessk=-
    ws=$(printf '%s\n' ${w[systems]} | bench_median) wp=$(printf '%s\n' ${w[persistent]} | bench_median)
    less=$(bench_calc '100 * (1 - p / s)' p="$wp" s="$ws")
    if [ -n "${k[systems]// /}" ] && [ -n "${k[persistent]// /}" ]; then
      ks=$(printf '%s\n' ${k[systems]} | bench_median) kp=$(printf '%s\n' ${k[persistent]} | bench_median)
      lessk="$(fmt "$(bench_calc '100 * (1 - p / s)' p="$kp" s="$ks")" %.1f)%"
    fi
    LAUNCH_ROWS+=("| $b | $(fmt "$ws" %.3f) | $(fmt "$wp" %.3f) | $(fmt "$less" %.1f)% | $lessk | $n | $same |")
    LAUNCH_BEST="$(fmt "$less" %.1f)% less time (k=8 permutations, batch $b; windows only: $lessk)"
    LAUNCH_PCT=$less
    say "  launch modes, batch $b: systems $(fmt "$ws" %.3f) s, persistent $(fmt "$wp" %.3f) s: $(fmt "$less" %.1f)% less; outputs identical: $same"
    tsv "$section_name" perm-k8-launch "$b" cuda "$n" "$ws $wp" - - - - - - - "systems, persistent"
    [ "${BENCH_KEEP:-0}" = 1 ] || rm -rf "$dir"
  done
}
