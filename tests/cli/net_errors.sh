#!/usr/bin/env bash
# Bad input never crashes and never passes off partial output: each case exits 2
# with one line on stderr naming the file and line (or key), and writes no FCT
# file. A batch with one timed-out or invalid experiment still completes the
# others and exits 1.
# usage: net_errors.sh MULTIVERSE WORKDIR
set -uo pipefail
mv=$(realpath "$1") work=$2
rm -rf "$work" && mkdir -p "$work" && cd "$work" || exit 1
fail=0
printf '3 1 2\n2\n0 2 100Gbps 0.001ms 0\n1 2 100Gbps 0.001ms 0\n' > topo.txt
printf '1\n0 1 3 100 4096 0\n' > flows.txt

# expect CASE-NAME EXPECTED-SUBSTRING ARGS...
expect() {
  local name=$1 want=$2; shift 2
  rm -rf out
  "$mv" net "$@" -o out > stdout.txt 2> stderr.txt
  local rc=$? lines
  lines=$(wc -l < stderr.txt)
  if [ $rc -ne 2 ] || [ "$lines" -ne 1 ] || ! grep -qF -- "$want" stderr.txt || ls out/fct-* > /dev/null 2>&1; then
    echo "FAIL $name: rc=$rc lines=$lines stderr: $(cat stderr.txt)"; fail=1
  else
    echo "ok   $name: $(cat stderr.txt)"
  fi
}

printf '3 1 2\n2\n0 2 100Gbps 0.001ms 0\n1 7 100Gbps 0.001ms 0\n' > bad_node.txt
expect "link to a missing node" "bad_node.txt:4:" --topology bad_node.txt --flows flows.txt
printf '3 1 2\n2\n0 2 100 0.001ms 0\n1 2 100Gbps 0.001ms 0\n' > bad_rate.txt
expect "rate without unit" "bad_rate.txt:3:" --topology bad_rate.txt --flows flows.txt
printf '3 1 2\n2\n0 2 100Gbps 0ms 0\n1 2 100Gbps 0.001ms 0\n' > bad_delay.txt
expect "delay of 0" "bad_delay.txt:3: delay must be > 0" --topology bad_delay.txt --flows flows.txt
printf '1\n0 2 3 100 4096 0\n' > to_switch.txt
expect "flow to a switch" "to_switch.txt:2:" --topology topo.txt --flows to_switch.txt
printf '1\n0 1 3 100 0 0\n' > zero.txt
expect "zero-size flow" "zero.txt:2: flow size must be > 0" --topology topo.txt --flows zero.txt
printf '4 1 2\n2\n0 2 100Gbps 0.001ms 0\n1 2 100Gbps 0.001ms 0\n' > island.txt
printf '1\n0 3 3 100 4096 0\n' > unreachable.txt
expect "unreachable destination" "unreachable.txt:2:" --topology island.txt --flows unreachable.txt
printf '2\n0 1 3 100 4096 0\n' > short.txt
expect "fewer lines than the count" "short.txt:" --topology topo.txt --flows short.txt
expect "missing flow file" "nope.txt" --topology topo.txt --flows nope.txt
printf '{"kind": "fat_tree",\n "k": 5}\n' > k5.json
expect "bad topology key" "k5.json" --topology k5.json --flows flows.txt
printf '{"kind": "torus",\n "dims": [2,2\n' > broken.json
expect "broken JSON" "broken.json:3:" --topology broken.json --flows flows.txt
expect "unknown --set key" "unknown key 'bogus'" --topology topo.txt --flows flows.txt --set bogus=1
expect "bad --set value" "lb: unknown load balancing 'magic'" --topology topo.txt --flows flows.txt --set lb=magic
expect "unknown option" "unknown option --frobnicate" --topology topo.txt --flows flows.txt --frobnicate 1
expect "unknown backend" "multiverse net: --backend gpu: expected cpu or cuda" --topology topo.txt --flows flows.txt --backend gpu

expect "trace of unlinked nodes" "--trace-queues 0:1" --topology topo.txt --flows flows.txt --trace-queues 0:1
expect "trace of a missing flow" "--trace-rates 5" --topology topo.txt --flows flows.txt --trace-rates 5
expect "bad cc preset" "cc: unknown congestion control 'tcp' (none, dcqcn_mlx" --topology topo.txt --flows flows.txt --set cc=tcp

