#!/usr/bin/env bash
# The peers' own files, unchanged (tests/data/peers, README there), through the
# command line: the HPCC repository's mix/topology.txt and mix/flow.txt with the
# lines ns-3 never reads (counted on stderr); a matrix from csg-htsim's
# gen_serialn_alltoall_prio.py, whose `prio` htsim's RoCE ignores: the same FCTs as
# without it, also with traffic classes on; a SimAI topology file.
# usage: peers.sh MULTIVERSE WORKDIR
set -uo pipefail
mv=$(realpath "$1") work=$2 data=$(cd "$(dirname "$0")/../data/peers" && pwd)
rm -rf "$work" && mkdir -p "$work" && cd "$work" || exit 1
fail=0

"$mv" net --topology "$data/hpcc/mix/topology.txt" --flows "$data/hpcc/mix/flow.txt" -o mix \
  > stdout.txt 2> stderr.txt
rc=$?
if [ $rc -eq 0 ] && grep -q "topology.txt: 196 lines after the 65 links announced ignored" stderr.txt &&
   grep -q "flow.txt: 259 lines after the 2 flows announced ignored" stderr.txt &&
   grep -q "ok flows=2 bytes=400000000 " stdout.txt && [ "$(wc -l < mix/fct-0.txt)" -eq 2 ]; then
  echo "ok   HPCC mix/topology.txt and mix/flow.txt: 65 links, 2 flows, the rest ignored as ns-3 does"
else
  echo "FAIL HPCC mix: rc=$rc $(cat stdout.txt stderr.txt)"; fail=1
fi

echo '{"kind":"fat_tree","tiers":2,"k":8,"link_gbps":100,"link_delay_ns":1000}' > ft.json
sed 's/ prio [0-9]*//' "$data/htsim/serialn_alltoall_prio_16.cm" > noprio.cm
"$mv" net --topology ft.json --flows "$data/htsim/serialn_alltoall_prio_16.cm" --flows noprio.cm \
  --set classes=true -o prio > stdout.txt 2> stderr.txt
rc=$?
a=$(sed -n 1p stdout.txt | sed 's/^exp 0 [^:]*: //; s/ wall=.*//')
b=$(sed -n 2p stdout.txt | sed 's/^exp 1 [^:]*: //; s/ wall=.*//')
if [ $rc -eq 0 ] && [ "$a" = "$b" ] && [[ $a == "ok flows=240 "* ]] &&
   [ "$(grep -o 'prio [0-9]*' "$data/htsim/serialn_alltoall_prio_16.cm" | sort -u | wc -l)" -eq 8 ] &&
   cmp -s prio/fct-0.txt prio/fct-1.txt; then
  echo "ok   htsim prio 1..8 read and ignored, as htsim's RoCE does: $a"
else
  echo "FAIL htsim prio: rc=$rc [$a] [$b] $(cat stderr.txt)"; fail=1
fi
# A SimAI topology (gen_Topo_Template.py, DCN+ with one ToR): GPU 0 to GPU 1 of its
# server over the NVSwitch at 2880 Gb/s (1 MB: 2.931 us), to GPU 9 of the other server
# through the ToR at 400 Gb/s.
printf '2\n0 1 3 100 1000000 0\n0 9 3 100 1000000 0\n' > two.txt
"$mv" net --topology "$data/simai/DCN+SingleToR_16g_8gps_400Gbps_H100" --flows two.txt -o simai \
  > stdout.txt 2> stderr.txt
rc=$?
if [ $rc -eq 0 ] && [ "$(cut -d' ' -f2,7 simai/fct-0.txt | tr '\n' ' ')" = "0b000101 2931 0b000901 22389 " ]; then
  echo "ok   SimAI topology: NVLink inside the server (2931 ns), the network between servers"
else
  echo "FAIL SimAI topology: rc=$rc $(cat stdout.txt stderr.txt simai/fct-0.txt)"; fail=1
