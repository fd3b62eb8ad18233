#!/usr/bin/env bash
# The limits of docs/formats.md "Limits": each input past one exits 2 with one line on
# stderr naming the file and line (or key) and the limit, and writes no output; an
# experiment past one (a link's ring) is invalid, with the link named. Inputs at
# the limits run, exactly.
# usage: net_limits.sh MULTIVERSE WORKDIR
set -uo pipefail
mv=$(realpath "$1") work=$2
rm -rf "$work" && mkdir -p "$work" && cd "$work" || exit 1
fail=0
printf '3 1 2\n2\n0 2 100Gbps 0.001ms 0\n1 2 100Gbps 0.001ms 0\n' > topo.txt
printf '1\n0 1 3 100 4096 0\n' > f

# expect CASE-NAME EXPECTED-SUBSTRING ARGS...: exit 2, one line, no file in out/.
expect() {
  local name=$1 want=$2; shift 2
  rm -rf out
  timeout 60 "$mv" net "$@" -o out > stdout.txt 2> stderr.txt
  local rc=$? lines
  lines=$(wc -l < stderr.txt)
  if [ $rc -ne 2 ] || [ "$lines" -ne 1 ] || ! grep -qF -- "$want" stderr.txt ||
     [ -n "$(find out -type f 2> /dev/null)" ] || [ -s stdout.txt ]; then
    echo "FAIL $name: rc=$rc lines=$lines stderr: $(cat stderr.txt) out: $(ls out 2>&1)"; fail=1
  else
    echo "ok   $name: $(cat stderr.txt)"
  fi
}
# link DELAY RATE: a topology whose first link has that delay and rate.
link() { printf '3 1 2\n2\n0 2 %s %s 0\n1 2 100Gbps 0.001ms 0\n' "$2" "$1"; }

link 10s 100Gbps > t10s.txt
expect "10 s delay" "t10s.txt:3: delay '10s' is more than 1s, the largest delay" --topology t10s.txt --flows f
link 9223372036854775807ps 100Gbps > tmax.txt
expect "int64 ps delay" "tmax.txt:3: delay '9223372036854775807ps' is more than 1s, the largest delay" \
  --topology tmax.txt --flows f
link 10000000000000000000000ps 100Gbps > t1e22.txt
expect "delay past int64" "t1e22.txt:3: delay '10000000000000000000000ps' is more than 1s, the largest delay" \
  --topology t1e22.txt --flows f
link 1us 999Mbps > tslow.txt
expect "rate below 1 Gb/s" "tslow.txt:3: rate '999Mbps' is below 1Gbps, the smallest rate" \
  --topology tslow.txt --flows f
link 1us 1000.001Tbps > tfast.txt
expect "rate above 1 Pb/s" "tfast.txt:3: rate '1000.001Tbps' is above 1000Tbps (1 Pb/s), the largest rate" \
  --topology tfast.txt --flows f
printf '{"kind": "fat_tree", "tiers": 2, "k": 4,\n "link_delay_ns": 1e10}\n' > d.json
expect "JSON 10 s delay" "d.json: link_delay_ns: must be 0.001 to 1e9 ns (1 ps to 1 s), got 1e+10" \
  --topology d.json --flows f
printf '{"topology": {"kind": "fat_tree", "tiers": 2, "k": 4, "link_gbps": 2e6}}\n' > r.json
expect "JSON 2 Pb/s" "r.json: topology.link_gbps: must be 1 to 1e6 Gb/s (1 Gb/s to 1 Pb/s), got 2e+06" \
  --topology r.json --flows f
printf '{"kind": "torus", "dims": [515]}\n' > ring.json
expect "path over 256 hops" "ring.json: the shortest path from node 257 to node 0 has 257 hops: the limit is 256" \
  --topology ring.json --flows f
printf '{"kind": "fat\\ntree"}\n' > nl.json
expect "newline in a quoted value" "nl.json: kind: unknown kind 'fat?tree'" --topology nl.json --flows f

printf '1\n0 1 3 100 4096 4000000\n' > f4e6.txt
expect "start at 4e6 s" "f4e6.txt:2: start time '4000000' is past 1000000 s (1e6), the latest start" \
  --topology topo.txt --flows f4e6.txt
