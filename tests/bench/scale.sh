# Figure 6 of bench.sh (sourced): how many experiments one device holds, and
# one 54,000-host fat-tree with its memory and time.

gpu_total_mib() {
  nvidia-smi --query-gpu=memory.total --format=csv,noheader,nounits 2> /dev/null | head -1 || true
}

# scale_one K FROM END: k=K permutations of SCALE_BYTES per host (256 distinct,
# repeated), the batch doubling from FROM until the device does not hold it
# (the engine splits such a batch into parts run in turn: seen as a first
# device run smaller than the world; or a run fails), host memory would not
# hold the next, the time (before the epoch END) would not suffice, or
# BENCH_SCALE_MAX. On the CUDA backend, or
# the CPU's where CUDA is absent (labelled).
scale_one() {
  local k=$1 b=$2 end=$3 hosts=$(($1 * $1 * $1 / 4)) be=cuda why= largest=- p left avail need
  local dir=$work/scale-k$k prev_b= prev_el= prev_rss= world=- wall=- el=- rss=- gpu=- ok
  [ -z "$cuda_absent" ] || be=cpu
  [ -s "$work/k$k.json" ] || gen_fat_tree "$k" > "$work/k$k.json"
  mkdir -p "$dir"
  while [ "$b" -le "$scale_max" ]; do
    if [ "$(bench_left "$end" | cut -c1)" = - ]; then
      why="time: none left for batch $b"
      break
    fi
    if [ -n "$prev_b" ]; then
      p=$(bench_calc 'e * b / b0' e="$prev_el" b="$b" b0="$prev_b")
      left=$(bench_left "$end")
      if [ "$(bench_calc '(p > l) ? 1 : 0' p="$p" l="$left")" = 1 ]; then
        why="time: batch $b would need ~$(fmt "$p" %.0f) s, $(fmt "$left" %.0f) s left"
        break
      fi
      avail=$(awk '/^MemAvailable/ { print $2 }' /proc/meminfo)
      need=$(bench_calc 'r * b / b0' r="${prev_rss:-0}" b="$b" b0="$prev_b")
      if [ "$(bench_calc '(n > 0.9 * a) ? 1 : 0' n="$need" a="$avail")" = 1 ]; then
        why="host memory: batch $b would need ~$(fmt "$(bench_calc 'n / 1048576' n="$need")" %.0f) GiB, $(fmt "$(bench_calc 'a / 1048576' a="$avail")" %.0f) GiB available"
        break
      fi
    fi
    gen_perm_list "$dir" "$hosts" "$scale_bytes" 256 "$b" > "$dir/list-$b.txt"
    BENCH_POLL=1 bench_net "$dir/run-$b" --backend "$be" --topology "$work/k$k.json" \
      --flows-from "$dir/list-$b.txt" --set mtu=9000
    if [ "$R_RC" != 0 ]; then
      why="batch $b failed (exit $R_RC): $R_ERR"
      break
    fi
    if [ "${R_PARTS:-0}" -gt 1 ] && is_num "$R_DEVB" &&
      [ "$(bench_calc '(d < 0.99 * w) ? 1 : 0' d="$R_DEVB" w="$R_WORLD")" = 1 ]; then
      why="batch $b ($(fmt "$(bench_calc 'w / 1e9' w="$R_WORLD")" %.0f) GB) did not fit at once: the engine split it ($R_PARTS device runs)"
      break
    fi
    ok=$(grep -c '"status":"ok"' "$dir/run-$b/summary.jsonl") || true
    if [ "$ok" != "$b" ]; then
      why="batch $b: $ok of $b experiments ok"
      break
    fi
    say "  scale k=$k: batch $b ran on $be in $(fmt "$R_ELAPSED" %.1f) s (world $(fmt "${R_WORLD:-0}" %.4g) bytes)"
    largest=$b prev_b=$b prev_el=$R_ELAPSED prev_rss=${R_RSS_KB:-0}
    world=$R_WORLD wall=$R_WALL el=$R_ELAPSED rss=${R_RSS_KB:--} gpu=${R_GPU_MB:--}
    tsv "$section_name" "scale-k$k" "$b" "$be" 1 "$R_WALL" - - "${R_WORLD:--}" "${R_UP:--}" "${R_RUN:--}" \
      "${R_DOWN:--}" "$R_ELAPSED" "rss_kb=${R_RSS_KB:--} gpu_mib=${R_GPU_MB:--}"
    rm -rf "$dir/run-$b" "$dir/list-$b.txt"
    b=$((b * 2))
  done
  [ -n "$why" ] || why="reached BENCH_SCALE_MAX ($scale_max)"
  say "  scale k=$k: largest batch $largest ($why)"
  local per=- allows=- total
  total=$(gpu_total_mib)
  if [ "$largest" != - ] && is_num "$world"; then
    per=$(bench_calc 'w / b' w="$world" b="$largest")
    ! is_num "$total" || allows=$(fmt "$(bench_calc 't * 1048576 / p' t="$total" p="$per")" %.0f)
    per=$(fmt "$(bench_calc 'p / 1e6' p="$per")" %.1f)
  fi
  local label="k=$k ($hosts hosts)" fig=$largest
  [ "$be" = cuda ] || label="$label, CPU backend (no CUDA)"
  [[ $why != time* && $why != host* && $why != reached* ]] || [ "$largest" = - ] || fig="$largest or more"
  SCALE_ROWS+=("| $label | $fig | $(fmt "$wall" %.2f) / $(fmt "$el" %.1f) | $per | ${gpu} | $(is_num "$rss" && fmt "$(bench_calc 'r / 1048576' r="$rss")" %.1f || echo -) | $why | $allows |")
  SCALE_FIG[$k]="$fig$([ "$be" = cuda ] || echo " (CPU backend)")"
}