fi
# htsim's long-lived flows (size 0) run until the experiment's end, which must be given
# (htsim's -end). One alone on an idle path (cc none, 100 Gb/s, two links of 1 us):
# its packets arrive every D = 332.64 ns after the first at 2 D + 2 us, so by 100 us
# the receiver holds 293 of 4096 bytes. htsim's own EXAMPLES incast: 64 of them into
# one 100 Gb/s link deliver at most its rate.
echo '{"kind":"fat_tree","tiers":2,"k":4,"link_gbps":100,"link_delay_ns":1000}' > ls.json
printf 'Nodes 8\nConnections 1\n0->1 start 0 size 0\n' > one.cm
"$mv" net --topology ls.json --flows one.cm -o open0 > stdout.txt 2> stderr.txt
rc0=$?
"$mv" net --topology ls.json --flows one.cm --set max_time_s=0.0001 --set cc=none -o open1 \
  > stdout.txt 2> stderr.txt
rc1=$?
if [ $rc0 -eq 2 ] && [ $rc1 -eq 0 ] && grep -q "ok flows=1 bytes=0 " stdout.txt &&
   grep -q " open=1 open_bytes=1200128 " stdout.txt &&
   [ "$(cut -d' ' -f5-7 open1/open-0.txt)" = "1200128 0 100000" ]; then
  echo "ok   a long-lived flow: 293 packets by its end (100 us), in open-0.txt"
else
  echo "FAIL long-lived flow: rc=$rc0 $rc1 $(cat stdout.txt stderr.txt)"; fail=1
fi
echo '{"kind":"fat_tree","tiers":3,"k":12,"link_gbps":100,"link_delay_ns":1000}' > ft12.json
"$mv" net --topology ft12.json --flows "$data/htsim/incast.cm" --set max_time_s=0.0002 -o incast \
  > stdout.txt 2> stderr.txt
rc=$?
got=$(awk '{b += $5} END {print b}' incast/open-0.txt)
if [ $rc -eq 0 ] && grep -q "ok flows=64 bytes=0 .* open=64 open_bytes=$got " stdout.txt &&
   [ "$(wc -l < incast/open-0.txt)" -eq 64 ] && [ "$got" -gt 2000000 ] &&
   [ "$got" -le $((100000000000 / 8 * 200 / 1000000 * 4096 / 4158)) ]; then
  echo "ok   htsim EXAMPLES/collateral/incast.cm: 64 long-lived flows deliver $got bytes in 200 us"
else
  echo "FAIL htsim incast: rc=$rc $(cat stdout.txt stderr.txt)"; fail=1
fi
# The HPCC repository's own mix/config.txt (run where ns-3 runs it, above mix/): the
# outputs it names and we do not write are refused by name; with --ns3-fct-only its two
# flows run and mix/fct.txt is written.
cp -r "$data/hpcc/mix" .
"$mv" net --ns3-config mix/config.txt > stdout.txt 2> stderr.txt
rc0=$?
"$mv" net --ns3-config mix/config.txt --ns3-fct-only > stdout.txt 2> stderr1.txt
rc1=$?
if [ $rc0 -eq 2 ] &&
   grep -q "mix/config.txt: not written here: TRACE_OUTPUT_FILE mix/mix.tr (ns-3's packet trace and link settings), PFC_OUTPUT_FILE mix/pfc.txt (ns-3's log of PFC pauses), QLEN_MON_FILE mix/qlen.txt" stderr.txt &&
   [ $rc1 -eq 0 ] && grep -q "ok flows=2 bytes=400000000 " stdout.txt && [ "$(wc -l < mix/fct.txt)" -eq 2 ]; then
  echo "ok   HPCC mix/config.txt: its unwritten outputs named; with --ns3-fct-only its 2 flows"
else
  echo "FAIL HPCC config: rc=$rc0 $rc1 $(cat stderr.txt stdout.txt stderr1.txt)"; fail=1
