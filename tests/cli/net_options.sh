#!/usr/bin/env bash
# Options parsed strictly and output folders that cannot mislead (docs/cli.md: Option values,
# Output folders): every row of the hardening issue's table as a case. A refused
# option exits 2 with one line naming the option or key and its range, before
# anything runs, and leaves no output folder; a run into a folder holding an
# earlier one is refused unless --force, which clears only what multiverse wrote;
# an interrupted run says so and leaves INCOMPLETE.
# usage: net_options.sh MULTIVERSE WORKDIR
set -uo pipefail
mv=$(realpath "$1") work=$2
rm -rf "$work" && mkdir -p "$work" && cd "$work" || exit 1
fail=0
printf '3 1 2\n2\n0 2 100Gbps 0.001ms 0\n1 2 100Gbps 0.001ms 0\n' > topo.txt
printf '1\n0 1 3 100 4096 0\n' > f
printf '1\n0 1 3 100 1099511627776 0\n' > big # 1 TiB: minutes of simulation
ok() { echo "ok   $1"; }
bad() { echo "FAIL $1"; fail=1; }

# refused NAME WANT CMD ARGS...: exit 2, one line on stderr holding WANT, nothing
# on stdout, no folder `out`, within 20 s (before any simulation: `big` runs for
# minutes).
refused() {
  local name=$1 want=$2; shift 2
  rm -rf out
  timeout 20 "$mv" "$@" > stdout.txt 2> stderr.txt
  local rc=$? lines
  lines=$(wc -l < stderr.txt)
  if [ $rc -ne 2 ] || [ "$lines" -ne 1 ] || ! grep -qF -- "$want" stderr.txt || [ -s stdout.txt ] ||
     [ -e out ]; then
    bad "$name: rc=$rc lines=$lines stderr: $(cat stderr.txt) out: $(ls -A out 2>&1)"
  else
    ok "$name: $(cat stderr.txt)"
  fi
}
net=(net --topology topo.txt --flows big -o out)

# --threads 100000 crashed the OpenMP runtime; 2abc was read as 2.
refused "--threads 100000" "multiverse net: --threads 100000: expected an integer from 1 to 1024" "${net[@]}" --threads 100000
refused "--threads 2abc" "multiverse net: --threads 2abc: expected an integer from 1 to 1024" "${net[@]}" --threads 2abc
refused "--threads ' 2'" "--threads  2: expected an integer" "${net[@]}" --threads ' 2'
refused "collective --threads 100000" "multiverse collective: --threads 100000: expected an integer from 1 to 1024" \
  collective --op allreduce --bytes 1M --gpus 16 --threads 100000
refused "collective --nic-gbps 100x" "multiverse collective: --nic-gbps 100x: expected a number from 1 to 1e+06 Gb/s" \
  collective --op allreduce --bytes 1M --gpus 16 --nic-gbps 100x
# multiverse run and plan share the rule (1e300 was cast to int before its check).
refused "plan --threads 100000" "multiverse plan: --threads 100000: expected an integer from 1 to 1024" \
  plan job.json --threads 100000
refused "plan --max-batch 1e300" "multiverse plan: --max-batch 1e300: expected an integer from 1 to 1000000" \
  plan job.json --max-batch 1e300
refused "plan --memory inf" "multiverse plan: --memory inf: expected a number from 0.001 to 1e+06 GiB" \
  plan job.json --memory inf
# A collective of 2^62 bytes printed time 0, algbw inf, status ok (the model's
# time wrapped): sizes stop at 1 TiB, a flow's most.
refused "collective --bytes 2^62" "multiverse collective: --bytes 4611686018427387904: expected sizes like 1M,16M,1G or MIN:MAX (1 byte to 1T" \
  collective --op allreduce --bytes 4611686018427387904 --gpus 8
