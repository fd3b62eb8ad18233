# Workload generators of the benchmarks (sourced by bench.sh): fat-tree
# topologies, lists of permutation flow files, prefixes of the WebSearch trace
# and its --sweep variants. $BENCH_GEN is tests/tools/mv_genflows.

# A k-ary three-tier fat-tree as a topology JSON: K^3/4 hosts, 5K^2/4
# switches, every link GBPS and DELAY_NS.
gen_fat_tree() {
  local k=$1 gbps=${2:-400} delay_ns=${3:-1000}
  printf '{"kind":"fat_tree","tiers":3,"k":%d,"link_gbps":%d,"link_delay_ns":%d}\n' \
    "$k" "$gbps" "$delay_ns"
}

# gen_perm_list DIR HOSTS BYTES DISTINCT COUNT: writes DIR/perm-I.txt for
# I < DISTINCT (one permutation of BYTES per host, seed I + 1; kept when
# already there) and prints COUNT lines naming them in turn (experiment N
# runs permutation N mod DISTINCT), for --flows-from.
gen_perm_list() {
  local dir=$1 hosts=$2 bytes=$3 distinct=$4 count=$5 i
  mkdir -p "$dir"
  for ((i = 0; i < distinct && i < count; i++)); do
    [ -s "$dir/perm-$i.txt" ] || "$BENCH_GEN" permutation "$hosts" $((i + 1)) "$hosts" "$bytes" 0 > "$dir/perm-$i.txt"
  done
  for ((i = 0; i < count; i++)); do
    echo "perm-$((i % distinct)).txt"
  done
}

# The first N flows of an ns-3 flow file (they are in order of start time).
gen_flows_prefix() {
  local file=$1 n=$2
  echo "$n"
  sed -n "2,$((n + 1))p" "$file"
}

# Network parameters of the ns-3 HPCC comparison (tests/data/ns3_hpcc) for
# CC dcqcn or hpcc, as --set options.
gen_ns3_params() {
  local kv
  case $1 in
  dcqcn) kv="mtu=1000 header=48 ctrl_bytes=60 cc=dcqcn dcqcn_rate_ai_mbps=20 dcqcn_rate_hai_mbps=200
             dcqcn_min_rate_mbps=1000 dcqcn_window_kb=0 dcqcn_var_window=false" ;;
  hpcc) kv="mtu=1000 header=90 ctrl_bytes=88 cc=hpcc hpcc_eta=0.95 hpcc_max_stage=0 hpcc_ai_mbps=40
            hpcc_fast_react=true" ;;
  *) return 1 ;;
  esac
  for s in $kv; do
    printf -- '--set %s ' "$s"
  done
}

# --sweep options giving COUNT variants of one flow file under CC (dcqcn or
# hpcc): the additive increase in 1 Mb/s steps from the ns-3 value (up to 64
# values), times a second key for more (DCQCN's hyper increase in 25 Mb/s
# steps; HPCC's eta in steps of 0.005 below 0.95). Each variant's results
# differ a little. COUNT above 64 is rounded up to a multiple of 64.
gen_ws_sweep() {
  local cc=$1 count=$2 a b i
  a=$((count < 64 ? count : 64))
  b=$(((count + a - 1) / a))
  local first=() second=()
  for ((i = 0; i < a; i++)); do
    first+=("$([ "$cc" = dcqcn ] && echo $((20 + i)) || echo $((40 + i)))")
  done
  for ((i = 0; i < b; i++)); do
    second+=("$([ "$cc" = dcqcn ] && echo $((200 + 25 * i)) || awk -v i=$i 'BEGIN { printf "%.3f", 0.95 - 0.005 * i }')")
  done
  local IFS=,
  if [ "$cc" = dcqcn ]; then
    printf -- '--sweep dcqcn_rate_ai_mbps=%s --sweep dcqcn_rate_hai_mbps=%s\n' "${first[*]}" "${second[*]}"
  else
    printf -- '--sweep hpcc_ai_mbps=%s --sweep hpcc_eta=%s\n' "${first[*]}" "${second[*]}"
  fi
}
