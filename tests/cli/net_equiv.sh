#!/usr/bin/env bash
# Byte-identical FCT files whatever runs them: a batch of 64 experiments against
# each run alone and against the same batch cut into several worlds (batch),
# 1 against 2 OpenMP threads, experiment-major and one
# experiment window-major (threads), CPU against CUDA
# (cuda; exit 77 = skipped when no GPU is present), switches stepped in
# certified port phases against in key order (phases: MULTIVERSE_PHASES).
# usage: net_equiv.sh MODE MULTIVERSE MV_GENFLOWS WORKDIR
set -euo pipefail
mode=$1 mv=$(realpath "$2") gen=$(realpath "$3") work=$4
rm -rf "$work" && mkdir -p "$work"
cd "$work"
echo '{"kind":"fat_tree","tiers":3,"k":4,"host_gbps":100,"link_gbps":100,"link_delay_ns":1000}' > fat.json
echo '{"kind":"fat_tree","tiers":2,"k":8,"oversubscription":3,"host_gbps":100,"link_gbps":400,"link_delay_ns":500}' > leaf.json

# Five batches of 32 different experiments each: DCQCN with lossless ECMP,
# DCTCP with lossy spraying, HPCC with flowlets and re-order tolerant receivers,
# and DCQCN and HPCC with the preset ns3_hpcc (the ns-3 HPCC simulator's
# semantics; flows in classes 1..3, a small buffer with headroom: PFC per class).
declare -A sets=([a]="--set cc=dcqcn --set buffer_mb=1 --set ecn_kmin_kb=10 --set ecn_kmax_kb=80 --set ecn_pmax=0.5"
                 [b]="--set cc=dctcp --set pfc=false --set buffer_mb=0.25 --set lb=spray --set ack_every=2"
                 [c]="--set cc=hpcc --set lb=adaptive --set reorder=true --set buffer_mb=2"
                 [d]="--set cc=dcqcn --set preset=ns3_hpcc --set buffer_mb=0.5 --set ecn_kmin_kb=10 --set ecn_kmax_kb=80 --set ecn_pmax=0.5"
                 [e]="--set cc=hpcc --set preset=ns3_hpcc --set hpcc_int_multi=4 --set buffer_mb=0.5 --set pfc_headroom_bdp=1")