# --trace-exp abc was read as 0, --trace-queues 2: as 2:0.
refused "--trace-exp abc" "multiverse net: --trace-exp abc: expected an integer from 0 to 999999" "${net[@]}" --trace-rates 0 --trace-exp abc
refused "--trace-queues 2:" "multiverse net: --trace-queues 2:: expected NODE:PEER pairs of linked nodes" "${net[@]}" --trace-queues 2:
refused "--trace-rates 0," "multiverse net: --trace-rates 0,: expected flow indices 0..0" "${net[@]}" --trace-rates 0,
refused "--trace-exp without a trace" "--trace-exp and --trace-every-us need --trace-rates or --trace-queues" "${net[@]}" --trace-exp 0
# --trace-every-us 1e-7 gave no trace file, 1e300 one without rows.
for us in 1e-7 1e300 0.0000015 -1; do
  refused "--trace-every-us $us" "multiverse net: --trace-every-us $us: expected a time from 0.000001 to 1e12 us (1 ps to 1e6 s, whole ps)" \
    "${net[@]}" --trace-rates 0 --trace-every-us "$us"
done

# Out-of-range parameters were accepted as "derived" or cut; now the key and its range.
refused "ecn_kmax_kb=1e17" "multiverse: --set ecn_kmax_kb: '1e17' is out of range: -1 (by port speed) or 0 to 2097152 KiB (2 GiB)" \
  "${net[@]}" --set ecn_kmax_kb=1e17
refused "ecn_pmax=-0.5" "multiverse: --set ecn_pmax: '-0.5' is out of range: -1 (by port speed) or 0 to 1" "${net[@]}" --set ecn_pmax=-0.5
refused "ecn_kmin_kb=-7" "multiverse: --set ecn_kmin_kb: '-7' is out of range: -1 (by port speed) or 0 to 2097152 KiB (2 GiB)" \
  "${net[@]}" --set ecn_kmin_kb=-7
refused "buffer_mb=1e20" "multiverse: --set buffer_mb: '1e20' is out of range: more than 0 and at most 65536 MiB (64 GiB)" \
  "${net[@]}" --set buffer_mb=1e20
refused "host_slots=2e9" "multiverse: --set host_slots: '2e9' is out of range: 1 to 65536 packets" "${net[@]}" --set host_slots=2e9
refused "ring_cap=2^30" "multiverse: --set ring_cap: '1073741824' is out of range: 0 (derived) or a power of two up to 134217728 (2^27) packets" \
  "${net[@]}" --set ring_cap=1073741824
refused "rto_us past 1e5 s" "multiverse: --set rto_us: '2e11' is out of range: more than 0 and at most 1e11 us (1e5 s)" \
  "${net[@]}" --set rto_us=2e11
refused "a swept value out of range" "multiverse net: --sweep dcqcn_rate_inc_timer_us=1e12: '1e12' is out of range" \
  "${net[@]}" --set cc=dcqcn --sweep dcqcn_rate_inc_timer_us=300,1e12
refused "an out-of-range key of another cc" "multiverse: --set hpcc_eta: '5' is out of range: more than 0 and at most 1" \
  "${net[@]}" --set hpcc_eta=5 --sweep cc=dcqcn,hpcc

# A repeated --sweep key ran 4 experiments, 2 distinct, the JSON keeping the last.
refused "--sweep mtu twice" "multiverse net: --sweep mtu is given twice: give each key once" \
  "${net[@]}" --sweep mtu=1000,2000 --sweep mtu=3000,4000
refused "a value twice" "multiverse net: --sweep mtu: the value 2000 is given twice" "${net[@]}" --sweep mtu=1000,2000,2000
refused "an empty value" "multiverse net: --sweep mtu: value 2 of 3 is empty" "${net[@]}" --sweep mtu=1000,,2000
refused "--set mtu twice" "multiverse net: --set mtu is given twice: give each key once" "${net[@]}" --set mtu=1000 --set mtu=2000
refused "collective --sweep cc twice" "multiverse collective: --sweep cc is given twice" \
  collective --op allreduce --bytes 1M --gpus 16 --sweep cc=none --sweep cc=dcqcn