fi

# The configurations the HPCC repository's simulation/run.py writes (python 2.7,
# unchanged: --topo fat --trace flow --bw 100 --cc X): HPCC and the three DCQCN
# variants run its two 200 MB flows into one host of mix/fat.txt (at most the 100 Gb/s
# link: >= 32 ms); DCTCP (8), TIMELY (7) and HPCC-PINT (10) are refused by name.
ok=1
for c in hp95 dcqcn dcqcn_paper dcqcn_vwin; do
  "$mv" net --ns3-config mix/config_fat_flow_$c.txt --ns3-fct-only > stdout.txt 2> stderr.txt ||
    ok=0
  fct=$(grep -o 'max_fct=[0-9]*' stdout.txt | cut -d= -f2)
  { grep -q "ok flows=2 bytes=400000000 " stdout.txt && [ "${fct:-0}" -ge 32000000 ] &&
    [ "$fct" -le 40000000 ] && [ "$(wc -l < mix/fct_fat_flow_$c.txt)" -eq 2 ]; } || ok=0
  echo "  run.py $c: max_fct=$fct ns"
done
for c in dctcp:8 timely:7 hpccPint95log1.010p1.000:10; do
  "$mv" net --ns3-config mix/config_fat_flow_${c%:*}.txt --ns3-fct-only > stdout.txt 2> stderr.txt
  [ $? -eq 2 ] && [ "$(cat stderr.txt)" = "multiverse net: mix/config_fat_flow_${c%:*}.txt: not supported: CC_MODE (7 TIMELY, 8 DCTCP and 10 HPCC-PINT: not modelled)" ] &&
    grep -qx "CC_MODE ${c#*:}" mix/config_fat_flow_${c%:*}.txt || ok=0
done
if [ $ok -eq 1 ]; then
  echo "ok   HPCC run.py's configurations: hp95 and 3 DCQCN run, DCTCP/TIMELY/HPCC-PINT refused by name"
else
  echo "FAIL HPCC run.py configurations: $(cat stdout.txt stderr.txt)"; fail=1
fi

# SimAI's SimAI.conf: for net, with the topology SimAI takes on its command line and a flow
# file; in a training job (network.ns3_config) its keys give the parameters the same
# run gets from them written as keys (DCQCN, the ns3_hpcc preset, 9000-byte payload).
sed 's#^FCT_OUTPUT_FILE .*#FCT_OUTPUT_FILE simai_fct.txt#' "$data/simai/SimAI.conf" > simai.conf
printf '1\n0 1 3 100 1000000 0\n' > one.txt
topo="$data/simai/Spectrum-X_8g_8gps_400Gbps_H100"
"$mv" net --ns3-config simai.conf --ns3-fct-only --topology "$topo" --flows one.txt > stdout.txt 2> stderr.txt
rc=$?
job() {
  echo "{\"name\": \"s\", \"base\": {\"workload\": {\"file\": \"$data/simai/microAllReduce.txt\"},
    \"cluster\": {\"gpu\": \"h100-sxm\", \"servers\": 1, \"gpus_per_server\": 8, \"nics_per_server\": 8},
    \"network\": {\"topology\": {\"kind\": \"file\", \"path\": \"$topo\"}, $1}}}"
}
job '"ns3_config": "simai.conf"' > a.json
job '"preset": "ns3_hpcc", "cc": "dcqcn", "mtu": 9000' > b.json
job '"mtu": 4096' > c.json
ta=$("$mv" train a.json 2>&1 | grep -o 'iteration=[^ ]*')
tb=$("$mv" train b.json 2>&1 | grep -o 'iteration=[^ ]*')
tc=$("$mv" train c.json 2>&1 | grep -o 'iteration=[^ ]*')
if [ $rc -eq 0 ] && [ "$(wc -l < simai_fct.txt)" -eq 1 ] && [ -n "$ta" ] && [ "$ta" = "$tb" ] &&
   [ "$ta" != "$tc" ]; then
  echo "ok   SimAI.conf: net with --topology, and a training job's ns3_config ($ta)"
