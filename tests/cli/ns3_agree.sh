#!/usr/bin/env bash
# Agreement with the ns-3 HPCC simulator on the shipped scenarios
# (tests/data/ns3_hpcc): each configuration run by `multiverse net
# --ns3-config` (the preset ns3_hpcc and the configuration's values), its FCT
# file compared flow by flow with ns-3's (tools/ns3_compare.py, matched by
# SIP, DIP, SPORT, DPORT). Asserted: the single flows within 0.5% (they are
# equal to the ns), the incasts' last FCT within 3%, on the 1,777-flow trace
# HPCC >= 95% of flows within +-5% and >= 99% within +-20%, DCQCN >= 88% and
# >= 96% (docs/ns3.md, Agreement: DCQCN's RED marks are random draws in
# both simulators, so its agreement depends on the experiment's seed, 88.9% to
# 92.7% and 96.6% to 97.9% over six seeds; two of our own runs that differ only
# in the seed agree 90.9% / 97.2%). Also: a configuration with keys we do not
# model fails naming them.
# usage: ns3_agree.sh SOURCE_DIR MULTIVERSE WORKDIR
set -euo pipefail
src=$(realpath "$1") mv=$(realpath "$2") work=$3
rm -rf "$work" && mkdir -p "$work" && work=$(realpath "$work")
data=$src/tests/data/ns3_hpcc tool=$src/tools/ns3_compare.py
cd "$data" # ns-3 reads the configuration's paths from the current directory
fail=0
check() { # check NAME CONDITION (awk expression over $0)
  if ! awk "BEGIN { exit !($2) }"; then echo "FAIL: $1 ($2)"; fail=1; fi
}
echo "| case | flows | p5 | median | p95 | within 5% | within 20% | last FCT ours / ns-3 |"
echo "|---|---|---|---|---|---|---|---|"
for cc in dcqcn hpcc; do
  for c in single_pod single_xpod incast8 websearch30; do
    out=$work/${c}_$cc
    mkdir -p "$out"
    sed -e "s|flows/<case>.txt|$c.txt|" -e "s|OUTDIR|$out|" "config/$cc.txt" > "$out/config.txt"
    "$mv" net --ns3-fct-only --ns3-config "$out/config.txt" > "$out/log"
    row=$(/usr/bin/python3 "$tool" "$out/fct.txt" "fct/${c}_$cc.txt" --row --label "$c $cc")
    last_ours=$(sort -k7,7n "$out/fct.txt" | tail -1 | awk '{print $7}')
    last_ns3=$(sort -k7,7n "fct/${c}_$cc.txt" | tail -1 | awk '{print $7}')
    last=$(awk "BEGIN { printf \"%.4f\", $last_ours / $last_ns3 }")
    echo "$row $last |"
    IFS='|' read -r _ _ n p5 _ p95 w5 w20 _ <<< "$row"
    w5=${w5//[ %]/} w20=${w20//[ %]/}
    case $c in
      single_*) check "$c $cc within 0.5%" "$p5 >= 0.995 && $p95 <= 1.005" ;;
      incast8) check "$c $cc last FCT within 3%" "$last >= 0.97 && $last <= 1.03" ;;
      websearch30)
        [ "$n" -eq 1777 ] || { echo "FAIL: $c $cc: $n flows matched"; fail=1; }
        if [ $cc = hpcc ]; then
          check "$c $cc agreement" "$w5 >= 95 && $w20 >= 99"
        else
          check "$c $cc agreement" "$w5 >= 88 && $w20 >= 96"
        fi ;;
    esac
  done
done
# Keys we do not model: one error naming each, nothing run.
sed -e "s|flows/<case>.txt|single_pod.txt|" -e "s|OUTDIR|$work|" \
    -e 's/^MULTI_RATE 0/MULTI_RATE 1/' config/hpcc.txt > "$work/bad.txt"
echo "NO_SUCH_KEY 3" >> "$work/bad.txt"
set +e
msg=$("$mv" net --ns3-fct-only --ns3-config "$work/bad.txt" 2>&1); rc=$?
set -e
[ $rc -eq 2 ] && [ "$msg" = "multiverse net: $work/bad.txt: not supported: NO_SUCH_KEY (unknown), MULTI_RATE 1 (one rate per hop)" ] ||
  { echo "FAIL: rc $rc: $msg"; fail=1; }
[ $fail -eq 0 ] && echo "ns3_agree: every case within its bounds"
exit $fail