declare -A topo=([a]=fat.json [b]=leaf.json [c]=fat.json [d]=fat.json [e]=leaf.json)
declare -A hosts=([a]=16 [b]=48 [c]=16 [d]=16 [e]=48)
n=32
[ "$mode" = cuda ] || [ "$mode" = threads ] || true
for b in a b c d e; do
  args=()
  for i in $(seq 0 $((n - 1))); do
    f=$b-$i.txt
    case $((i % 4)) in
      0) "$gen" random "${hosts[$b]}" $((i + 1)) $((5 + i)) 300000 20000 > "$f" ;;
      1) "$gen" incast "${hosts[$b]}" $((i + 1)) $((2 + i % 9)) $((50000 + 1000 * i)) 0 $((i % hosts[$b])) > "$f" ;;
      2) "$gen" permutation "${hosts[$b]}" $((i + 1)) 1 $((20000 + 3000 * i)) 0 > "$f" ;;
      3) "$gen" random "${hosts[$b]}" $((i + 100)) 40 20000 100000 > "$f" ;;
    esac
    # the ns-3 batches: priorities 1..3 (classes), by line
    case $b in d|e) awk 'NR == 1 { print; next } { $3 = 1 + NR % 3; print }' "$f" > "$f.p" && mv "$f.p" "$f" ;; esac
    args+=(--flows "$f")
  done
  # shellcheck disable=SC2086
  case $mode in
    batch) # the batch read from a list file (--flows-from), each alone with --flows
      for i in $(seq 0 $((n - 1))); do echo "$b-$i.txt"; done > list-$b.txt
      "$mv" net --topology "${topo[$b]}" --flows-from list-$b.txt ${sets[$b]} -o out-$b > /dev/null
      for i in $(seq 0 $((n - 1))); do
        "$mv" net --topology "${topo[$b]}" --flows $b-$i.txt ${sets[$b]} -o alone-$b-$i > /dev/null
        cmp out-$b/fct-$i.txt alone-$b-$i/fct-0.txt
      done
      # A batch with more rows than one world may hold runs as several worlds
      # (here a cap of 200,000 rows per table: 4 to 8 worlds), results unchanged; an
      # experiment whose compact rings overflow must fit the cap again alone with
      # worst-case rings.
      MULTIVERSE_VERBOSE=1 MULTIVERSE_WORLD_ROWS=200000 "$mv" net --topology "${topo[$b]}" \
        --flows-from list-$b.txt ${sets[$b]} -o parts-$b 2> parts-$b.err > /dev/null
      grep -q "batch of $n experiments in [1-9][0-9]* worlds" parts-$b.err
      ! grep -q "in 1 worlds" parts-$b.err
      for i in $(seq 0 $((n - 1))); do cmp out-$b/fct-$i.txt parts-$b/fct-$i.txt; done ;;
    threads)
      "$mv" net --topology "${topo[$b]}" "${args[@]}" ${sets[$b]} --threads 1 -o t1-$b > t1-$b.out
      "$mv" net --topology "${topo[$b]}" "${args[@]}" ${sets[$b]} --threads 2 -o t2-$b > t2-$b.out
      for i in $(seq 0 $((n - 1))); do cmp t1-$b/fct-$i.txt t2-$b/fct-$i.txt; done
      # The finish renders the experiments on the run's threads: the same
      # lines, in order, but for the walls.
      diff <(sed -e 's/ wall=.*//' t1-$b.out) <(sed -e 's/ wall=.*//' t2-$b.out)
      diff <(sed -e 's/,"wall_s":.*}/}/' t1-$b/summary.jsonl) <(sed -e 's/,"wall_s":.*}/}/' t2-$b/summary.jsonl)
      [ "$(awk '{ print $1 $2 }' t2-$b.out | tr '\n' ' ')" = "$(seq -f 'exp%g' -s ' ' 0 $((n - 1))) " ]
      [ "$(grep -o '"experiment":[0-9]*' t2-$b/summary.jsonl | cut -d: -f2 | tr '\n' ' ')" = "$(seq -s ' ' 0 $((n - 1))) " ]
      # Fewer experiments than threads: window-major, every phase in parallel.
      "$mv" net --topology "${topo[$b]}" --flows $b-3.txt ${sets[$b]} --threads 2 -o w2-$b > /dev/null
      cmp t1-$b/fct-3.txt w2-$b/fct-0.txt ;;
    phases) # the same files and counters, and the phases ran where allowed
      MULTIVERSE_PHASES=0 "$mv" net --topology "${topo[$b]}" "${args[@]}" ${sets[$b]} -o ph0-$b > /dev/null
      MULTIVERSE_PHASES=1 "$mv" net --topology "${topo[$b]}" "${args[@]}" ${sets[$b]} -o ph1-$b > /dev/null
      for i in $(seq 0 $((n - 1))); do cmp ph0-$b/fct-$i.txt ph1-$b/fct-$i.txt; done
      strip() { sed -e 's/,"wall_s":.*}/}/' "$1"; }
      diff <(strip ph0-$b/summary.jsonl) <(strip ph1-$b/summary.jsonl)
      MULTIVERSE_STATS=1 MULTIVERSE_PHASES=1 "$mv" net --topology "${topo[$b]}" --flows $b-0.txt \
        --flows $b-3.txt ${sets[$b]} -o phs-$b 2> phs-$b.err > /dev/null
      # "switch steps in port phases: N of M": most of them, none with flowlets (c)
      grep -o 'port phases: [0-9]* of [0-9]*' phs-$b.err | while read -r _ _ m _ all; do
        if [ $b = c ]; then [ "$m" = 0 ]; else [ "$all" -gt 0 ] && [ $((10 * m)) -ge $((7 * all)) ]; fi
      done
      # without window barriers: the busiest node alone <= the longest chain <=
      # the critical path, and in some experiment a chain through neighbours
      # is longer than any node alone
      paste <(grep -o 'critical path [0-9]*' phs-$b.err) \
        <(grep -o 'longest chain [0-9]* .*alone [0-9]*' phs-$b.err) |
        while read -r _ _ cp _ _ ch _ _ _ _ _ _ _ al; do
          [ "$al" -gt 0 ] && [ "$al" -le "$ch" ] && [ "$ch" -le "$cp" ] ||
            { echo "$b: alone $al, chain $ch, critical path $cp"; exit 1; }
          echo "$((ch > al))"
        done | grep 1 > /dev/null
      # a block's pool, its parts one after the other: at least the critical path;
      # in key order (no phases; c: flowlets) no ingress or egress part, the rows'
      # part the critical path; in phases both parts
      MULTIVERSE_STATS=1 MULTIVERSE_PHASES=0 "$mv" net --topology "${topo[$b]}" --flows $b-0.txt \
        --flows $b-3.txt ${sets[$b]} -o phk-$b 2> phk-$b.err > /dev/null
      for f in phs phk; do
        paste <(grep -o 'critical path [0-9]*' $f-$b.err) \
          <(grep -o 'other row [0-9]*, then ingress [0-9]*, then egress [0-9]*' $f-$b.err | tr -d ,) |
          while read -r _ _ cp _ _ rw _ _ in _ _ out; do
            [ $((rw + in + out)) -ge "$cp" ] &&
              if [ $f = phk ] || [ $b = c ]; then [ "$in.$out.$rw" = "0.0.$cp" ]; else [ "$in" -gt 0 ] && [ "$out" -gt 0 ]; fi ||
              { echo "$b $f: rows $rw, ingress $in, egress $out, critical path $cp"; exit 1; }
          done
      done ;;
    cuda)
      if ! "$mv" net --topology "${topo[$b]}" --flows $b-0.txt --backend cuda -o probe --force > /dev/null 2> probe.err; then
        if grep -q -e 'no CUDA device' -e 'without the CUDA backend' probe.err; then
          echo "skipped: $(cat probe.err)"; exit 77
        fi
        cat probe.err; exit 1
      fi
      # Time series too: experiment 0's first flow, and the first switch's
      # queue towards host 0 (switches are numbered after the hosts).
      tr=(--trace-rates 0 --trace-queues "${hosts[$b]}:0" --trace-every-us 2)
      "$mv" net --topology "${topo[$b]}" "${args[@]}" ${sets[$b]} "${tr[@]}" --backend cpu -o cpu-$b > /dev/null
      "$mv" net --topology "${topo[$b]}" "${args[@]}" ${sets[$b]} "${tr[@]}" --backend cuda -o gpu-$b > /dev/null
      for i in $(seq 0 $((n - 1))); do cmp cpu-$b/fct-$i.txt gpu-$b/fct-$i.txt; done
      cmp cpu-$b/trace-0.csv gpu-$b/trace-0.csv
      # Every launch mode (one block per experiment, the persistent grid, one
      # kernel per system) and a device too small for the batch give the same
      # files. 16 MiB holds each experiment (the largest, batch e's, plans at
      # 5.1 MB; a batch may use 90 % of the device) but not the 32: the plan
      # cuts the batch in several (3 MiB, as before the one pipeline, made
      # every experiment of batches c and e an 'oom' row).
      MULTIVERSE_CUDA_LAUNCH=experiment "$mv" net --topology "${topo[$b]}" "${args[@]}" ${sets[$b]} --backend cuda -o exm-$b > /dev/null
      MULTIVERSE_PHASES=0 MULTIVERSE_CUDA_LAUNCH=persistent "$mv" net --topology "${topo[$b]}" "${args[@]}" ${sets[$b]} --backend cuda -o per-$b > /dev/null
      MULTIVERSE_CUDA_LAUNCH=systems "$mv" net --topology "${topo[$b]}" "${args[@]}" ${sets[$b]} --backend cuda -o sys-$b > /dev/null
      MULTIVERSE_VERBOSE=1 MULTIVERSE_CUDA_BYTES=$((16 << 20)) "$mv" net --topology "${topo[$b]}" "${args[@]}" ${sets[$b]} \
        --backend cuda -o split-$b > /dev/null 2> split-$b.err
      [ "$(grep -c '^world: ' split-$b.err)" -ge 2 ] # several batches (or halves) ran
      # SPME lanes: a block steps 4, 8 or 32 experiments side by side (a warp
      # the same node of each), each in its own windows, its rows dealt
      # interleaved over the warps (the default); lanes of 8 in the kernel compiled for 2
      # blocks of 512 a SM (64 registers: the default where the groups
      # outnumber the SMs).
      for l in 4 8 32; do
        MULTIVERSE_VERBOSE=1 MULTIVERSE_CUDA_LAUNCH=experiment MULTIVERSE_LANES=$l MULTIVERSE_CUDA_BLOCK=$((l == 4 ? 128 : 512)) \
          MULTIVERSE_CUDA_BLOCKS_PER_SM=$((l == 8 ? 2 : 1)) \
          "$mv" net --topology "${topo[$b]}" "${args[@]}" ${sets[$b]} --backend cuda -o lane$l-$b > /dev/null 2> lane$l-$b.err
        grep -q "rows spread" lane$l-$b.err
      done
      grep -q "blocks of 512 threads (2 a SM)" lane8-$b.err
      # The rows dealt far apart (MULTIVERSE_CUDA_DEAL=0, eng_deal_row; the
      # default deals them interleaved over the warps): in lanes of 8, and on
      # clusters of 2 with switch warps (warps numbered across the cluster;
      # the switches' rows skipped by the threads); packed into the first
      # warps (1) and spread over them (2, the default in lanes) on clusters
      # of 2, where a lane group of one experiment takes far apart by default
      # (each switch on its thread: without the pool, the default there).
      MULTIVERSE_VERBOSE=1 MULTIVERSE_CUDA_DEAL=0 MULTIVERSE_CUDA_LAUNCH=experiment MULTIVERSE_LANES=8 \
        "$mv" net --topology "${topo[$b]}" "${args[@]}" ${sets[$b]} --backend cuda -o far8-$b > /dev/null 2> far8-$b.err
      grep -q "rows far apart" far8-$b.err
      MULTIVERSE_VERBOSE=1 MULTIVERSE_CUDA_DEAL=0 MULTIVERSE_CUDA_LAUNCH=experiment MULTIVERSE_LANES=1 MULTIVERSE_CUDA_CLUSTER=2 \
        MULTIVERSE_CUDA_SWITCH_WARPS=1 "$mv" net --topology "${topo[$b]}" "${args[@]}" ${sets[$b]} --backend cuda -o farcl-$b > /dev/null 2> farcl-$b.err
      grep -q "clusters of 2, switch warps, rows far apart" farcl-$b.err
      MULTIVERSE_VERBOSE=1 MULTIVERSE_CUDA_DEAL=1 MULTIVERSE_CUDA_LAUNCH=experiment MULTIVERSE_LANES=1 MULTIVERSE_CUDA_CLUSTER=2 \
        MULTIVERSE_CUDA_POOL=0 "$mv" net --topology "${topo[$b]}" "${args[@]}" ${sets[$b]} --backend cuda -o packcl-$b > /dev/null 2> packcl-$b.err
      grep -q "clusters of 2, rows packed" packcl-$b.err
      MULTIVERSE_VERBOSE=1 MULTIVERSE_CUDA_DEAL=2 MULTIVERSE_CUDA_LAUNCH=experiment MULTIVERSE_LANES=1 MULTIVERSE_CUDA_CLUSTER=2 \
        MULTIVERSE_CUDA_POOL=0 "$mv" net --topology "${topo[$b]}" "${args[@]}" ${sets[$b]} --backend cuda -o sprcl-$b > /dev/null 2> sprcl-$b.err
      grep -q "clusters of 2, rows spread" sprcl-$b.err
      # One experiment per block, each switch stepped by a warp (cu_switch_step).
      MULTIVERSE_PHASES=0 MULTIVERSE_CUDA_LAUNCH=experiment MULTIVERSE_LANES=1 MULTIVERSE_CUDA_SWITCH_WARPS=1 \
        "$mv" net --topology "${topo[$b]}" "${args[@]}" ${sets[$b]} --backend cuda -o swarp-$b > /dev/null
      # An experiment per cluster of 2 or 4 blocks on as many SMs, with and
      # without switch warps (the block's pool by default where there are none).
      MULTIVERSE_VERBOSE=1 MULTIVERSE_CUDA_LAUNCH=experiment MULTIVERSE_LANES=1 MULTIVERSE_CUDA_CLUSTER=2 \
        "$mv" net --topology "${topo[$b]}" "${args[@]}" ${sets[$b]} --backend cuda -o cl2-$b > /dev/null 2> cl2-$b.err
      grep -qE "threads \(1 a SM\), clusters of 2, a pool for port phases" cl2-$b.err # the clusters ran, with the pool (the default there)
      # The same in the cluster kernel compiled for 2 blocks of 512 a SM (64
      # registers: MULTIVERSE_CUDA_BLOCKS_PER_SM=2), two clusters on two SMs.
      MULTIVERSE_VERBOSE=1 MULTIVERSE_CUDA_LAUNCH=experiment MULTIVERSE_LANES=1 MULTIVERSE_CUDA_CLUSTER=2 \
        MULTIVERSE_CUDA_BLOCKS_PER_SM=2 "$mv" net --topology "${topo[$b]}" "${args[@]}" ${sets[$b]} --backend cuda -o cl2x2-$b > /dev/null 2> cl2x2-$b.err
      grep -q "threads (2 a SM), clusters of 2, a pool for port phases" cl2x2-$b.err # the pool by default
      # Lanes of 2 in blocks of 512: the block's pool by default (eng_pool_default).
      MULTIVERSE_VERBOSE=1 MULTIVERSE_CUDA_LAUNCH=experiment MULTIVERSE_LANES=2 MULTIVERSE_CUDA_BLOCK=512 \
        "$mv" net --topology "${topo[$b]}" "${args[@]}" ${sets[$b]} --backend cuda -o lane2-$b > /dev/null 2> lane2-$b.err
      grep -q "lane groups of 2, .* a pool for port phases" lane2-$b.err
      MULTIVERSE_CUDA_LAUNCH=experiment MULTIVERSE_LANES=1 MULTIVERSE_CUDA_CLUSTER=4 MULTIVERSE_CUDA_SWITCH_WARPS=1 \
        "$mv" net --topology "${topo[$b]}" "${args[@]}" ${sets[$b]} --backend cuda -o cl4-$b > /dev/null
      # Switches in port phases on the GPU (a warp per switch, a thread per
      # port: the persistent mode and switch warps) where certified: the GPU's
      # default there (cl4 above; per and swarp in key order).
      MULTIVERSE_PHASES=1 MULTIVERSE_CUDA_LAUNCH=persistent "$mv" net --topology "${topo[$b]}" "${args[@]}" ${sets[$b]} \
        --backend cuda -o php-$b > /dev/null
      MULTIVERSE_PHASES=1 MULTIVERSE_CUDA_LAUNCH=experiment MULTIVERSE_LANES=1 MULTIVERSE_CUDA_SWITCH_WARPS=1 \
        "$mv" net --topology "${topo[$b]}" "${args[@]}" ${sets[$b]} --backend cuda -o phw-$b > /dev/null
      # The block's pool (MULTIVERSE_CUDA_POOL=1): the certified switch windows
      # of a block's rows stepped a thread per port by the whole block, in
      # lanes of 8, on clusters of 2, and on clusters of 2 two to a set of
      # SMs; the pool took switch steps (none with flowlets: c).
      MULTIVERSE_VERBOSE=1 MULTIVERSE_CUDA_POOL=1 MULTIVERSE_CUDA_LAUNCH=experiment MULTIVERSE_LANES=8 \
        "$mv" net --topology "${topo[$b]}" "${args[@]}" ${sets[$b]} --backend cuda -o pool8-$b > /dev/null 2> pool8-$b.err
      MULTIVERSE_VERBOSE=1 MULTIVERSE_CUDA_POOL=1 MULTIVERSE_CUDA_LAUNCH=experiment MULTIVERSE_LANES=1 MULTIVERSE_CUDA_CLUSTER=2 \
        "$mv" net --topology "${topo[$b]}" "${args[@]}" ${sets[$b]} --backend cuda -o poolcl-$b > /dev/null 2> poolcl-$b.err
      MULTIVERSE_VERBOSE=1 MULTIVERSE_CUDA_POOL=1 MULTIVERSE_CUDA_LAUNCH=experiment MULTIVERSE_LANES=1 MULTIVERSE_CUDA_CLUSTER=2 \
        MULTIVERSE_CUDA_BLOCKS_PER_SM=2 "$mv" net --topology "${topo[$b]}" "${args[@]}" ${sets[$b]} --backend cuda -o poolcl2-$b > /dev/null 2> poolcl2-$b.err
      # The pool changing the shared-buffer count per packet, not once at a
      # certified window's end (MULTIVERSE_CUDA_SETTLE=0; the runs above
      # settle, the default): lanes of 2 in blocks of 512, and clusters of 2.
      MULTIVERSE_VERBOSE=1 MULTIVERSE_CUDA_SETTLE=0 MULTIVERSE_CUDA_LAUNCH=experiment MULTIVERSE_LANES=2 \
        MULTIVERSE_CUDA_BLOCK=512 "$mv" net --topology "${topo[$b]}" "${args[@]}" ${sets[$b]} --backend cuda -o pkt2-$b > /dev/null 2> pkt2-$b.err
      MULTIVERSE_VERBOSE=1 MULTIVERSE_CUDA_SETTLE=0 MULTIVERSE_CUDA_POOL=1 MULTIVERSE_CUDA_LAUNCH=experiment MULTIVERSE_LANES=1 \
        MULTIVERSE_CUDA_CLUSTER=2 "$mv" net --topology "${topo[$b]}" "${args[@]}" ${sets[$b]} --backend cuda -o pktcl-$b > /dev/null 2> pktcl-$b.err
      # The pool's kernel in wider blocks, one a SM (MULTIVERSE_CUDA_POOL_THREADS):
      # lanes of 2 in blocks of 768, one experiment a block of 1,024, and one a
      # cluster of 2 blocks of 1,024.
      MULTIVERSE_VERBOSE=1 MULTIVERSE_CUDA_POOL_THREADS=768 MULTIVERSE_CUDA_LAUNCH=experiment MULTIVERSE_LANES=2 \
        MULTIVERSE_CUDA_BLOCK=512 "$mv" net --topology "${topo[$b]}" "${args[@]}" ${sets[$b]} --backend cuda -o pw768-$b > /dev/null 2> pw768-$b.err
      MULTIVERSE_VERBOSE=1 MULTIVERSE_CUDA_POOL_THREADS=1024 MULTIVERSE_CUDA_POOL=1 MULTIVERSE_CUDA_LAUNCH=experiment MULTIVERSE_LANES=1 \
        MULTIVERSE_CUDA_CLUSTER=1 MULTIVERSE_CUDA_BLOCKS_PER_SM=1 "$mv" net --topology "${topo[$b]}" "${args[@]}" ${sets[$b]} --backend cuda -o pw1k-$b > /dev/null 2> pw1k-$b.err
      MULTIVERSE_VERBOSE=1 MULTIVERSE_CUDA_POOL_THREADS=1024 MULTIVERSE_CUDA_POOL=1 MULTIVERSE_CUDA_LAUNCH=experiment MULTIVERSE_LANES=1 \
        MULTIVERSE_CUDA_CLUSTER=2 MULTIVERSE_CUDA_BLOCKS_PER_SM=1 "$mv" net --topology "${topo[$b]}" "${args[@]}" ${sets[$b]} --backend cuda -o pwcl-$b > /dev/null 2> pwcl-$b.err
      grep -q "blocks of 768 threads" pw768-$b.err
      grep -q "blocks of 1024 threads" pw1k-$b.err
      grep -q "blocks of 1024 threads (1 a SM), clusters of 2" pwcl-$b.err
      for o in pool8 poolcl poolcl2 pkt2 pktcl pw768 pw1k pwcl; do
        grep -q "a pool for port phases" $o-$b.err
        m=$(grep -o '[0-9]* switch steps in port phases' $o-$b.err | awk '{ s += $1 } END { print s + 0 }')
        if [ $b = c ]; then [ "$m" = 0 ]; else [ "$m" -gt 0 ]; fi
      done
      # Each switch stepped by a block of 128 threads (the persistent mode), as
      # many as fit: the others a thread each.
      MULTIVERSE_CUDA_SWITCH_BLOCK=1 MULTIVERSE_CUDA_LAUNCH=persistent "$mv" net --topology "${topo[$b]}" "${args[@]}" \
        ${sets[$b]} --backend cuda -o phb-$b > /dev/null
      # Compact rings (an overflow runs again after the batch) and worst-case
      # rings for every experiment (MULTIVERSE_RINGS; auto picks per experiment).
      # The worst-case world is the larger ("world: BYTES bytes, ...": the variable was honoured).
      MULTIVERSE_VERBOSE=1 MULTIVERSE_RINGS=compact "$mv" net --topology "${topo[$b]}" "${args[@]}" ${sets[$b]} --backend cuda -o rc-$b > /dev/null 2> rc-$b.err
      MULTIVERSE_VERBOSE=1 MULTIVERSE_RINGS=worst "$mv" net --topology "${topo[$b]}" "${args[@]}" ${sets[$b]} --backend cuda -o rw-$b > /dev/null 2> rw-$b.err
      [ "$(awk '/^world: / { print $2; exit }' rw-$b.err)" -gt "$(awk '/^world: / { print $2; exit }' rc-$b.err)" ]
      for i in $(seq 0 $((n - 1))); do
        for o in exm per sys split lane2 lane4 lane8 lane32 far8 farcl packcl sprcl swarp cl2 cl2x2 cl4 php phw phb pool8 poolcl poolcl2 pkt2 pktcl pw768 pw1k pwcl rc rw; do cmp cpu-$b/fct-$i.txt $o-$b/fct-$i.txt; done
      done
      [ "$(wc -l < cpu-$b/trace-0.csv)" -gt 2 ]
      # A batch mixing every CC and load balancer (--sweep) agrees as well.
      sw=(--flows $b-0.txt --flows $b-1.txt --sweep cc=none,dcqcn,dctcp,hpcc --sweep lb=ecmp,spray,adaptive)
      "$mv" net --topology "${topo[$b]}" "${sw[@]}" --backend cpu -o swc-$b > /dev/null
      "$mv" net --topology "${topo[$b]}" "${sw[@]}" --backend cuda -o swg-$b > /dev/null
      MULTIVERSE_CUDA_LAUNCH=experiment MULTIVERSE_LANES=16 \
        "$mv" net --topology "${topo[$b]}" "${sw[@]}" --backend cuda -o swl-$b > /dev/null
      for i in $(seq 0 23); do cmp swc-$b/fct-$i.txt swg-$b/fct-$i.txt; cmp swc-$b/fct-$i.txt swl-$b/fct-$i.txt; done
      # The counters agree too (summary minus wall time and backend).
      strip() { sed -e 's/"backend":"[a-z]*",//' -e 's/,"wall_s":.*}/}/' "$1"; }
      for o in gpu poolcl pkt2 pktcl pw768; do diff <(strip cpu-$b/summary.jsonl) <(strip $o-$b/summary.jsonl); done ;;
  esac