else
  echo "FAIL SimAI.conf: rc=$rc [$ta] [$tb] [$tc] $(cat stdout.txt stderr.txt)"; fail=1
fi
# astra-network-ns3's scratch/config/config.txt, run where ASTRA-sim runs it (its
# outputs in ../../scratch/output), on its 8_nodes_1_switch topology: CC_MODE 12 (no
# algorithm in its rdma-hw) with HAS_WIN 1 is line rate under each pair's BDP window,
# so its flows end as DCQCN's (CC_MODE 1) with the same window when nothing is marked;
# two flows into one host keep the queue under the window: no pause, no mark, where
# without the window (HAS_WIN 0) the queue grows to PFC pauses and marks.
mkdir -p astra/x/y astra/scratch/output && cd astra/x/y || exit 1
sed 's/^CC_MODE 12/CC_MODE 1/' "$data/astra-ns3/config.txt" > dcqcn.txt
sed 's/^HAS_WIN 1/HAS_WIN 0/' "$data/astra-ns3/config.txt" > nowin.txt
printf '1\n0 1 3 100 10000000 0\n' > one.txt
printf '2\n0 1 3 100 10000000 0\n2 1 3 100 10000000 0\n' > two.txt
r=()
for f in "$data/astra-ns3/config.txt" dcqcn.txt nowin.txt; do
  for fl in one two; do
    r+=("$("$mv" net --ns3-config "$f" --ns3-fct-only --flows $fl.txt \
      --topology "$data/astra-ns3/8_nodes_1_switch_topology.txt" 2> stderr.txt |
      grep -o 'max_fct=[0-9]*ns\|pauses=[0-9]*\|ecn=[0-9]*' | tr '\n' ' ')")
  done
done
cd ../../.. || exit 1
w1=${r[0]} w2=${r[1]} d1=${r[2]} d2=${r[3]} n1=${r[4]} n2=${r[5]}
if [[ $w2 == *"pauses=0 ecn=0 "* ]] && [ "$w1" = "$d1" ] && [ "$w2" = "$d2" ] && [ "$w1" != "$n1" ] &&
   [[ $n2 != *"pauses=0 "* ]] && [[ $n2 != *" ecn=0 "* ]] && [ -s astra/scratch/output/fct.txt ]; then
  echo "ok   astra-network-ns3 config.txt: a window at line rate ($w1|$w2; without it $n1|$n2)"
else
  echo "FAIL astra-network-ns3 config: [${r[*]}] $(cat astra/x/y/stderr.txt)"; fail=1
fi
# astra-network-ns3's 8nodes_ring_topology.txt (8 hosts in a ring, no switch): ns-3
# routes through switches only, so a host reaches its neighbours and no one else.
printf '1\n0 1 3 100 1000000 0\n' > r1.txt
printf '1\n0 4 3 100 1000000 0\n' > r4.txt
"$mv" net --topology "$data/astra-ns3/8nodes_ring_topology.txt" --flows r1.txt -o ring1 > stdout.txt 2>&1
rc1=$?
"$mv" net --topology "$data/astra-ns3/8nodes_ring_topology.txt" --flows r4.txt -o ring4 > stderr.txt 2>&1
rc4=$?
if [ $rc1 -eq 0 ] && grep -q "ok flows=1 bytes=1000000 " stdout.txt && [ $rc4 -eq 2 ] &&
   [ "$(cat stderr.txt)" = "multiverse net: r4.txt:2: flow from 0 to 4: no path between them" ]; then
  echo "ok   astra-network-ns3 8nodes_ring: a neighbour reached, 0 to 4 has no path (hosts do not relay)"
else
  echo "FAIL 8nodes_ring: rc=$rc1 $rc4 $(cat stdout.txt stderr.txt)"; fail=1
fi
exit $fail
