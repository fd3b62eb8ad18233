#!/usr/bin/env bash
# Experiments written differently that are one experiment plan as one, for every
# kind: `multiverse plan` counts them distinct by their canonical form (defaults
# filled, exact decimals: 1 and 1.0 alike, a topology's radix or its sizes), and
# gives the repeat the first one's id. (The job layer already compares values:
# "training.micro_batch": [1, 1.0] in one list is refused as a repeat, and an
# include equal by value to a listed point is dropped (job_same). So each repeat
# here also sets a key the canonical form fills with the same default.)
# usage: plan_distinct.sh MULTIVERSE SRC_DIR WORK
set -euo pipefail
mv=$1 src=$2 work=$3
rm -rf "$work" && mkdir -p "$work" && cd "$work"
cp "$src/examples/net/incast16.txt" f0.txt
fail() { echo "FAIL: $*" >&2; exit 1; }

# first_line JOB: plan's first line.
first_line() { "$mv" plan "$1" --run-dir r-"$1" 2> /dev/null | head -1; }

cat > net.json <<'JSON'
{"base": {"network": {"topology": {"kind": "fat_tree", "tiers": 2, "k": 8}, "flows": "f0.txt"}},
 "sweep": {"grid": {"network.mtu": [4096, 2048]},
           "include": [{"network.mtu": 4096.0, "network.topology.link_gbps": 100.0},
                       {"network.topology": {"kind": "fat_tree", "tiers": 2, "leaves": 8,
                        "spines": 4, "hosts_per_leaf": 4}, "network.cc": "none"},
                       {"network.mtu": 2048e0},
                       {"network.mtu": 2.048e3, "network.cc": "none"}]}}
JSON
got=$(first_line net.json)
[ "$got" = "net.json: 5 experiments of kind network, 2 distinct (3 repeat an earlier one and share its run)" ] || fail "network: $got"

cat > train.json <<'JSON'
{"base": {"model": {"preset": "gpt3-1.3b"},
          "training": {"global_batch": 64, "tp": 2, "pp": 2},
          "cluster": {"gpu": "h200", "servers": 4},
          "network": {"topology": {"kind": "rail_optimized"}, "cc": "dcqcn"}},
 "sweep": {"grid": {"training.micro_batch": [1, 2]},
           "include": [{"training.micro_batch": 1.0},
                       {"training.micro_batch": 2.0, "network.link_gbps": 400},
                       {"training.dp": 8, "cluster.gpu": "h200", "network.link_gbps": 400}]}}
JSON
got=$(first_line train.json)
[ "$got" = "train.json: 4 experiments of kind training, 2 distinct (2 repeat an earlier one and share its run)" ] || fail "training: $got"
cat > coll.json <<'JSON'
{"base": {"kind": "collective", "collective": {"op": "allreduce", "bytes": 1048576, "gpus": 16},
          "cluster": {"gpu": "h200"}},
 "sweep": {"grid": {"collective.bytes": [1048576, 4194304]},
           "include": [{"collective.bytes": 1048576.0, "collective.algo": "ring"},
                       {"collective.bytes": 4.194304e6, "collective.channels": 0}]}}
JSON
got=$(first_line coll.json)
[ "$got" = "coll.json: 4 experiments of kind collective, 2 distinct (2 repeat an earlier one and share its run)" ] || fail "collective: $got"
echo "plan_distinct: ok"
