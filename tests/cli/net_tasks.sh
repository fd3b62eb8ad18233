#!/usr/bin/env bash
# `multiverse net --flows` with htsim connection matrices and JSON task graphs
# beside ns-3 flow files, told apart by content: a permutation written as .cm
# gives the FCTs of the same flows written for ns-3; a ring all-reduce written
# as htsim's gen_allreduce.py writes it starts every triggered flow at the end
# of the flow that triggers it plus sync_us (another host); the JSON example's
# tasks follow their edges; malformed files exit 2 with one line naming the
# file and line (or JSON path).
# usage: net_tasks.sh MULTIVERSE WORKDIR
set -uo pipefail
mv=$(realpath "$1") work=$2 data=$(cd "$(dirname "$0")/../data" && pwd)
rm -rf "$work" && mkdir -p "$work" && cd "$work" || exit 1
fail=0
echo '{"kind":"fat_tree","tiers":2,"k":4,"link_gbps":100,"link_delay_ns":1000}' > ls.json

# The same permutation of 8 hosts (1 MB each, starting at 0 and 3 us) twice.
perm=(0:5 1:3 2:7 3:0 4:6 5:2 6:1 7:4)
{ echo 8; for i in "${!perm[@]}"; do
    s=${perm[$i]%:*} d=${perm[$i]#*:}
    echo "$s $d 3 100 1000000 0.00000$((3 * (i % 2)))"
  done; } > perm.txt
{ echo "Nodes 8"; echo "Connections 8"; for i in "${!perm[@]}"; do
    s=${perm[$i]%:*} d=${perm[$i]#*:}
    echo "$s->$d id $((i + 1)) start $((3000000 * (i % 2))) size 1000000"
  done; } > perm.cm
"$mv" net --topology ls.json --flows perm.txt --flows perm.cm -o perm > stdout.txt 2> stderr.txt
rc=$?
if [ $rc -eq 0 ] && [ "$(sort perm/fct-0.txt)" = "$(sort perm/fct-1.txt)" ] &&
   [ "$(wc -l < perm/fct-1.txt)" -eq 8 ] && [ -e perm/tasks-1.txt ] && [ ! -e perm/tasks-0.txt ] &&
   [ "$(cut -d' ' -f1-5 perm/fct-1.txt | tr '\n' ' ')" = "$(for p in "${perm[@]}"; do
       printf '%08x %08x 10000 100 1000000 ' $((0x0b000001 + ${p%:*} * 256)) $((0x0b000001 + ${p#*:} * 256))
     done)" ]; then
  echo "ok   permutation as .cm: the ns-3 file's FCTs, flows in file order, tasks-1.txt"
else
  echo "FAIL permutation: rc=$rc $(cat stderr.txt)"; diff <(sort perm/fct-0.txt) <(sort perm/fct-1.txt); fail=1
fi

# A ring all-reduce among 4 nodes as htsim's gen_allreduce.py writes it
# (groupsize 4, 64 KB flows): chain s sends 2*4-1 flows around the ring, each
# after the send_done_trigger of the previous one.
{ echo "Nodes 4"; echo "Connections 28"; echo "Triggers 24"
  id=0 trig=1
  for s in 0 1 2 3; do
    echo " "
    for d in 1 2 3 4 5 6 7; do
      id=$((id + 1)) src=$(((s + d - 1) % 4)) dst=$(((s + d) % 4))
      line="$src->$dst id $id"
      if [ $d -eq 1 ]; then line="$line start 0"; else line="$line trigger $trig"; trig=$((trig + 1)); fi
      line="$line size 65536"
      [ $d -ne 7 ] && line="$line send_done_trigger $trig"
      echo "$line"
    done
  done
  for t in $(seq 1 24); do echo "trigger id $t oneshot"; done; } > allreduce.cm
"$mv" net --topology ls.json --flows allreduce.cm -o ar > stdout.txt 2> stderr.txt
rc=$?
# tasks-0.txt: task kind host dst bytes start end recv line label; flow k of a
# chain (k > 0) starts 1 us (sync) after flow k-1 of that chain ends.
bad=$(awk '!/^#/ && $2 == "flow" { i = $1; s[i] = $6; e[i] = $7
         if (i % 7 && s[i] != e[i - 1] + 1000000) print "flow " i " starts " s[i] ", previous ends " e[i - 1]
         if (i % 7 == 0 && s[i] != 0) print "flow " i " starts at " s[i] }
         END { if (i != 27) print "last flow " i }' ar/tasks-0.txt 2>&1)
if [ $rc -eq 0 ] && [ -z "$bad" ] && [ "$(grep -c ' join ' ar/tasks-0.txt)" -eq 24 ] &&
   grep -q '"flows":28,"flows_done":28,' ar/summary.jsonl && grep -q '"tasks":52,' ar/summary.jsonl; then
  echo "ok   htsim all-reduce: 28 flows, each triggered one 1 us (sync) after its trigger's end"
else
  echo "FAIL htsim all-reduce: rc=$rc $bad $(cat stderr.txt)"; fail=1
fi

# docs/formats.md's JSON task graph: work starts at the request's reception, the
# answer at the work's end, the join at the answer's reception (host 0).
"$mv" net --topology ls.json --flows "$data/taskgraph.json" -o js > stdout.txt 2> stderr.txt
bad=$(awk '!/^#/ { s[$1] = $6; e[$1] = $7; r[$1] = $8; k[$1] = $2 }
  END { if (s[0] != 1500000) print "req starts " s[0]
        if (s[1] != r[0] || e[1] != r[0] + 10000000) print "work " s[1] " " e[1] " vs req recv " r[0]
        if (s[2] != e[1]) print "ans starts " s[2] " vs work end " e[1]
        if (s[3] != 0 || e[3] != 2000001) print "local " s[3] " " e[3]
        if (s[4] != r[2] || k[4] != "join") print "join " s[4] " vs ans recv " r[2] }' js/tasks-0.txt 2>&1)
if [ -z "$bad" ] && grep -q ' step 2$' js/tasks-0.txt && [ "$(wc -l < js/fct-0.txt)" -eq 2 ]; then
  echo "ok   JSON task graph: starts follow the edges"
else
  echo "FAIL JSON task graph: $bad $(cat stderr.txt)"; fail=1
fi

# expect CASE-NAME EXPECTED-SUBSTRING FLOWS-FILE
expect() {
  local name=$1 want=$2
  rm -rf out
  "$mv" net --topology ls.json --flows perm.txt --flows "$3" -o out > stdout.txt 2> stderr.txt
  local rc=$? lines
  lines=$(wc -l < stderr.txt)
  if [ $rc -ne 2 ] || [ "$lines" -ne 1 ] || ! grep -qF -- "$want" stderr.txt || [ -e out ]; then
    echo "FAIL $name: rc=$rc lines=$lines stderr: $(cat stderr.txt)"; fail=1
  else
    echo "ok   $name: $(cat stderr.txt)"
  fi
}
sed '4s/size 1000000/size x/' perm.cm > bad_size.cm
expect "a .cm line with a bad size" "bad_size.cm:4:" bad_size.cm
sed '5s/->/->99/' perm.cm > bad_node.cm
expect "a .cm line naming a missing node" "bad_node.cm:5:" bad_node.cm
printf '{"tasks": [{"kind": "flow", "src": 0, "dst": 1}]}\n' > no_bytes.json
expect "a JSON flow without bytes" "no_bytes.json: tasks[0]" no_bytes.json
printf '{"tasks": [{"kind": "flow", "src": 0, "dst": 99, "bytes": 5}]}\n' > far.json
expect "a JSON flow to a missing host" "far.json" far.json
printf 'hello world\n' > what.txt
expect "a file of no known format" "what.txt: neither an ns-3 flow file" what.txt
exit $fail
