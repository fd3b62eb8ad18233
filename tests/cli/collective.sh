#!/usr/bin/env bash
# `multiverse collective`: inside one server the time is the shipped model's
# (H200 2 GPUs: the measured curve's fit, within its stated error of every
# measured point); across servers a ring all-reduce on the default fabric is
# the closed form (docs/collectives.md: closed forms of rings), exact with one ACK per
# block; sizes and --sweep variants in one batch equal their runs alone; bad
# input exits 2 with one line.
# usage: collective.sh MULTIVERSE PRESETS_DIR WORKDIR
set -uo pipefail
mv=$(realpath "$1") presets=$(realpath "$2") work=$3
rm -rf "$work" && mkdir -p "$work" && cd "$work" || exit 1
py=/usr/bin/python3
fail=0

# One server of 2 H200: the fit of jobs/presets/nccl_intra.json at every size
# of the measured log, and within its max_error of the log's times.
"$mv" collective --op allreduce --bytes 1K:1G --gpus 2 --gpus-per-server 2 --json > h200.jsonl 2> stderr.txt
if msg=$("$py" - "$presets" h200.jsonl <<'EOF'
import json, sys
model = json.load(open(sys.argv[1] + "/nccl_intra.json"))
fit = [m for m in model["models"] if (m["gpu"], m["collective"], m["gpus"]) == ("h200", "allreduce", 2)][0]
log = {}
for line in open(sys.argv[1] + "/measured/h200/all_reduce_2.log"):
    f = line.split()
    if f and not line.startswith("#"):
        log[int(f[0])] = float(f[9])  # in-place time, us
rows = [json.loads(l) for l in open(sys.argv[2])]
assert len(rows) == 21, len(rows)
worst = 0
for r in rows:
    b = r["bytes"]
    rg = next(x for x in fit["ranges"] if x["max_bytes"] is None or b <= x["max_bytes"])
    ps = round(rg["alpha_us"] * 1e6 + b * (1e3 / rg["beta_GBps"]))
    assert round(r["time_us"] * 1e6) == ps, (b, r["time_us"], ps)
    assert abs(r["busbw_GBps"] - b / (ps * 1e-12) * 1e-9) < 1e-9 * r["busbw_GBps"]
    assert r["intra_model"] == [{"collective": "allreduce", "gpus": 2, "curve": "measured"}]
    assert r["flows"] == 0 and r["packet_hops"] == 0
    err = abs(r["time_us"] - log[b]) / log[b]
    worst = max(worst, err)
    assert err <= fit["max_error"] + 1e-9, (b, err)
assert worst > fit["max_error"] - 1e-6
print("21 sizes equal the fit to the ps; times within %.2f %% of the measured log" % (100 * worst))
EOF
); then echo "ok   one server of 2 H200: $msg"; else echo "FAIL one server: $msg $(cat stderr.txt)"; fail=1; fi

# Across servers: 8 servers of one GPU and one 100 Gb/s NIC on the default
# rail-optimized fabric (host - rail switch - host), 8 MiB: 14 steps of 256
# full packets.
for ack in 1 1000000; do
  "$mv" collective --op allreduce --bytes 8M --gpus 8 --gpus-per-server 1 --nic-gbps 100 \
    --set ack_every=$ack --json > ring$ack.jsonl 2> stderr.txt
