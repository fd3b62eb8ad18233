# RESULTS.md of bench.sh (sourced): the machine, the targets of the GPU-speed
# issue with what was measured, and the tables of each figure. Rewritten after
# every section, so that a run cut short still leaves what it measured.

# The largest batch of BATCHES with a packet-hops/s figure for WL on BE.
largest_with() {
  local wl=$1 be=$2 b best=
  for b in $3; do
    [ -z "${HPS[$wl,$b,$be]:-}" ] || { [ -n "$best" ] && [ "$b" -le "$best" ]; } || best=$b
  done
  echo "$best"
}

# "met" or "not met": $1 compared with $3 by $2 (>= or >); "-" for no figure
# or a figure not from the GPU.
verdict() {
  is_num "${1%% *}" && [[ $1 != *CPU* ]] || { echo -; return; }
  set -- "${1%% *}" "$2" "$3"
  [ "$(bench_calc "(v $2 t) ? 1 : 0" v="$1" t="$3")" = 1 ] && echo met || echo "not met"
}

render() {
  local f2=- f2v= f3=- f3v= f4=- f4v= f4row= b key be
  b=$(largest_with perm-k8 cuda "$k8_batches")
  if [ -n "$b" ] && [ "$b" != 1 ] && [ -n "${HPS[perm-k8,1,cuda]:-}" ]; then
    f2v=$(bench_calc 'a / b' a="${HPS[perm-k8,$b,cuda]}" b="${HPS[perm-k8,1,cuda]}")
    f2="$(fmt "$f2v")x (k=8 permutations, batch $b over batch 1)"
    local b16
    b16=$(largest_with perm-k16 cuda "$k16_batches")
    [ -z "$b16" ] || [ "$b16" = 1 ] || [ -z "${HPS[perm-k16,1,cuda]:-}" ] ||
      f2+="; k=16: $(fmt "$(bench_calc 'a / b' a="${HPS[perm-k16,$b16,cuda]}" b="${HPS[perm-k16,1,cuda]}")")x (batch $b16)"
  elif [ -n "$cuda_absent" ]; then
    f2="not run: no CUDA backend"
  fi
  for b in $k8_batches; do
    [ -z "${HPS[perm-k8,$b,cuda]:-}" ] || [ -z "${HPS[perm-k8,$b,cpu]:-}" ] || f3v=$b
  done
  if [ -n "$f3v" ]; then
    b=$f3v
    f3v=$(bench_calc 'a / b' a="${HPS[perm-k8,$b,cuda]}" b="${HPS[perm-k8,$b,cpu]}")
    f3="$(fmt "$f3v")x (k=8 permutations, batch $b, CPU on $INFO_CORES cores)"
  elif [ -n "$cuda_absent" ]; then
    f3="not run: no CUDA backend"
  fi
  local f7h=
  for key in "${!HPS[@]}"; do
    [[ $key == *,cuda ]] || continue
    if [ -z "$f4v" ] || [ "$(bench_calc '(a > b) ? 1 : 0' a="${HPS[$key]}" b="$f4v")" = 1 ]; then
      f4v=${HPS[$key]} f4row=${key%,cuda}
    fi
    if [[ $key == perm-* ]] && { [ -z "$f7h" ] || [ "$(bench_calc '(a > b) ? 1 : 0' a="${HPS[$key]}" b="$f7h")" = 1 ]; }; then
      f7h=${HPS[$key]}
    fi
  done
  [ -z "$f4v" ] || f4="$(fmt "$f4v") packet-hops/s (${LABELS[${f4row%,*}]}, batch ${f4row##*,})"
  [ -n "$f4v" ] || [ -z "$cuda_absent" ] || f4="not run: no CUDA backend"
  local ident
  if [ "$IDENT_N" = 0 ]; then
    ident="not checked: no batch ran on both backends"
  elif [ -z "$IDENT_BAD" ]; then
    ident="identical on all $IDENT_N batches run on both (every fct file and summary counter)"
  else
    ident="**DIFFERENT** on: $IDENT_BAD (of $IDENT_N compared)"
  fi
  local f7=-
  if [ -n "$f7h" ]; then
    f7="$(fmt "$(bench_calc '100 * h * b / w' h="$f7h" b="$bph_min" w="$BW")" %.2f)% counting packet records only ($bph_min B/hop), $(fmt "$(bench_calc '100 * h * b / w' h="$f7h" b="$bph_all" w="$BW")" %.2f)% counting every column touched ($bph_all B/hop)"
  elif [ -n "$cuda_absent" ]; then
    f7="not run: no CUDA backend"
  fi
  {
    echo "# Multiverse benchmarks"
    echo
    [ -z "${BENCH_LABEL:-}" ] || { echo "> $BENCH_LABEL"; echo; }
    echo "Produced by \`tests/bench/bench.sh\` (\`make bench\`, \`tools/gpu_run.sh\`); tests/bench/README.md describes the workloads, the counts and the knobs."
    echo
    echo "| | |"
    echo "|---|---|"
    echo "| date | $INFO_DATE |"
    echo "| commit | $INFO_COMMIT |"
    echo "| GPU | $INFO_GPU |"
    echo "| CPU | $INFO_CPU, $INFO_CORES cores, $INFO_MEM |"
    echo "| CUDA backend | ${cuda_absent:-present} |"
    echo "| runs | median of $runs per figure (fewer where the runs column says so) |"
    echo "| CPU/CUDA bit-identity | $ident |"
    echo "| time | $(fmt "$(bench_calc 'n - s' n="$(bench_now)" s="$t_start")" %.0f) s so far, of a budget of $budget s |"
    echo
    echo "## Targets"
    echo
    echo "| # | figure | measured | target | |"
    echo "|---|---|---|---|---|"
    echo "| 1 | packet-hops/s, CPU and CUDA side by side | table 1 | | |"
    echo "| 2 | SPME gain on the GPU | $f2 | >= 8x (paper: 7.3x) | $(verdict "$f2v" '>=' 8) |"
    echo "| 3 | CUDA over the CPU backend at the largest batch | $f3 | >= 60x | $(verdict "$f3v" '>=' 60) |"
    echo "| 4 | absolute, on the GPU | $f4 | >= 5e8 packet-hops/s | $(verdict "$f4v" '>=' 5e8) |"
    echo "| 5 | persistent kernel over per-system launches | ${LAUNCH_BEST:-not run} | >= 20% less time (paper: 16.6-18.6%) | $(verdict "$LAUNCH_PCT" '>=' 20) |"
    echo "| 6 | most concurrent 128-host experiments | ${SCALE_FIG[8]:-not run} | > 520 | $(verdict "${SCALE_FIG[8]:-}" '>' 520) |"
    echo "| 6 | most concurrent 1,024-host experiments | ${SCALE_FIG[16]:-not run} | > 70 | $(verdict "${SCALE_FIG[16]:-}" '>' 70) |"
    echo "| 6 | the k=$big_k fat-tree ($((big_k * big_k * big_k / 4)) hosts), permutation | ${BIG_FIG:-not run} | memory and time | |"
    echo "| 6 | the k=$big_k fat-tree, all-reduce step | ${AR_FIG:-not run} | memory and time | |"
    echo "| 7 | fraction of the copy-bandwidth bound | $f7 | | |"
    echo
    echo "## 1. Packet-hops/s, CPU and CUDA on the same batches"
    echo
    echo "Permutations: one ${perm_bytes}-byte permutation per host and experiment (each experiment its own), 400 Gb/s, 1 us links, MTU 9000, no CC. WebSearch: the first $ws_flows of the 1,777 flows of tests/data/ns3_hpcc on its 320-host fat-tree, the ns-3 comparison's parameters, a batch made of \`--sweep\` variants. Times are the program's \`wall_s\` (the batch's run; for CUDA with upload and download)."
    echo
    echo "| workload | batch | packet-hops | CPU s | CPU hops/s | CUDA s | CUDA hops/s | CUDA/CPU | runs CPU / CUDA | CPU = CUDA | CUDA upload / windows / download s |"
    echo "|---|---|---|---|---|---|---|---|---|---|---|"
    [ ${#F1_ROWS[@]} = 0 ] || printf '%s\n' "${F1_ROWS[@]}"
    echo
    echo "## 5. Persistent kernel against per-system launches (k=8 permutations, CUDA)"
    echo
    if [ ${#LAUNCH_ROWS[@]} = 0 ]; then
      echo "${LAUNCH_BEST:-not run}"
    else
      echo "| batch | systems s | one kernel (default) s | less time | less time, windows only | runs | outputs identical |"
      echo "|---|---|---|---|---|---|---|"
      printf '%s\n' "${LAUNCH_ROWS[@]}"
    fi
    echo
    echo "## 6. Scale"
    echo
    echo "Largest batch of permutations (${scale_bytes} bytes per host; memory does not depend on it) that ran at once, the batch doubling until the device no longer holds it."
    echo
    echo "| topology | largest batch that ran | its run / whole command s | world per experiment MB | peak GPU memory MiB | peak host RSS GiB | why the search stopped | device memory alone would hold about |"
    echo "|---|---|---|---|---|---|---|---|"
    [ ${#SCALE_ROWS[@]} = 0 ] || printf '%s\n' "${SCALE_ROWS[@]}"
    echo
    echo "A k=$big_k fat-tree ($((big_k * big_k * big_k / 4)) hosts, $((5 * big_k * big_k / 4)) switches), a permutation of $big_bytes bytes per host, one run:"
    echo
    echo "| backend | status | packet-hops | run s | with set-up s | packet-hops/s | world GB | peak host RSS GiB | peak GPU memory MiB | CUDA upload / windows / download s |"
    echo "|---|---|---|---|---|---|---|---|---|---|"
    [ ${#BIG_ROWS[@]} = 0 ] || printf '%s\n' "${BIG_ROWS[@]}"
    echo
    echo "## 7. Bytes per packet-hop against the copy bandwidth"
    echo
    echo "Copy bandwidth: $(fmt "$BW") B/s, $BW_SRC. Packet-hops/s: the best CUDA figure of the permutations ($([ -n "$f7h" ] && fmt "$f7h" || echo none)), whose hops the counts describe."
    echo
    echo "| count (tests/bench/README.md) | bytes per hop | bound, packet-hops/s | fraction reached |"
    echo "|---|---|---|---|"
    for b in "packet records only:$bph_min" "every column touched:$bph_all"; do
      echo "| ${b%:*} | ${b#*:} | $(fmt "$(bench_calc 'w / b' w="$BW" b="${b#*:}")") | $([ -n "$f7h" ] && echo "$(fmt "$(bench_calc '100 * h * b / w' h="$f7h" b="${b#*:}" w="$BW")" %.2f)%" || echo -) |"
    done
    [ -z "${BY_HAND:-}" ] || { echo; printf '%s\n' "$BY_HAND"; }
  } > "$results"
}