scale_search() {
  local mid
  mid=$(bench_calc 'n + (e - n) / 2' n="$(bench_now)" e="$section_end")
  scale_one 8 "$scale_k8_from" "$mid"
  scale_one 16 "$scale_k16_from" "$section_end"
}

# One k=BIG_K three-tier fat-tree (k^3/4 hosts, 5k^2/4 switches: k=60 gives
# 54,000 and 4,500) running a permutation of BIG_BYTES per host on each of
# BIG_BACKENDS, with its time and memory; then the all-reduce hook.
big_run() {
  local k=$big_k hosts=$((big_k * big_k * big_k / 4)) sw=$((5 * big_k * big_k / 4)) be p left hops=
  local dir=$work/big rate threads
  mkdir -p "$dir"
  gen_fat_tree "$k" > "$dir/topo.json"
  "$BENCH_GEN" permutation "$hosts" 1 "$hosts" "$big_bytes" 0 > "$dir/perm.txt"
  BIG_FIG=
  for be in $big_backends; do
    want "$be" || continue
    if [ "$be" = cuda ] && [ -n "$cuda_absent" ]; then
      BIG_ROWS+=("| cuda | not run: no CUDA backend | | | | | | | | |")
      continue
    fi
    p=0
    if [ "$be" = cpu ] && [ -n "$hops" ] && [ -n "${HPS[perm-k16,1,cpu]:-}" ]; then
      # A rough guess: the k=16 single-experiment CPU rate (one thread), times
      # half the threads the engine gives this many nodes.
      threads=$(((hosts + sw) / 2048 + 1))
      [ "$threads" -le "$INFO_CORES" ] || threads=$INFO_CORES
      rate=$(bench_calc 'r * ((t > 2) ? t / 2 : 1)' r="${HPS[perm-k16,1,cpu]}" t="$threads")
      p=$(bench_calc 'h / r' h="$hops" r="$rate")
    fi
    left=$(bench_left "$section_end")
    if [ "$(bench_calc '(p > l) ? 1 : 0' p="$p" l="$left")" = 1 ]; then
      BIG_ROWS+=("| $be | not run: needs ~$(fmt "$p" %.0f) s, $(fmt "$left" %.0f) s left | | | | | | | | |")
      continue
    fi
    BENCH_POLL=1 bench_net "$dir/$be" --backend "$be" --topology "$dir/topo.json" --flows "$dir/perm.txt" --set mtu=9000
    if [ "$R_RC" != 0 ]; then
      BIG_ROWS+=("| $be | failed (exit $R_RC): $R_ERR | | | | | | | | |")
      continue
    fi
    hops=$(bench_sum packet_hops "$dir/$be/summary.jsonl")
    local st hps
    st=$(head -1 "$dir/$be/summary.jsonl" | sed 's/.*"status":"\([a-z_]*\)".*/\1/')
    hps=$(bench_calc 'h / w' h="$hops" w="$R_WALL")
    BIG_ROWS+=("| $be | $st | $hops | $(fmt "$R_WALL" %.2f) | $(fmt "$R_ELAPSED" %.1f) | $(fmt "$hps") | $(fmt "$(bench_calc 'w / 1e9' w="${R_WORLD:-0}")" %.2f) | $(is_num "$R_RSS_KB" && fmt "$(bench_calc 'r / 1048576' r="$R_RSS_KB")" %.2f || echo -) | ${R_GPU_MB:--} | ${R_UP:--} / ${R_RUN:--} / ${R_DOWN:--} |")
    BIG_FIG+="${BIG_FIG:+;} $be $(fmt "$R_WALL" %.2f) s ($(fmt "$R_ELAPSED" %.1f) s with set-up), world $(fmt "$(bench_calc 'w / 1e9' w="${R_WORLD:-0}")" %.2f) GB"
    say "  k=$k fat-tree on $be: $st, $hops packet-hops in $(fmt "$R_WALL" %.2f) s, world ${R_WORLD:-?} bytes"
    tsv "$section_name" "fat-tree-k$k" 1 "$be" 1 "$R_WALL" "$hops" "$hps" "${R_WORLD:--}" "${R_UP:--}" \
      "${R_RUN:--}" "${R_DOWN:--}" "$R_ELAPSED" "rss_kb=${R_RSS_KB:--} gpu_mib=${R_GPU_MB:--}"
  done
  if [ -s "$dir/cpu/summary.jsonl" ] && [ -s "$dir/cuda/summary.jsonl" ]; then
    IDENT_N=$((IDENT_N + 1))
    bench_same "$dir/cpu" "$dir/cuda" || IDENT_BAD+="${IDENT_BAD:+, }the k=$k fat-tree"
  fi
  BIG_FIG="k=$k ($hosts hosts, $sw switches):${BIG_FIG:- not run}"
  # One step of a ring all-reduce over every host: host i sends its chunk to
  # host i+1 (the whole collective is 2(n-1) such steps).
  "$BENCH_GEN" ring "$hosts" 1 "$hosts" "$big_bytes" 0 > "$dir/ring.txt"
  AR_FIG=
  for be in $big_backends; do
    want "$be" || continue
    [ "$be" != cuda ] || [ -z "$cuda_absent" ] || continue
    left=$(bench_left "$section_end")
    if [ "$(bench_calc '(l < 20) ? 1 : 0' l="$left")" = 1 ]; then
      AR_FIG+="${AR_FIG:+;} $be not run: $(fmt "$left" %.0f) s left"
      continue
    fi
    BENCH_POLL=1 bench_net "$dir/ring-$be" --backend "$be" --topology "$dir/topo.json" --flows "$dir/ring.txt" --set mtu=9000
    if [ "$R_RC" != 0 ]; then
      AR_FIG+="${AR_FIG:+;} $be failed (exit $R_RC): $R_ERR"
      continue
    fi
    AR_FIG+="${AR_FIG:+;} $be $(fmt "$R_WALL" %.2f) s ($(fmt "$R_ELAPSED" %.1f) s with set-up), $(bench_sum packet_hops "$dir/ring-$be/summary.jsonl") packet-hops, world $(fmt "$(bench_calc 'w / 1e9' w="${R_WORLD:-0}")" %.2f) GB, peak GPU ${R_GPU_MB:--} MiB"
  done
  AR_FIG="ring all-reduce step ($hosts flows of $big_bytes bytes, host i to i+1):${AR_FIG:- not run}"
  [ "${BENCH_KEEP:-0}" = 1 ] || rm -rf "$dir"
}
