#!/usr/bin/env bash
# Statistics of nothing are missing, not zero: an experiment that timed out
# before any flow finished has NaN (the variable's _FillValue) for its FCT
# statistics and sim_end in results.nc, null in summary.jsonl, "-" on the
# summary line, and a reason; analysis/plot.py and `report` skip the rows
# that are not ok and say how many. Before, the zeros won every minimum: the
# plot showed max_fct = 0 s as the best value (the right one is 5.968 us).
# usage: stats_missing.sh MULTIVERSE SRC_DIR WORK
set -euo pipefail
mv=$1 src=$2 work=$3
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
rm -rf "$work" && mkdir -p "$work" && cd "$work"
fail() { echo "FAIL: $*" >&2; exit 1; }
py=/usr/bin/python3
cp "$src/tests/data/line3.txt" line3.txt
printf '2\n0 1 3 100 10000 0\n1 0 3 100 20000 0.000001\n' > f2.txt
cat > jto.json <<'JSON'
{"name": "jto", "base": {"kind": "network", "network": {"topology": "line3.txt", "flows": "f2.txt"}},
 "sweep": {"grid": {"network.cc": ["none", "dcqcn"], "network.max_time_s": [0.000001, 1]}}}
JSON
rc=0; "$mv" run jto.json --run-dir rd > /dev/null 2>&1 || rc=$?
[ "$rc" = 1 ] || fail "run: exit $rc, expected 1 (two experiments timed out: drv.h's exit rule)"
$py - rd/results.nc <<'PY' || fail "results.nc"
import math, sys
import xarray as xr
ds = xr.open_dataset(sys.argv[1])
bad = []
for k in range(ds.sizes["experiment"]):
    st, t = int(ds.status.values[k]), float(ds.network_max_time_s.values[k])
    stats = [float(ds[v].values[k]) for v in ("max_fct", "p99_fct", "mean_fct", "p50_slowdown",
                                               "p99_slowdown", "mean_slowdown", "sim_end")]
    if t < 1e-3:  # timed out before any flow finished
        if st != 4 or not all(math.isnan(x) for x in stats) or int(ds.flows_done.values[k]) != 0:
            bad.append(f"timed-out row {k}: status {st}, stats {stats}")
        if ds.message.values[k] != "reached its simulated-time limit (max_time_s)":
            bad.append(f"row {k}: reason {ds.message.values[k]!r}")
    elif st != 0 or not all(x > 0 for x in stats):
        bad.append(f"ok row {k}: status {st}, stats {stats}")
fill = ds.max_fct.encoding.get("_FillValue")
if fill is None or not math.isnan(fill):
    bad.append(f"max_fct's _FillValue {fill}")
# the finished experiments' max_fct: 5.968 us under both CCs (f2's second flow)
ok = ds.max_fct.values[ds.status.values == 0]
if not all(abs(x - 5.968e-6) < 1e-12 for x in ok):
    bad.append(f"max_fct of the ok rows {list(ok)}")
print("\n".join(bad))
sys.exit(1 if bad else 0)
PY

# plot.py: the best max_fct per CC is the finished one's, and it says what it skipped.
$py "$src/analysis/plot.py" rd/results.nc max_fct --x network.cc -o p.png 2> err.txt || fail "plot: $(cat err.txt)"
[ "$(cat err.txt)" = "plot.py: skipped 2 of 4 experiments that are not ok (oom, invalid, failed or timed_out)" ] ||
  fail "plot: $(cat err.txt)"
$py - "$src/analysis" rd/results.nc <<'PY' || fail "plot values"
import sys
sys.path.insert(0, sys.argv[1])
import plot
g = plot.grid(sys.argv[2])
best = plot._best(plot.ok_values(g, "max_fct"), ("network_cc",), False)
vals = [float(v) for v in best.values]
sys.exit(0 if all(abs(v - 5.968e-6) < 1e-12 for v in vals) else print(vals) or 1)
PY

# report: ranks the ok rows only, and says how many it skipped.
"$mv" report rd --metric max_fct > rep.txt || fail "report"
grep -q "^best 2 of 2 ok experiments (2 not ok, skipped):$" rep.txt || fail "report: $(cat rep.txt)"

# multiverse net: null in summary.jsonl, "-" on the line, a reason.
"$mv" net --topology line3.txt --flows f2.txt --set max_time_s=0.000001 -o o > line.txt && fail "timed out, exit 0"
grep -q "^exp 0 f2.txt: timed_out flows=2 bytes=30000 max_fct=- p99_fct=- p99_slowdown=- .*: reached its simulated-time limit (max_time_s)$" \
  line.txt || fail "summary line: $(cat line.txt)"
$py - o/summary.jsonl <<'PY' || fail "summary.jsonl"
import json, sys
o = json.loads(open(sys.argv[1]).readline())
keys = ("max_fct_ns", "p99_fct_ns", "mean_fct_ns", "p50_slowdown", "p99_slowdown", "mean_slowdown",
        "sim_end_ns")
bad = [k for k in keys if o[k] is not None]
if o["reason"] != "reached its simulated-time limit (max_time_s)" or bad or o["flows_done"] != 0:
    print(o)
    sys.exit(1)
PY
echo "stats_missing: NaN, null and - where nothing finished; plot and report skip them"