done
if msg=$("$py" - ring1.jsonl ring1000000.jsonl <<'EOF'
import json, sys
ser = lambda w: -(-w * 8 * 10**12 // (100 * 10**9))  # ps at 100 Gb/s
D, A, d, P, n = ser(4096 + 62), ser(66), 10**6, 256, 8
def closed(per_packet_ack):
    step = P * (D + (A if per_packet_ack else 0)) + D + 2 * d
    return 2 * (n - 1) * step + (2 * (n - 1) - 1) * A + 2 * (A + d)
t1 = round(json.loads(open(sys.argv[1]).read())["time_us"] * 1e6)
tb = round(json.loads(open(sys.argv[2]).read())["time_us"] * 1e6)
assert tb == closed(False), (tb, closed(False))
err = (t1 - closed(True)) / closed(True)
assert abs(err) < 0.02, err
r = json.loads(open(sys.argv[1]).read())
assert r["flows"] == 2 * 7 * 8 and r["drops"] == 0 and r["intra_model"] == []
print("one ACK per block %d ps = closed form; one per packet %+.3f %%" % (tb, 100 * err))
EOF
); then echo "ok   ring across 8 servers: $msg"; else echo "FAIL ring across servers: $msg $(cat stderr.txt)"; fail=1; fi

# Sizes x variants in one batch, each equal to its run alone.
"$mv" collective --op allreduce --bytes 1M,16M --gpus 16 --sweep cc=none,dcqcn --json > batch.jsonl 2> stderr.txt
e=0 same=1
for cc in none dcqcn; do
  for b in 1M 16M; do
    "$mv" collective --op allreduce --bytes $b --gpus 16 --set cc=$cc --json > alone.jsonl
    strip='s/"experiment":[0-9]*,//; s/,"sweep":{[^}]*}//; s/"wall_s":[0-9.e-]*//'
    [ "$(sed -n "$((e + 1))p" batch.jsonl | sed "$strip")" = "$(sed "$strip" alone.jsonl)" ] || same=0
    e=$((e + 1))
  done
done
if [ $same -eq 1 ] && [ "$(grep -c '"sweep":{"cc":"dcqcn"}' batch.jsonl)" -eq 2 ] &&
   grep -q '"servers":2,"gpus_per_server":8,"nics_per_server":8,' batch.jsonl &&
   grep -q '"intra_model":\[{"collective":"reducescatter","gpus":8,"curve":"derived"},{"collective":"allgather","gpus":8,"curve":"derived"}\]' batch.jsonl; then
  echo "ok   2 sizes x 2 CCs in one batch, each identical to its run alone"
else
  echo "FAIL batch vs alone: $(cat batch.jsonl stderr.txt)"; fail=1
fi
"$mv" collective --op allgather --bytes 1K:8K --gpus 8 > table.txt 2> stderr.txt
if [ "$(grep -vc '^#' table.txt)" -eq 4 ] && grep -q '^#  *size  *time_us  *algbw_GBps  *busbw_GBps' table.txt &&
   grep -q '^ *8192 ' table.txt; then
  echo "ok   text table: 1K:8K is 4 sizes"
else
  echo "FAIL table: $(cat table.txt stderr.txt)"; fail=1
fi

# expect CASE-NAME EXPECTED-SUBSTRING ARGS...
expect() {
  local name=$1 want=$2; shift 2
  "$mv" collective "$@" > stdout.txt 2> stderr.txt
  local rc=$? lines
  lines=$(wc -l < stderr.txt)
  if [ $rc -ne 2 ] || [ "$lines" -ne 1 ] || ! grep -qF -- "$want" stderr.txt || [ -s stdout.txt ]; then
    echo "FAIL $name: rc=$rc lines=$lines stderr: $(cat stderr.txt)"; fail=1
  else
    echo "ok   $name: $(cat stderr.txt)"
  fi
}
expect "GPUs not filling servers" "--gpus 12 spans servers of 8 GPUs" --op allreduce --bytes 1M --gpus 12
expect "bad size" "--bytes 1X: expected sizes" --op allreduce --bytes 1X --gpus 8
expect "unknown collective" "--op allgatherv: expected allreduce" --op allgatherv --bytes 1M --gpus 8
expect "tree for allgather" "--algo tree: only for allreduce" --op allgather --algo tree --bytes 1M --gpus 8
printf '3 1 2\n2\n0 2 100Gbps 0.001ms 0\n1 2 100Gbps 0.001ms 0\n' > small.txt
expect "topology too small" "small.txt: 2 hosts, and 2 servers of 8 NICs need 16" --op allreduce --bytes 1M --gpus 16 --topology small.txt
expect "fewer bytes than members" "--bytes 4: allreduce of 4 bytes among 16 servers" --op allreduce --bytes 4 --gpus 16 --gpus-per-server 1
expect "unknown GPU" "--gpu b300: not a GPU of the presets" --op allreduce --bytes 1M --gpus 8 --gpu b300
expect "unknown option" "unknown option --frobnicate" --op allreduce --bytes 1M --gpus 8 --frobnicate 1
expect "unknown backend" "multiverse collective: --backend gpu: expected cpu or cuda" --op allreduce --bytes 1M --gpus 8 --backend gpu
expect "bad --set" "unknown key 'bogus'" --op allreduce --bytes 1M --gpus 8 --set bogus=1
# bad-input trial 2: --nic-gbps with --topology was ignored (the header printed it);
# a size given twice ran twice; --gpus beyond the default fabric blamed "servers".
echo '{"kind": "torus", "dims": [4, 4]}' > torus44.json
expect "--nic-gbps with --topology" "multiverse collective: --nic-gbps: the links of --topology torus44.json set the rates; give one of them" \
  --op allreduce --bytes 1M --gpus 16 --gpus-per-server 1 --nics-per-server 1 --topology torus44.json --nic-gbps 1
expect "a size twice" "multiverse collective: --bytes 1M,2M,1M: 1048576 bytes are given twice: give each size once" \
  --op allreduce --bytes 1M,2M,1M --gpus 16
expect "beyond the default fabric" "multiverse collective: --gpus 16777216: 2097152 servers of 8 GPUs and 8 NICs: the default topology cannot hold them (default topology: servers: must be an integer in 1..1048576, got 2097152)" \
  --op allreduce --bytes 1M --gpus 16777216
"$mv" collective --op allreduce --bytes 1M --gpus 16 --gpus-per-server 1 --nics-per-server 1 \
  --topology torus44.json > stdout.txt 2>&1
if head -1 stdout.txt | grep -q "^# allreduce of 16 GPUs (h200): 16 servers of 1 GPUs and 1 NICs; topology torus44.json (its links' rates)$"; then
  echo "ok   header with --topology: no NIC rate of its own"
else
  echo "FAIL header with --topology: $(head -1 stdout.txt)"; fail=1
fi
# Sizes before work: 65536 GPUs (about 1e9 flows, inside every documented range)
# grew to 3.6 GB in 30 s; the graph is capped by the memory the process may use.
(ulimit -v 1500000; "$mv" collective --op allreduce --bytes 16M --gpus 65536 > stdout.txt 2> stderr.txt)
rc=$?
if [ $rc = 2 ] && grep -qE "^multiverse collective: --gpus 65536: the collective's task graph passes what this process's memory holds \([0-9]+ tasks and flows built\): fewer GPUs, or more GPUs per server$" stderr.txt; then
  echo "ok   65536 GPUs: $(cat stderr.txt)"
else
  echo "FAIL 65536 GPUs: rc=$rc $(cat stderr.txt)"; fail=1
fi
exit $fail
