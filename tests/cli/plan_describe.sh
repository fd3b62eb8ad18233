#!/usr/bin/env bash
# The plan's describe step gives exactly what building every experiment gives:
# `multiverse plan --experiments --batches` (each experiment's memory in bytes
# and cost features at full precision, the batches, the rows that cannot run)
# is byte-identical with MULTIVERSE_PLAN_BUILD=1, which builds each one, for
# jobs of every kind. The network sweeps share a flow file and topology (the
# kind sizes its graph once per mtu, ack_every, classes and model); the
# collective sweep's experiments share graphs (bytes, op and mtu make them;
# cc and buffers do not), with invalid ones and a flow-level one. The
# training sweep's experiments share task graphs (describe sizes the later
# ones from the first: cc, buffers and the row limit change memory and
# validity, not the graph) and differ in them (tp, link rate, mtu: new graphs
# or features), with a flow-level one, traffic classes and invalid ones. Under
# a row limit some experiments of a shared graph no longer fit while others
# do. (--memory: a batch's budget that does not change with the memory free
# when each command starts.)
# usage: plan_describe.sh MULTIVERSE SRC_DIR WORK
set -euo pipefail
mv=$1 src=$2 work=$3
rm -rf "$work" && mkdir -p "$work" && cd "$work"
cp "$src/examples/net/sweep.json" "$src/examples/net/leafspine.json" "$src/examples/net/random.txt" .
fail() { echo "FAIL: $*" >&2; exit 1; }

cat > train.json <<'JSON'
{"base": {"model": {"preset": "gpt3-1.3b"},
          "training": {"global_batch": 64, "micro_batch": 1, "tp": 2, "pp": 2},
          "cluster": {"gpu": "h200", "servers": 4},
          "network": {"topology": {"kind": "rail_optimized"}, "cc": "dcqcn"}},
 "sweep": {"grid": {"training.tp": [2, 4], "network.link_gbps": [100, 400],
                    "network.mtu": [1000, 4096], "network.cc": ["dcqcn", "hpcc", "none"],
                    "network.buffer_mb": [4, 32]},
           "include": [{"network.ecn_kmin_kb": 400, "network.ecn_kmax_kb": 300},
                       {"training.micro_batch": 64},
                       {"network.model": "flow"},
                       {"network.model": "flow", "network.cc": "hpcc"},
                       {"network.classes": true},
                       {"network.classes": true, "network.cc": "hpcc"}]}}
JSON
cat > net.json <<'JSON'
{"base": {"kind": "network",
          "network": {"topology": "leafspine.json", "flows": "random.txt", "cc": "dcqcn"}},
 "sweep": {"grid": {"network.mtu": [1000, 4096], "network.cc": ["dcqcn", "hpcc", "none"],
                    "network.buffer_mb": [2, 32]},
           "include": [{"network.classes": true}, {"network.model": "flow"},
                       {"network.lb": "spray", "network.ack_every": 4}]}}
JSON
cat > coll.json <<'JSON'
{"base": {"kind": "collective", "collective": {"op": "allreduce", "bytes": 1048576, "gpus": 16},
          "cluster": {"gpu": "h200"}},
 "sweep": {"grid": {"collective.bytes": [1048576, 4194304], "collective.op": ["allreduce", "allgather"],
                    "network.cc": ["dcqcn", "hpcc", "none"], "network.buffer_mb": [2, 32],
                    "network.mtu": [1000, 4096]},
           "include": [{"network.ecn_kmin_kb": 400, "network.ecn_kmax_kb": 300},
                       {"network.model": "flow"},
                       {"network.classes": true},
                       {"network.classes": true, "network.cc": "hpcc"},
                       {"collective.channels": 4, "network.mtu": 4096, "network.buffer_mb": 2},
                       {"collective.chunk_bytes": 4096, "network.mtu": 4096, "network.buffer_mb": 2},
                       {"collective.gpus": 32, "network.mtu": 4096, "network.buffer_mb": 2},
                       {"collective.gpus": 32, "collective.algo": "tree", "network.mtu": 4096,
                        "network.buffer_mb": 2},
                       {"cluster.gpus_per_server": 4, "network.mtu": 4096, "network.buffer_mb": 2},
                       {"cluster.nic_gbps": 200, "network.mtu": 4096, "network.buffer_mb": 2}]}}
JSON

