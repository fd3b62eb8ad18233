#!/usr/bin/env bash
# What the GPU's compiler makes of a change, without a GPU: each kernel of the
# CUDA backend (engine/sim/eng_cuda.cu) for sm_90 as the build compiles it
# (-O3, the backend's exact-arithmetic flags, read from each tree's
# engine/CMakeLists.txt), its registers, stack frame and
# spill bytes by ptxas -v, and the PTX's loads and stores of local memory
# (ld.local, st.local: a context or array whose address escapes, read on a
# thread's serial path), for two source trees side by side. Static counts,
# not a profile: a change that moves them is to be measured on the GPU
# (tests/bench/README.md). About three minutes a tree on two cores.
#   tests/bench/ptxas_bench.sh OLD_TREE NEW_TREE [WORKDIR]
# A tree: a checkout's root (git worktree add DIR REV).
set -euo pipefail
nvcc=${NVCC:-$(command -v nvcc || echo /usr/local/cuda/bin/nvcc)}
[ -x "$nvcc" ] || { echo "ptxas_bench: nvcc not found (set NVCC)" >&2; exit 2; }
work=${3:-$(mktemp -d)}
mkdir -p "$work"

# exact TREE: the backend's exact-arithmetic flags as TREE's engine/CMakeLists.txt
# gives them to mv_cuda (its CUDA compile options but the warning flags)
exact() {
  local f
  f=$(sed -n 's/.*target_compile_options(mv_cuda PRIVATE \$<\$<COMPILE_LANGUAGE:CUDA>:\([^$>]*\).*/\1/p' \
    "$1/engine/CMakeLists.txt")
  [ -n "$f" ] || { echo "ptxas_bench: no CUDA options of mv_cuda in $1/engine/CMakeLists.txt" >&2; return 1; }
  echo "$f"
}

# compile TREE NAME: NAME.ptxas (ptxas -v) and NAME.ptx in $work
compile() {
  local ex more
  ex=$(exact "$1") || return 1
  local flags=(-O3 -DNDEBUG -DMV_HAVE_CUDA=1 -arch=sm_90)
  read -ra more <<< "$ex"
  flags+=("${more[@]}" -I"$1/engine" -x cu)
  "$nvcc" "${flags[@]}" -Xptxas -v -cubin -o "$work/$2.cubin" "$1/engine/sim/eng_cuda.cu" \
    > "$work/$2.ptxas" 2>&1 || { tail -5 "$work/$2.ptxas" >&2; return 1; }
  "$nvcc" "${flags[@]}" -ptx -o "$work/$2.ptx" "$1/engine/sim/eng_cuda.cu"
}

# stats NAME: per kernel (entry): name regs stack spill_st spill_ld ld_local st_local;
# then each function out of line (.func, ptxas gives no registers of its own): "-" for those
stats() {
  awk '/Compiling entry function/ { n = $0; sub(/.*function \047/, "", n); sub(/\047.*/, "", n) }
       /bytes stack frame/ && n != "" { st[n] = $1; ss[n] = $5; sl[n] = $9 }
       /Used [0-9]+ registers/ && n != "" { r[n] = $5; order[++k] = n; n = "" }
       END { for (i = 1; i <= k; i++) print order[i], r[order[i]], st[order[i]], ss[order[i]], sl[order[i]] }' \
    "$work/$1.ptxas" | sort > "$work/$1.regs"
  awk '/^\.(visible \.)?(entry|func) / { n = $0; sub(/^\.(visible \.)?(entry|func) +(\([^)]*\) +)?/, "", n)
                                        sub(/\(.*/, "", n) # a static function: less its unit hash
                                        if (sub(/^_ZN[0-9]+_INTERNAL_[0-9a-f]+_[0-9]+_eng_cuda_cu_/, "", n))
                                          n = substr(n, 9)
                                        seen[n] = 1 }
       n != "" && /ld\.local/ { l[n]++ }
       n != "" && /st\.local/ { s[n]++ }
       END { for (m in seen) print m, l[m] + 0, s[m] + 0 }' "$work/$1.ptx" | sort > "$work/$1.local"
  join -a 2 -e - -o 0,1.2,1.3,1.4,1.5,2.2,2.3 "$work/$1.regs" "$work/$1.local"
}

compile "$1" old
compile "$2" new
printf '%-48s %12s %12s %12s %12s %12s %12s\n' kernel/function regs stack_B spill_st_B spill_ld_B \
  ld.local st.local
join <(stats old) <(stats new) | while read -r k r1 t1 s1 l1 pl1 ps1 r2 t2 s2 l2 pl2 ps2; do
  if [ "$r1" = - ]; then
    printf '%-48s %12s %12s %12s %12s %12s %12s\n' "${k:0:48}" - - - - "$pl1>$pl2" "$ps1>$ps2"
  else
    printf '%-48s %12s %12s %12s %12s %12s %12s\n' "${k:0:48}" "$r1>$r2" "$t1>$t2" "$s1>$s2" \
      "$l1>$l2" "$pl1>$pl2" "$ps1>$ps2"
  fi
done
