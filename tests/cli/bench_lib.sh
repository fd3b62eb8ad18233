#!/usr/bin/env bash
# The benchmarks' helpers (tests/bench/lib.sh, gen.sh): medians, summary
# fields, the CPU/CUDA comparison (blind to run-time fields, not to results),
# and the workload generators (fat-tree sizes, permutation lists, --sweep
# variants counted and distinct).
# usage: bench_lib.sh MULTIVERSE MV_GENFLOWS WORKDIR
set -euo pipefail
here=$(cd "$(dirname "$0")/../bench" && pwd)
BENCH_MV=$(realpath "$1") BENCH_GEN=$(realpath "$2") work=$3
. "$here/lib.sh"
. "$here/gen.sh"
rm -rf "$work" && mkdir -p "$work" && cd "$work"
fail() { echo "bench_lib: $*" >&2; exit 1; }

[ "$(printf '3\n1\n2\n' | bench_median)" = 2 ] || fail "median of 3 1 2"
[ "$(printf '10\n4\n1\n2\n' | bench_median)" = 3 ] || fail "median of 10 4 1 2"
[ "$(printf '0.5\n1e-1\n' | bench_median)" = 0.3 ] || fail "median of 0.5 1e-1"
! printf '' | bench_median > /dev/null 2>&1 || fail "median of nothing"
[ "$(echo '{"a":1,"packet_hops":-12,"b":2.5e+3}' | bench_field b)" = 2.5e+3 ] || fail "field b"
printf '{"packet_hops":7,"x":1}\n{"packet_hops":35}\n' > s.jsonl
[ "$(bench_sum packet_hops s.jsonl)" = 42 ] || fail "sum"
[ "$(bench_calc 'a / b' a=1 b=4)" = 0.25 ] || fail "calc"

# On a k=4 fat-tree (16 hosts): 3 permutations as 5 experiments (the list
# repeats them), each file a derangement of the hosts.
gen_fat_tree 4 > k4.json
mkdir -p perms
gen_perm_list perms 16 20000 3 5 > perms/list.txt
[ "$(tr '\n' ' ' < perms/list.txt)" = "perm-0.txt perm-1.txt perm-2.txt perm-0.txt perm-1.txt " ] ||
  fail "list: $(tr '\n' ' ' < perms/list.txt)"
[ "$(ls perms | wc -l)" = 4 ] || fail "3 distinct permutation files"
for i in 0 1 2; do
  awk 'NR > 1 { if ($1 == $2 || seen[$2]++) bad = 1; n++ } END { exit (bad || n != 16) }' perms/perm-$i.txt ||
    fail "perm-$i.txt is not a derangement of 16 hosts"
done
cmp -s perms/perm-0.txt perms/perm-1.txt && fail "perm-0 and perm-1 equal"

# Both backends' outputs stand for two runs: the same results run twice
# compare equal (wall_s differs); one counter or one FCT line changed does not.
"$BENCH_MV" net --topology k4.json --flows-from perms/list.txt --set mtu=9000 --json -o a > /dev/null
sed 's/"wall_s":[0-9.e+-]*/"wall_s":123.5/; s/"backend":"cpu"/"backend":"cuda"/' a/summary.jsonl > b.jsonl
[ "$(head -1 b.jsonl | bench_field wall_s)" = 123.5 ] || fail "wall_s not rewritten"
cp -r a b && mv b.jsonl b/summary.jsonl
bench_same a b || fail "same results compared different"
cp -r b c && sed -i '2s/"packet_hops":\([0-9]*\)/"packet_hops":1\1/' c/summary.jsonl
! bench_same a c || fail "a changed packet_hops compared equal"
cp -r b d && sed -i '1s/ [0-9]* \([0-9]*\)$/ 1 \1/' d/fct-3.txt
! bench_same a d || fail "a changed FCT compared equal"
cp -r b e && rm e/fct-4.txt
! bench_same a e || fail "a missing fct file compared equal"
# multiverse collective's lines end with wall_s: it is left out there too.
mkdir -p f g && printf '{"experiment":0,"time_us":1.5,"backend":"cpu","wall_s":0.25}\n' > f/summary.jsonl
printf '{"experiment":0,"time_us":1.5,"backend":"cuda","wall_s":0.75}\n' > g/summary.jsonl
bench_same f g || fail "collective lines differing in wall_s only compared different"
sed -i 's/1.5/1.6/' g/summary.jsonl
! bench_same f g || fail "collective lines with another time compared equal"
bench_net run1 --topology k4.json --flows perms/perm-0.txt
[ "$R_RC" = 0 ] && [ "$R_WORLD" -gt 0 ] && is_num "$R_WALL" || fail "bench_net: rc $R_RC world $R_WORLD wall $R_WALL"