# same JOB [ENV...]: the plan described and built, compared; the described one in JOB.txt.
same() {
  local job=$1
  shift
  env "$@" "$mv" plan "$job" --experiments --batches --costs none --memory 64 --run-dir r > "$job.txt" 2>&1 || true
  env "$@" MULTIVERSE_PLAN_BUILD=1 "$mv" plan "$job" --experiments --batches --costs none --memory 64 \
    --run-dir r > "$job.built" 2>&1 || true
  cmp -s "$job.txt" "$job.built" || { diff "$job.built" "$job.txt" | head -20 >&2; fail "$job $*: describe differs from build"; }
  grep -q '^experiment  id  ' "$job.txt" || fail "$job: no experiments listed"
}

same sweep.json
same net.json
# The network sweep shares its flow file and topology: under a row limit, some
# experiments of one sizing fit and others (hpcc, 32 MB buffers) do not.
same net.json MULTIVERSE_WORLD_ROWS=50000
[ "$(grep -c 'too large for one world' net.json.txt)" = 8 ] || fail "net: 8 too large expected"
same coll.json
# 58 experiments: the collective's 8 graphs (bytes, op, mtu) each shared by 6
# (cc, buffers); 3 invalid (ECN thresholds, and flows of no traffic class
# twice), each with the engine's reason; 6 that differ from a graph of the
# grid (or, for the tree, from the 32-GPU ring before it) in one more of what
# makes a graph: channels, chunk and algo (sized from that graph, they would
# differ), and gpus, the server's GPUs and the NIC rate (which also change the
# topology).
grep -q '^coll.json: 58 experiments of kind collective, 58 distinct$' coll.json.txt || fail "coll: count"
grep -q ': invalid: ecn_kmax_kb: must not be below ecn_kmin_kb$' coll.json.txt || fail "coll: ECN"
[ "$(grep -c ': invalid: flow (task 16): priority 0 is not a traffic class' coll.json.txt)" = 2 ] ||
  fail "coll: classes"
# Under a row limit the 32 MB experiments of each graph do not fit where
# they take worst-case descriptor pools (all of 32 MB in packets a switch:
# cc none, as auto gives them, or all with MULTIVERSE_POOLS=worst), nor with
# MTU 1000 under compact ones (a quarter); the others do.
same coll.json MULTIVERSE_WORLD_ROWS=50000
[ "$(grep -c 'too large for one world' coll.json.txt)" = 16 ] || fail "coll: 16 too large expected"
same coll.json MULTIVERSE_WORLD_ROWS=50000 MULTIVERSE_POOLS=compact
[ "$(grep -c 'too large for one world' coll.json.txt)" = 12 ] || fail "coll: 12 too large expected"
same coll.json MULTIVERSE_WORLD_ROWS=50000 MULTIVERSE_POOLS=worst
[ "$(grep -c 'too large for one world' coll.json.txt)" = 24 ] || fail "coll: 24 too large expected"
same train.json
# 54 experiments: 2 invalid (ECN thresholds, a micro-batch the batch does not divide).
grep -q '^train.json: 54 experiments of kind training, 54 distinct$' train.json.txt || fail "train: count"
[ "$(grep -c ': invalid: ' train.json.txt)" = 2 ] || fail "train: 2 invalid expected"
# Experiments 0 and 1 share the graph (buffers 4 and 32 MB): the same features,
# more memory with the larger buffer; 0 and 2 (dcqcn, hpcc) too.
row() { awk -v e="$1" '$1 == e && NF == 9 {print}' train.json.txt; }
feat() { row "$1" | awk '{print $4, $5, $6, $7, $8}'; }
mem() { row "$1" | awk '{print $3}'; }
[ -n "$(row 0)" ] && [ "$(feat 0)" = "$(feat 1)" ] && [ "$(feat 0)" = "$(feat 2)" ] ||
  fail "experiments 0, 1, 2 share a graph: $(row 0) / $(row 1) / $(row 2)"
[ "$(mem 1)" -gt "$(mem 0)" ] && [ "$(mem 2)" -gt "$(mem 0)" ] || fail "memory: $(mem 0) $(mem 1) $(mem 2)"
grep -q ' training/flow$' train.json.txt || fail "the flow-level experiments' key"
# A row limit under which the 32 MB buffers' rings do not fit and the 4 MB ones do.
same train.json MULTIVERSE_WORLD_ROWS=100000
n=$(grep -c 'too large for one world' train.json.txt)
[ "$n" -ge 12 ] && [ -n "$(row 0)" ] && [ -z "$(row 1)" ] || fail "row limit: $n too large, $(row 0) / $(row 1)"
echo "plan_describe: ok"
