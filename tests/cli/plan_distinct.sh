#!/usr/bin/env bash
# Experiments written differently that are one experiment plan as one, for every
# kind: `multiverse plan` counts them distinct by their canonical form (defaults
# filled, exact decimals: 1 and 1.0 alike, a topology's radix or its sizes), and
# gives the repeat the first one's id.
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
 "sweep": {"grid": {"network.mtu": [4096, 4096.0],
                    "network.topology.link_gbps": [100, 100.0]},
           "include": [{"network.topology": {"kind": "fat_tree", "tiers": 2, "leaves": 8,
                        "spines": 4, "hosts_per_leaf": 4}, "network.cc": "none"}]}}
JSON
got=$(first_line net.json)
[ "$got" = "net.json: 5 experiments of kind network, 1 distinct (4 repeat an earlier one and share its run)" ] || fail "network: $got"

cat > train.json <<'JSON'
{"base": {"model": {"preset": "gpt3-1.3b"},
          "training": {"global_batch": 64, "tp": 2, "pp": 2},
          "cluster": {"gpu": "h200", "servers": 4},
          "network": {"topology": {"kind": "rail_optimized"}, "cc": "dcqcn"}},
 "sweep": {"grid": {"training.micro_batch": [1, 1.0]},
           "include": [{"training.dp": 8, "cluster.gpu": "h200", "network.link_gbps": 400}]}}
JSON
got=$(first_line train.json)
[ "$got" = "train.json: 3 experiments of kind training, 1 distinct (2 repeat an earlier one and share its run)" ] || fail "training: $got"
echo "plan_distinct: ok"
