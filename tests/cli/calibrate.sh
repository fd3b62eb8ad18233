#!/usr/bin/env bash
# `multiverse calibrate`: nccl-tests logs in, a model file out (one curve per
# GPU type, collective and GPU count, with its points and sources); bad logs
# exit 2 with one line naming file:line and write nothing.
# usage: calibrate.sh MULTIVERSE WORKDIR
set -uo pipefail
mv=$(realpath "$1") work=$2
rm -rf "$work" && mkdir -p "$work" && cd "$work" || exit 1
fail=0

# LOG NAME HOST1 TIME_US...: a 2-GPU all_reduce_perf log (sizes 1, 2, 4 MiB);
# busbw = algbw for 2 ranks.
log() {
  local name=$1 host=$2; shift 2
  {
    echo "# nccl-tests version 2.17.6 nccl-headers=22703 nccl-library=22703"
    echo "# Collective test starting: all_reduce_perf"
    echo "# nThread 1 nGpus 2 minBytes 1048576 maxBytes 4194304 step: 2(factor) warmup iters: 5 iters: 20 agg iters: 1 validation: 1 graph: 0"
    echo "#"
    echo "# Using devices"
    echo "#  Rank  0 Group  0 Pid   4242 on    node001 device  0 [0000:07:00] NVIDIA H200"
    echo "#  Rank  1 Group  0 Pid   4242 on $host device  1 [0000:08:00] NVIDIA H200"
    echo "#"
    echo "#       size         count      type   redop    root     time   algbw   busbw  #wrong     time   algbw   busbw  #wrong"
    local size=1048576
    for t in "$@"; do
      alg=$(awk -v s=$size -v t=$t 'BEGIN { printf "%.2f", s / t / 1000 }')
      printf '%12d  %12d  %8s  %6s  %6d  %7.2f  %6s  %6s  %6d  %7.2f  %6s  %6s  %6d\n' \
        $size $((size / 4)) float sum -1 "$t" "$alg" "$alg" 0 "$t" "$alg" "$alg" 0
      size=$((size * 2))
    done
    echo "# Out of bounds values : 0 OK"
  } > "$name"
}

# Times 10 + bytes / 100 GB/s: one range, alpha 10 us, beta 100 GB/s.
log h200_ar2.log "   node001" 20.49 30.97 51.94
"$mv" calibrate h200_ar2.log -o cal.json > stdout.txt 2> stderr.txt
rc=$?
if [ $rc -eq 0 ] && grep -q '^h200 allreduce 2 GPUs: 3 points, 1 ranges, max error' stdout.txt &&
   grep -q '"gpu": "h200"' cal.json && grep -q '"collective": "allreduce"' cal.json &&
   grep -q '"gpus": 2' cal.json && grep -q '"alpha_us": 10\.0' cal.json &&
   grep -q '"beta_GBps": 100\.0' cal.json && grep -q '"time_us": 30.97' cal.json &&
   grep -q 'h200_ar2.log: NVIDIA H200, 2 ranks, nccl-tests version 2.17.6' cal.json; then
  echo "ok   h200 allreduce 2 GPUs: $(cat stdout.txt)"
else
  echo "FAIL calibrate: rc=$rc $(cat stdout.txt stderr.txt)"; head -30 cal.json; fail=1
fi
"$mv" calibrate h200_ar2.log --gpu h200-sxm -o cal2.json > /dev/null 2>&1 &&
  grep -q '"gpu": "h200-sxm"' cal2.json || { echo "FAIL --gpu"; fail=1; }

# expect CASE-NAME EXPECTED-SUBSTRING ARGS...
expect() {
  local name=$1 want=$2; shift 2
  rm -f out.json
  "$mv" calibrate "$@" -o out.json > stdout.txt 2> stderr.txt
  local rc=$? lines
  lines=$(wc -l < stderr.txt)
  if [ $rc -ne 2 ] || [ "$lines" -ne 1 ] || ! grep -qF -- "$want" stderr.txt || [ -e out.json ]; then
    echo "FAIL $name: rc=$rc lines=$lines stderr: $(cat stderr.txt)"; fail=1
  else
    echo "ok   $name: $(cat stderr.txt)"
  fi
}
log two_hosts.log "   node002" 20.49 30.97 51.94
expect "ranks on two servers" "two_hosts.log: ranks on 2 hosts" two_hosts.log
sed '11s/ 30.97 / 3O.97 /' h200_ar2.log > bad_time.log
expect "a time that is no number" "bad_time.log:11: time, algbw, busbw and #wrong must be numbers" bad_time.log
expect "missing log" "nope.log: cannot open" nope.log
# One size gives no line (it was fitted through the origin: alpha 0, 1 GiB timed out).
log one_size.log "   node001" 20.49
expect "one size" "multiverse calibrate: h200 allreduce 2 GPUs: only 1048576 bytes measured: a model needs two sizes or more (nccl-tests -b and -e)" one_size.log
expect "unknown collective" "--collective allgatherv: unknown collective" h200_ar2.log --collective allgatherv
exit $fail
