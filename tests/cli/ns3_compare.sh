#!/usr/bin/env bash
# tools/ns3_compare.py on two hand-made FCT files: the matching by
# (SIP, DIP, SPORT, DPORT), the quantiles, the +-5%/+-20% fractions at their
# exact edges, the outlier list, and one-line errors.
# usage: ns3_compare.sh SOURCE_DIR WORKDIR
set -euo pipefail
tool=$(realpath "$1")/tools/ns3_compare.py work=$2
rm -rf "$work" && mkdir -p "$work" && cd "$work"
# ns-3: five flows of FCT 1000 ns, plus one ours lacks. Ours (another order):
# FCT 1050 (+5.0%, counts), 1201 (+20.1%, does not), 900, 1000, 2000.
cat > ns3.txt <<'X'
0b000001 0b000101 10000 100 5000 2000000000 1000 900
0b000001 0b000201 10000 100 5000 2000000000 1000 900
0b000001 0b000201 10001 100 5000 2000000000 1000 900
0b000101 0b000001 10000 100 5000 2000000000 1000 900
0b000201 0b000001 10000 100 5000 2000000000 1000 900
0b000301 0b000001 10000 100 5000 2000000000 1000 900
X
cat > ours.txt <<'X'
0b000201 0b000001 10000 100 5000 2000000000 2000 900
0b000001 0b000101 10000 100 5000 2000000000 1050 900
0b000001 0b000201 10000 100 5000 2000000000 1201 900
0b000001 0b000201 10001 100 5000 2000000000 900 900
0b000101 0b000001 10000 100 5000 2000000000 1000 900
X
# Ratios 0.9 1.0 1.05 1.201 2.0: p5 = 0.9 + 0.2 x 0.1, median 1.05,
# p95 = 1.201 + 0.8 x 0.799; within 5%: 1.0 and 1.05 (2 of 5); within 20%:
# 0.9, 1.0 and 1.05 (3 of 5).
row=$(/usr/bin/python3 "$tool" ours.txt ns3.txt --row --label t)
[ "$row" = "| t | 5 | 0.920 | 1.050 | 1.840 | 40.0% | 60.0% |" ] || { echo "row: $row"; exit 1; }
out=$(/usr/bin/python3 "$tool" ours.txt ns3.txt --top 1)
grep -q "5 flows matched (0 only in ours, 1 only in ns-3)" <<< "$out"
grep -q "^2->0 sport 10000 dport 100 .* 2000 *1000 *2.000$" <<< "$out"
grep -q "^0->2 sport 10001 dport 100 .* 900 *1000 *0.900$" <<< "$out"
# Errors: one line naming the file and line, status 2.
echo "0b000001 0b000101 10000 100 5000 2000000000" > bad.txt
set +e
msg=$(/usr/bin/python3 "$tool" bad.txt ns3.txt 2>&1); rc=$?
set -e
[ $rc -eq 2 ] && [ "$msg" = "ns3_compare: bad.txt:1: expected 8 columns, got 6" ] || { echo "$rc $msg"; exit 1; }
sed 's/ 5000 / 6000 /' ours.txt > size.txt
set +e
msg=$(/usr/bin/python3 "$tool" size.txt ns3.txt 2>&1); rc=$?
set -e
[ $rc -eq 2 ] && grep -q "size 6000 in size.txt, 5000 in ns3.txt" <<< "$msg" || { echo "$rc $msg"; exit 1; }
echo "ns3_compare: matching, quantiles, tolerance edges and errors as expected"
