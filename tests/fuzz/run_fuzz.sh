#!/usr/bin/env bash
# Runs one libFuzzer target for MV_FUZZ_SECONDS seconds (default 30): first every
# input of its seed corpus (valid and invalid examples, and the regressions of past
# findings), then new inputs, kept in WORKDIR/corpus. A crash, leak, hang or broken
# check fails the run and leaves the input in WORKDIR/ (crash-*, timeout-*, ...).
# The mutations follow MV_FUZZ_SEED (default 1), so `make test` explores the same
# inputs on every machine of like speed; MV_FUZZ_SEED=0 draws a new seed each run
# (exploratory fuzzing: make fuzz FUZZ_SECONDS=600 MV_FUZZ_SEED=0).
# usage: run_fuzz.sh FUZZER SEED_CORPUS WORKDIR
set -uo pipefail
fuzzer=$1 seeds=$2 work=$3
secs=${MV_FUZZ_SECONDS:-30}
seed=${MV_FUZZ_SEED:-1}
mkdir -p "$work/corpus" || exit 1
dict=$(dirname "$0")/$(basename "$fuzzer").dict
args=(-max_total_time="$secs" -seed="$seed" -timeout=10 -rss_limit_mb=2048 -max_len=8192 -print_final_stats=1
      -artifact_prefix="$work/")
[ -f "$dict" ] && args+=(-dict="$dict")
"$fuzzer" "${args[@]}" "$work/corpus" "$seeds" > "$work/log.txt" 2>&1
rc=$?
grep -E "^(stat::number_of_executed_units|stat::new_units_added|#[0-9]+ +DONE)" "$work/log.txt"
if [ $rc -ne 0 ]; then
  tail -n 60 "$work/log.txt"
  echo "FAIL $(basename "$fuzzer"): the input is in $work/; fix the bug, then add the input to $seeds/ as a regression"
  exit 1
fi
echo "ok   $(basename "$fuzzer"): ${secs} s, seed $seed, no finding"