# The CUDA backend's verbose lines, summed over device runs (a split batch).
printf 'world: 9 bytes, 9 per experiment\ncuda: 2048 bytes, upload 0.125 s, 1234 windows (persistent) 0.020 s, download 0.003 s\ncuda: 100 bytes, upload 0.100 s, 12 windows (systems) 1.5 s, download 0.001 s\n' > v.err
[ "$(bench_cuda_sum 's/^cuda: .*upload \([0-9.]*\) s.*/\1/p' v.err)" = 0.225 ] || fail "upload sum"
[ "$(bench_cuda_sum 's/^cuda: .* windows[^,]* \([0-9.]*\) s, download.*/\1/p' v.err)" = 1.520 ] || fail "windows sum"
[ -z "$(bench_cuda_sum 's/^cuda: .*upload \([0-9.]*\) s.*/\1/p' s.jsonl)" ] || fail "sum of nothing"

# --sweep variants: 512 = 64 x 8 distinct parameter sets, each valid.
for cc in dcqcn hpcc; do
  read -ra sw <<< "$(gen_ws_sweep "$cc" 512)"
  [ "${#sw[@]}" = 4 ] || fail "$cc: ${sw[*]}"
  a=$(echo "${sw[1]#*=}" | tr ',' '\n' | sort -u | wc -l) b=$(echo "${sw[3]#*=}" | tr ',' '\n' | sort -u | wc -l)
  [ "$a" = 64 ] && [ "$b" = 8 ] || fail "$cc: $a x $b values"
  read -ra sw <<< "$(gen_ws_sweep "$cc" 3)"
  read -ra opts <<< "$(gen_ns3_params "$cc")"
  "$BENCH_MV" net --topology k4.json --flows perms/perm-0.txt "${opts[@]}" "${sw[@]}" -o "sw-$cc" > /dev/null
  [ "$(wc -l < "sw-$cc/summary.jsonl")" = 3 ] || fail "$cc: 3 variants"
done
# ncu_lines.py (spme_bench.sh ncusrcpool): shares of the SASS page's 100
# samples by source line (b.h:5 is inlined into a.cuh:11, so both count 30)
# and by file, stall reasons issued or not (the "Not Issued" columns left out).
cat > sass.csv << 'CSV'
"Kernel Name","void k(int)",
"Address","Source","Warp Stall Sampling (All Samples)","Warp Stall Sampling (Not-issued Samples)","stall_barrier","stall_long_sb"
"0x10","BAR.SYNC","60","60","60","0"
"0x20","LDG.E R2, [R4]","30","25","0","27"
"0x30","IADD3 R1","10","5","0","-"
CSV
cat > lines.csv << 'CSV'
"File Path","/x/engine/sim/a.cuh"
"Function Name","void k(int)"
"Line No","Source","Address","Source","Warp Stall Sampling (All Samples)","Warp Stall Sampling (Not-issued Samples)","stall_barrier","stall_long_sb","stall_barrier (Not Issued)"
"10","__syncthreads();","-","-","60","60","60","0","55"
"","","0x10","BAR.SYNC","60","60","60","0","55"
"11","x = c->y[i];","-","-","30","25","0","27","0"
"","","0x20","LDG.E R2, [R4]","30","25","0","27","0"
"File Path","/x/engine/sim/b.h"
"Function Name","void k(int)"
"Line No","Source","Address","Source","Warp Stall Sampling (All Samples)","Warp Stall Sampling (Not-issued Samples)","stall_barrier","stall_long_sb","stall_barrier (Not Issued)"
"5","return c->y[i];","-","-","30","25","0","27","0"
"6","int z = 1;","-","-","10","5","0","-","0"
CSV
cat > lines.want << 'TXT'
100 warp samples; the 3 source lines with the most:
   60.0 % a.cuh:10 (barrier 100 %) __syncthreads();
   30.0 % a.cuh:11 (long_sb 90 %) x = c->y[i];
   30.0 % b.h:5 (long_sb 90 %) return c->y[i];
files: a.cuh 90.0 %, b.h 40.0 %
TXT
/usr/bin/python3 "$here/ncu_lines.py" lines.csv sass.csv 3 > lines.got
diff lines.want lines.got || fail "ncu_lines.py"
echo "bench_lib: medians, fields, comparison, generators and ncu_lines.py as expected"