# A good run: every documented summary key, and a trace with its columns.
"$mv" net --topology topo.txt --flows flows.txt --set cc=hpcc --trace-rates 0 --trace-queues 2:1 --trace-every-us 1 -o good > /dev/null 2> stderr.txt
for key in experiment flows_file experiment_id status reason flows flows_done bytes max_fct_ns p99_fct_ns \
    mean_fct_ns drops pfc_pauses ecn_marks retransmits timeouts packet_hops sim_end_ns windows backend \
    wall_s packet_hops_per_s cnps retx_bytes paused_ns tiers max_queue_bytes mean_util max_util \
    p50_slowdown p99_slowdown mean_slowdown; do
  grep -q "\"$key\":" good/summary.jsonl || { echo "FAIL summary key $key missing"; fail=1; }
done
# A flow alone: its FCT is its standalone FCT.
grep -q '"p50_slowdown":1.0,"p99_slowdown":1.0,"mean_slowdown":1.0' good/summary.jsonl ||
  { echo "FAIL slowdown of a lone flow: $(cat good/summary.jsonl)"; fail=1; }
if [ "$(head -1 good/trace-0.csv)" = "time_us,flow0_delivered_bytes,flow0_cc,queue_2_1_bytes" ] &&
   [ "$(tail -1 good/trace-0.csv | cut -d, -f2)" = 4096 ] &&
   [ "$(tail -1 good/trace-0.csv | cut -d, -f3)" = 100000000000 ]; then
  echo "ok   summary keys and trace columns"
else
  echo "FAIL trace: $(head -2 good/trace-0.csv) $(cat stderr.txt)"; fail=1
fi

# One experiment times out (a 4 MB flow under a 100 us limit), the other is ok.
printf '1\n0 1 3 100 4000000 0\n' > long.txt
"$mv" net --topology topo.txt --flows flows.txt --flows long.txt --set max_time_s=0.0001 -o out > stdout.txt 2> stderr.txt
rc=$?
if [ $rc -eq 1 ] && [ -s out/fct-0.txt ] && [ -e out/fct-1.partial.txt ] && [ ! -e out/fct-1.txt ] &&
   grep -q '"status":"timed_out"' out/summary.jsonl && grep -q '"status":"ok"' out/summary.jsonl; then
  echo "ok   timed-out experiment: exit 1, the other's fct-0.txt complete, fct-1.partial.txt"
else
  echo "FAIL timed-out experiment: rc=$rc $(ls out) $(cat stderr.txt)"; fail=1
fi
# --help is not an error.
if "$mv" net --help > stdout.txt 2> stderr.txt && head -1 stdout.txt | grep -q '^usage: multiverse net' && [ ! -s stderr.txt ]; then
  echo "ok   --help: usage on stdout, exit 0"
else
  echo "FAIL --help: $(cat stdout.txt stderr.txt)"; fail=1
fi

# An experiment the engine cannot take is an invalid row; the others run.
printf '1\n0 1 3 100 1099511627776 0\n' > huge.txt
"$mv" net --topology topo.txt --flows flows.txt --flows huge.txt --set mtu=64 -o inv > stdout.txt 2> stderr.txt
rc=$?
if [ $rc -eq 1 ] && [ -s inv/fct-0.txt ] && ! ls inv/fct-1* > /dev/null 2>&1 && [ ! -s stderr.txt ] &&
   grep -q '"experiment":1,.*"status":"invalid","reason":"flow on line 2: 1099511627776 bytes are more than 2^31 packets of mtu 64 (raise mtu)"' inv/summary.jsonl &&
   grep -q '^exp 1 huge.txt: invalid: flow on line 2: 1099511627776 bytes are more than 2^31 packets' stdout.txt &&
   grep -q '"experiment":0,.*"status":"ok"' inv/summary.jsonl; then
  echo "ok   oversized flow: exit 1, an invalid row, the other experiment complete"
else
  echo "FAIL oversized flow: rc=$rc $(ls inv) $(cat stdout.txt stderr.txt)"; fail=1
fi

# One invalid combination of a sweep is one invalid row (each value is in its
# key's range, 1 to 65000, but with the 62-byte header 64990 makes packets too
# large).
"$mv" net --topology topo.txt --flows flows.txt --sweep mtu=4096,64990,1000 -o sw > stdout.txt 2> stderr.txt
rc=$?
if [ $rc -eq 1 ] && [ -s sw/fct-0.txt ] && [ -s sw/fct-2.txt ] && ! ls sw/fct-1* > /dev/null 2>&1 &&
   grep -q '^exp 1 flows.txt \[mtu=64990\]: invalid: mtu: must be 1..65000-header bytes$' stdout.txt &&
   [ "$(grep -c '"status":"ok"' sw/summary.jsonl)" -eq 2 ]; then
  echo "ok   invalid sweep combination: exit 1, its row invalid, the others ok"
else
  echo "FAIL invalid sweep combination: rc=$rc $(cat stdout.txt stderr.txt)"; fail=1
fi
exit $fail