printf '1\n0 1 3 100 4096 9223372.036854\n' > fint64.txt
expect "start at int64 ps" "fint64.txt:2: start time '9223372.036854' is past 1000000 s" \
  --topology topo.txt --flows fint64.txt
printf '1\n0 1 3 100 4096 1e9\n' > f1e9.txt
expect "start at 1e9 s" "f1e9.txt:2: start time '1e9' is past 1000000 s (1e6), the latest start" \
  --topology topo.txt --flows f1e9.txt
printf '1\n0 1 3 100 1099511627777 0\n' > fbig.txt
expect "flow over 1 TiB" "fbig.txt:2: flow size '1099511627777' is not a number of bytes up to 2^40 (1 TiB)" \
  --topology topo.txt --flows fbig.txt
printf '2\n0 1 3 100 4096 0\n1 0 0 100 4096 0\n' > fprio.txt
expect "PRIORITY 0" "fprio.txt:3: priority '0': a data class 1..7 is accepted (ns-3's queue 0 is for control packets)" \
  --topology topo.txt --flows fprio.txt
printf '1\n0 1 3 100 4096 0\000 1 0 3 100\n' > fnul.txt
expect "NUL byte in a flow line" "fnul.txt:2: a NUL byte: this is not a text file" --topology topo.txt --flows fnul.txt
printf '3 1 2\n2\n0 2 100Gbps 0.001ms 0\n1 2 100Gbps\000 0.001ms 0\n' > tnul.txt
expect "NUL byte in a link line" "tnul.txt:4: a NUL byte: this is not a text file" --topology tnul.txt --flows f

expect "ring_cap 2^30" "--set ring_cap: '1073741824' is out of range: 0 (derived) or a power of two up to 134217728 (2^27) packets" \
  --topology topo.txt --flows f --set ring_cap=1073741824

# A limit of one experiment (its parameters with its topology): the experiment is
# invalid, a row of its own with the reason, exit 1, no FCT file.
expect_invalid() {
  local name=$1 want=$2; shift 2
  rm -rf out
  timeout 60 "$mv" net "$@" -o out > stdout.txt 2> stderr.txt
  local rc=$?
  if [ $rc -ne 1 ] || ! grep -qF "\"status\":\"invalid\",\"reason\":\"$want" out/summary.jsonl ||
     ! grep -qF "exp 0 f: invalid: $want" stdout.txt || ls out/fct-* > /dev/null 2>&1; then
    echo "FAIL $name: rc=$rc stdout: $(cat stdout.txt) stderr: $(cat stderr.txt) out: $(ls out 2>&1)"; fail=1
  else
    echo "ok   $name: $(cat stdout.txt)"
  fi
}
link 1s 100Gbps > t1s.txt
expect_invalid "1 s at 100 Gb/s" "link 0 (0-2: 1000000000000 ps at 100000000000 bit/s) can have more than 134217728 packets in flight per direction, the most a link holds" \
  --topology t1s.txt --flows f

# At the limits: 1 s links at 1 Gb/s (large packets keep the rings small), a flow
# starting at 0 and one 10 s before the latest start give the closed-form FCT:
# 2 x (ser(5096 B) + 1 s) for the data, 2 x (ser(1000 B) + 1 s) for its ACK.
printf '3 1 2\n2\n0 2 1Gbps 1s 0\n1 2 1Gbps 1s 0\n' > slow.txt
printf '2\n0 1 3 100 4096 0\n1 0 3 100 4096 999990\n' > edge.txt
want=$(((40768000 + 1000000000000) * 2 + (8000000 + 1000000000000) * 2))
if timeout 60 "$mv" net --topology slow.txt --flows edge.txt --set header=1000 --set ctrl_bytes=1000 \
     --set max_time_s=1e6 -o edge > /dev/null 2> stderr.txt &&
   [ "$(cut -d' ' -f7,8 edge/fct-0.txt | sort -u)" = "$((want / 1000)) $((want / 1000))" ] &&
   [ "$(cut -d' ' -f6 edge/fct-0.txt)" = "$(printf '0\n999990000000000')" ]; then
  echo "ok   limits reached: FCT $((want / 1000)) ns = standalone, at 0 s and at 999990 s"
else
  echo "FAIL limits reached: $(cat stderr.txt) $(cat edge/fct-0.txt 2>&1)"; fail=1
fi
exit $fail
