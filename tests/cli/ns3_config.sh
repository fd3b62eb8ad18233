#!/usr/bin/env bash
# `multiverse net --ns3-config`: outputs it names and we do not write refused by name
# unless --ns3-fct-only; every value read whole in its range (flags
# exactly 0 or 1), a refused one named by the configuration's file, line and
# key; FCT_OUTPUT_FILE by the output rule (never the configuration, the
# topology or the flow file, whatever its name). Exit 2, nothing written.
# usage: ns3_config.sh MULTIVERSE SRC_DIR WORK
set -euo pipefail
mv=$1 src=$2 work=$3
rm -rf "$work" && mkdir -p "$work" && cd "$work"
fail() { echo "FAIL: $*" >&2; exit 1; }
d=$src/tests/data/ns3_hpcc
cp "$d/topology_fat.txt" "$d/single_pod.txt" .
mkdir out
sed -e 's#flows/<case>.txt#single_pod.txt#' -e 's#OUTDIR/#out/#' "$d/config/dcqcn.txt" > base.cfg

# case "KEY VALUE..." "MESSAGE": base.cfg without KEY, the line appended.
case_() {
  local key=${1%% *} got=0
  grep -v "^$key\b" base.cfg > t.cfg || true
  echo "$1" >> t.cfg
  "$mv" net --ns3-fct-only --ns3-config t.cfg > out.txt 2> err.txt || got=$?
  [ $got = 2 ] || fail "$1: exit $got; $(cat err.txt)"
  [ "$(cat err.txt)" = "multiverse net: $2" ] || fail "$1: $(cat err.txt); expected: $2"
  [ ! -e out/fct.txt ] || fail "$1: wrote out/fct.txt"
}
for kv in "ENABLE_QCN true" "ENABLE_QCN yes" "CLAMP_TARGET_RATE true" "ACK_HIGH_PRIO on" \
  "HAS_WIN 2" "VAR_WIN -0" "FAST_REACT 01"; do
  grep -v "^${kv%% *}\b" base.cfg > t.cfg || true
  m=$(($(wc -l < t.cfg) + 1))
  case_ "$kv" "t.cfg:$m: $kv: expected 0 or 1"
done
m=$(($(grep -vc "^CC_MODE\b" base.cfg) + 1))
case_ "CC_MODE 1.9" "t.cfg:$m: CC_MODE 1.9: expected an integer from 0 to 1000"
case_ "CC_MODE 3abc" "t.cfg:$m: CC_MODE 3abc: expected an integer from 0 to 1000"
m=$(($(grep -vc "^PACKET_PAYLOAD_SIZE\b" base.cfg) + 1))
case_ "PACKET_PAYLOAD_SIZE 1e3" "t.cfg:$m: PACKET_PAYLOAD_SIZE 1e3: expected an integer from 1 to 65000"
case_ "PACKET_PAYLOAD_SIZE" "t.cfg:$m: PACKET_PAYLOAD_SIZE (no value): expected one value"
case_ "PACKET_PAYLOAD_SIZE abc" "t.cfg:$m: PACKET_PAYLOAD_SIZE abc: expected an integer from 1 to 65000"
m=$(($(grep -vc "^LINK_DOWN\b" base.cfg) + 1))
case_ "LINK_DOWN x 1 2" "t.cfg:$m: LINK_DOWN x: expected TIME_NS NODE NODE, whole numbers (0 0 0: no link down)"
m=$(($(grep -vc "^ERROR_RATE_PER_LINK\b" base.cfg) + 1))
case_ "ERROR_RATE_PER_LINK abc" "t.cfg:$m: ERROR_RATE_PER_LINK abc: expected a number from 0 to 1"
m=$(($(grep -vc "^RATE_AI\b" base.cfg) + 1))
case_ "RATE_AI 5Mb/sx" "t.cfg:$m: RATE_AI 5Mb/sx: expected a rate such as 40Mb/s (b/s, Kb/s, Mb/s, Gb/s)"
# Values the parameters refuse: named by the configuration's line and key, not --set.
m=$(($(grep -vc "^SIMULATOR_STOP_TIME\b" base.cfg) + 1))
case_ "SIMULATOR_STOP_TIME 1e400" \
  "t.cfg:$m: SIMULATOR_STOP_TIME 1e400: '1e400' is out of range: more than 0 and at most 1e6 s (as max_time_s)"