# A --sweep list longer than 1,023 characters was cut: 301 values ran as 205.
list=$(seq -s, 100 400)
rm -rf long
"$mv" net --topology topo.txt --flows f --sweep "mtu=$list" -o long > /dev/null 2> stderr.txt
rc=$?
if [ $rc -eq 0 ] && [ "$(wc -l < long/summary.jsonl)" -eq 301 ] && [ "${#list}" -gt 1023 ] &&
   tail -1 long/summary.jsonl | grep -q '"experiment":300,.*"sweep":{"mtu":"400"}'; then
  ok "--sweep of 301 values (${#list} characters): 301 experiments, the last mtu=400"
else
  bad "--sweep of 301 values: rc=$rc $(cat stderr.txt) $(wc -l < long/summary.jsonl)"
fi
refused "the 301st value out of range" "multiverse net: --sweep mtu=70000: '70000' is out of range: 1 to 65000 bytes" \
  "${net[@]}" --sweep "mtu=$(seq -s, 100 399),70000"

# --set hpcc_eta=0.5 --set cc=hpcc dropped 0.5: the preset applied later won.
# Now cc applies first: both orders are the same experiment (its id hashes every
# parameter), not the preset's eta.
exp_id() { rm -rf "$1"; "$mv" net --topology topo.txt --flows f "${@:2}" --json -o "$1" | sed 's/.*"experiment_id":"\([0-9a-f]*\)".*/\1/'; }
a=$(exp_id ida --set hpcc_eta=0.5 --set cc=hpcc) b=$(exp_id idb --set cc=hpcc --set hpcc_eta=0.5)
c=$(exp_id idc --set cc=hpcc) d=$(exp_id idd --sweep cc=hpcc,dcqcn --set hpcc_eta=0.5 | head -1)
if [ -n "$a" ] && [ "$a" = "$b" ] && [ "$a" = "$d" ] && [ "$a" != "$c" ]; then
  ok "hpcc_eta=0.5 before or after cc=hpcc, or with --sweep cc: one experiment ($a), not the preset's ($c)"
else
  bad "preset order: $a $b $c $d"
fi

# -o naming a file, /dev/null or a folder that cannot be written: the error came
# after the whole simulation; now before it (`big` would run for minutes).
touch afile
refused "-o a file" "multiverse net: -o afile: not a folder: give a folder for the results" \
  net --topology topo.txt --flows big -o afile
refused "-o /dev/null" "multiverse net: -o /dev/null: not a folder" net --topology topo.txt --flows big -o /dev/null
refused "-o in a missing folder" "multiverse net: -o nope/out: cannot create it in nope: No such file or directory" \
  net --topology topo.txt --flows big -o nope/out
refused "-o where nothing can be made" "multiverse net: -o /proc/mv-out: cannot create it in /proc:" \
  net --topology topo.txt --flows big -o /proc/mv-out
if [ "$(id -u)" != 0 ]; then # root writes anywhere
  mkdir -p ro && chmod 555 ro
  refused "-o a read-only folder" "multiverse net: -o ro: cannot write in it: Permission denied" \
    net --topology topo.txt --flows big -o ro
  chmod 755 ro
fi
refused "calibrate -o /dev/null" "multiverse calibrate: -o /dev/null: a device, not a regular file: give a file's path" calibrate x.log -o /dev/null

# A folder holding an earlier run: old fct-N.txt stayed beside the new ones.
rm -rf run
"$mv" net --topology topo.txt --flows f --flows f --flows f -o run > /dev/null
cp run/fct-2.txt before.txt
refused "-o an earlier run" "multiverse net: -o run: holds an earlier run" net --topology topo.txt --flows big -o run
if cmp -s before.txt run/fct-2.txt; then ok "the earlier run untouched"; else bad "the earlier run changed"; fi
"$mv" net --topology topo.txt --flows f --force -o run > /dev/null 2> stderr.txt
if [ "$(ls -A run | tr '\n' ' ')" = ".multiverse-run fct-0.txt summary.jsonl " ] &&
   [ "$(wc -l < run/summary.jsonl)" -eq 1 ] && grep -q -- "--flows f --force -o run" run/.multiverse-run; then
  ok "--force: the earlier 3 experiments' files gone, 1 experiment's in place, the marker names the command"