done
if [ "$mode" = cuda ]; then
  # A star of 100 hosts (switch A, 101 ports) and a leaf of 4 hosts on it
  # (switch B, 5 ports). A's port phases by a warp
  # (MULTIVERSE_CUDA_SWITCH_BLOCK=0: a thread every 32nd port) and by a block
  # of 128 threads (the default for a switch of more than 32 ports: a thread
  # per port, the egresses' scan across 4 warps), then B's warps in the same
  # slot table; A's key order by the block's first warp; against the CPU (key
  # order on a switch of 32 ports or more); the phases ran.
  h=104
  { echo "$((h + 2)) 2 $((h + 1))"; echo "$h $((h + 1))"
    for i in $(seq 0 $((h - 1))); do echo "$i $((h + (i >= 100))) 100Gbps 1000ns 0"; done
    echo "$h $((h + 1)) 100Gbps 1000ns 0"; } > star.txt
  st=()
  for i in 0 1 2 3; do
    case $i in
      0) "$gen" permutation $h 7 1 200000 0 ;;
      1) "$gen" incast $h 8 60 30000 0 5 ;;
      2) "$gen" random $h 9 400 20000 50000 ;;
      3) "$gen" random $h 10 150 100000 20000 ;;
    esac > star-$i.txt
    st+=(--flows star-$i.txt)
  done
  s=(--topology star.txt "${st[@]}" --set cc=dcqcn --set buffer_mb=4)
  "$mv" net "${s[@]}" --backend cpu -o star-cpu > /dev/null
  MULTIVERSE_VERBOSE=1 MULTIVERSE_CUDA_SWITCH_BLOCK=0 "$mv" net "${s[@]}" --backend cuda -o star-warp > /dev/null 2> star-warp.err
  MULTIVERSE_VERBOSE=1 "$mv" net "${s[@]}" --backend cuda -o star-block > /dev/null 2> star-block.err
  MULTIVERSE_PHASES=0 "$mv" net "${s[@]}" --backend cuda -o star-bkeys > /dev/null
  grep -q "(8 switches alone in a warp, 0 in a block)" star-warp.err
  grep -q "(4 switches alone in a warp, 4 in a block)" star-block.err
  for f in star-warp.err star-block.err; do
    [ "$(sed -n 's/.* \([0-9]*\) switch steps in port phases$/\1/p' $f | head -1)" -gt 100 ]
  done
  for i in 0 1 2 3; do for o in warp block bkeys; do cmp star-cpu/fct-$i.txt star-$o/fct-$i.txt; done; done
  strip() { sed -e 's/"backend":"[a-z]*",//' -e 's/,"wall_s":.*}/}/' "$1"; }
  diff <(strip star-cpu/summary.jsonl) <(strip star-block/summary.jsonl)
  # The incast with 2 MB buffers: switch A's queue reaches 473 descriptors,
  # its compact pool holds 329 (a quarter of 505 + 8 x 101): the experiment
  # fails its first run on both backends and runs again with worst-case
  # pools; with them from the start (MULTIVERSE_POOLS=worst) it runs once.
  # The same results all three ways.
  s=(--topology star.txt --flows star-1.txt --set cc=dcqcn --set buffer_mb=2)
  MULTIVERSE_VERBOSE=1 "$mv" net "${s[@]}" --backend cpu -o inc-cpu > /dev/null 2> inc-cpu.err
  MULTIVERSE_VERBOSE=1 "$mv" net "${s[@]}" --backend cuda -o inc-gpu > /dev/null 2> inc-gpu.err
  MULTIVERSE_VERBOSE=1 MULTIVERSE_POOLS=worst "$mv" net "${s[@]}" --backend cuda -o inc-gpw > /dev/null 2> inc-gpw.err
  grep -q '^storage overflowed in 1 experiment(s) (0 rings, 1 pools)' inc-cpu.err
  grep -q '^storage overflowed in 1 experiment(s) (0 rings, 1 pools)' inc-gpu.err
  [ "$(grep -c 'storage overflowed' inc-gpw.err)" = 0 ]
  cmp inc-cpu/fct-0.txt inc-gpu/fct-0.txt
  cmp inc-cpu/fct-0.txt inc-gpw/fct-0.txt
fi
# Every experiment finished and the files are not trivially empty.
for f in out-a/fct-*.txt t1-a/fct-*.txt cpu-a/fct-*.txt; do [ -e "$f" ] || continue; [ -s "$f" ]; done
echo "$mode: identical"