m=$(($(grep -vc "^BUFFER_SIZE\b" base.cfg) + 1))
case_ "BUFFER_SIZE 0" \
  "t.cfg:$m: BUFFER_SIZE 0: '0' is out of range: more than 0 and at most 65536 MiB (64 GiB) (as buffer_mb)"
m=$(($(grep -vc "^EWMA_GAIN\b" base.cfg) + 1))
case_ "EWMA_GAIN 2" "t.cfg:$m: EWMA_GAIN 2: '2' is out of range: more than 0 and at most 1 (as dcqcn_g)"
# Files: named by their line.
m=$(($(grep -vc "^TOPOLOGY_FILE\b" base.cfg) + 1))
case_ "TOPOLOGY_FILE nonexist.txt" "t.cfg:$m: TOPOLOGY_FILE nonexist.txt: No such file or directory"
m=$(($(grep -vc "^FCT_OUTPUT_FILE\b" base.cfg) + 1))
case_ "FCT_OUTPUT_FILE nodir/fct.txt" \
  "t.cfg:$m: FCT_OUTPUT_FILE nodir/fct.txt: cannot write in nodir: No such file or directory"
case_ "FCT_OUTPUT_FILE out" "t.cfg:$m: FCT_OUTPUT_FILE out: a folder, not a regular file: give a file's path"
# FCT_OUTPUT_FILE naming an input: the configuration, the flows, the topology (another name).
sum=$(cksum < single_pod.txt)
case_ "FCT_OUTPUT_FILE t.cfg" "t.cfg:$m: FCT_OUTPUT_FILE t.cfg: is an input of this command: give another file"
case_ "FCT_OUTPUT_FILE single_pod.txt" \
  "t.cfg:$m: FCT_OUTPUT_FILE single_pod.txt: is an input of this command: give another file"
ln topology_fat.txt topo_link.txt
case_ "FCT_OUTPUT_FILE topo_link.txt" \
  "t.cfg:$m: FCT_OUTPUT_FILE topo_link.txt: is topology_fat.txt, an input of this command: give another file"
[ "$(cksum < single_pod.txt)" = "$sum" ] || fail "the flow file was changed"
# Without FCT_OUTPUT_FILE, ns-3's default fct.txt: written, but never over a file already there.
grep -v "^FCT_OUTPUT_FILE\b" base.cfg > nofct.cfg
echo "mine" > fct.txt
"$mv" net --ns3-fct-only --ns3-config nofct.cfg > out.txt 2> err.txt && fail "fct.txt was replaced"
[ "$(cat err.txt)" = "multiverse net: nofct.cfg: no FCT_OUTPUT_FILE, and fct.txt (ns-3's default) exists: name the file to write" ] ||
  fail "$(cat err.txt)"
[ "$(cat fct.txt)" = mine ] || fail "fct.txt was changed"
# The documented size limit (it was 128 lines, undocumented): 512 lines with a key.
{ cat base.cfg; for i in $(seq 600); do echo "SIMULATOR_STOP_TIME 4"; done; } > many.cfg
"$mv" net --ns3-config many.cfg > out.txt 2> err.txt && fail "many.cfg ran"
[ "$(cat err.txt)" = "multiverse net: many.cfg:$((512 - $(grep -c . base.cfg) + $(wc -l < base.cfg) + 1)): more than 512 lines with a key" ] ||
  fail "many.cfg: $(cat err.txt)"
# Outputs ns-3 writes and we do not (its trace, PFC log, queue monitor): named, nothing
# run, unless --ns3-fct-only.
"$mv" net --ns3-config base.cfg > out.txt 2> err.txt && fail "base.cfg ran without --ns3-fct-only"
[ "$(cat err.txt)" = "multiverse net: base.cfg: not written here: TRACE_OUTPUT_FILE out/mix.tr (ns-3's packet trace and link settings), PFC_OUTPUT_FILE out/pfc.txt (ns-3's log of PFC pauses), QLEN_MON_FILE out/qlen.txt (ns-3's queue-length histograms); give --ns3-fct-only to run it writing FCT_OUTPUT_FILE alone (docs/ns3.md)" ] ||
  fail "$(cat err.txt)"
[ ! -e out/fct.txt ] || fail "wrote out/fct.txt"
# The good configuration still runs, and writes its FCT file whole.
"$mv" net --ns3-fct-only --ns3-config base.cfg > out.txt || fail "base.cfg"
[ "$(awk '{print $7}' out/fct.txt)" = 91133 ] || fail "base.cfg: $(cat out/fct.txt)"
ls -a out | grep -q mvtmp && fail "a temporary copy was left"
echo "ns3_config: every refusal exact"