else
  bad "--force: $(ls -A run) $(cat stderr.txt)"
fi
touch run/notes.txt
refused "--force with a file multiverse did not write" \
  "multiverse net: -o run: --force clears only what multiverse wrote, and it holds notes.txt" \
  net --topology topo.txt --flows big --force -o run
if [ -e run/notes.txt ] && [ -e run/fct-0.txt ]; then ok "notes.txt and the run kept"; else bad "files removed: $(ls -A run)"; fi
# An earlier run is known by its files too (a run of an earlier version).
rm -rf old && mkdir old && touch old/fct-7.partial.txt
refused "-o an earlier run without its marker" "multiverse net: -o old: holds an earlier run (fct-7.partial.txt)" \
  net --topology topo.txt --flows big -o old
# A folder with other files and no earlier run takes the results beside them.
rm -rf mixed && mkdir mixed && touch mixed/notes.txt
if "$mv" net --topology topo.txt --flows f -o mixed > /dev/null && [ -s mixed/fct-0.txt ] && [ -e mixed/notes.txt ] &&
   [ ! -e mixed/INCOMPLETE ] && [ ! -e mixed/.multiverse-stage ]; then
  ok "a folder without an earlier run: results beside its files, no INCOMPLETE, no stage left"
else
  bad "mixed folder: $(ls -A mixed)"
fi

# Interrupted (SIGINT, SIGTERM): one line on stderr, INCOMPLETE says so, exit
# 130/143, no result file in the folder (they are staged until complete).
for sig in INT TERM; do
  rm -rf int
  "$mv" net --topology topo.txt --flows big --threads 1 -o int > /dev/null 2> stderr.txt &
  pid=$!
  for _ in $(seq 100); do [ -e int/INCOMPLETE ] && break; sleep 0.1; done
  sleep 0.5
  kill -s "$sig" "$pid"
  wait "$pid"
  rc=$? want=$([ $sig = INT ] && echo 130 || echo 143)
  if [ $rc -eq "$want" ] && [ "$(wc -l < stderr.txt)" -eq 1 ] &&
     grep -qF "multiverse net: interrupted (SIG$sig): the results in int are incomplete (int/INCOMPLETE)" stderr.txt &&
     grep -q "^interrupted by SIG$sig$" int/INCOMPLETE && ! ls int/fct-* int/summary.jsonl > /dev/null 2>&1; then
    ok "SIG$sig: exit $rc, $(cat stderr.txt)"
  else
    bad "SIG$sig: rc=$rc $(cat stderr.txt) $(ls -A int)"
  fi
done
refused "-o an interrupted run" "multiverse net: -o int: holds an earlier run" net --topology topo.txt --flows big -o int
if "$mv" net --topology topo.txt --flows f --force -o int > /dev/null &&
   [ "$(ls -A int | tr '\n' ' ')" = ".multiverse-run fct-0.txt summary.jsonl " ]; then
  ok "--force over an interrupted run: INCOMPLETE and the stage cleared"
else
  bad "--force over an interrupted run: $(ls -A int)"
fi

# A batch the engine cannot build (every experiment invalid is not that: it has
# rows) leaves no folder; a 1 s link at 100 Gb/s is an invalid row with its reason.
printf '3 1 2\n2\n0 2 100Gbps 1s 0\n1 2 100Gbps 0.001ms 0\n' > t1s.txt
rm -rf slow
"$mv" net --topology t1s.txt --flows f -o slow > stdout.txt 2> stderr.txt
rc=$?
if [ $rc -eq 1 ] && grep -q '"status":"invalid","reason":"link 0 (0-2: 1000000000000 ps at 100000000000 bit/s) can have more than 134217728 packets' slow/summary.jsonl &&
   ! grep -q "split" stdout.txt stderr.txt; then
  ok "1 s at 100 Gb/s: an invalid row naming the link, exit 1"
else
  bad "1 s at 100 Gb/s: rc=$rc $(cat stdout.txt stderr.txt)"
fi
exit $fail
