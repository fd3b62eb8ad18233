#!/usr/bin/env python3
"""NCCL collective timings on the GPUs of one machine, printed as nccl-tests
prints them (so `multiverse calibrate` reads them), for machines where
nccl-tests is not installed but PyTorch is. One process per GPU
(torch.multiprocessing), NCCL backend, float32 elements (nccl-tests' default);
each size timed with CUDA events over `iters` runs after a warm-up, the median
rank-0 time reported in both the out-of-place and in-place columns (the
operations are in place).

usage: nccl_perf.py COLLECTIVE GPUS MIN_BYTES MAX_BYTES [ITERS] > LOG
  COLLECTIVE all_reduce | all_gather | reduce_scatter | alltoall | broadcast
"""
import os
import socket
import statistics
import sys

import torch
import torch.distributed as dist
import torch.multiprocessing as mp

# nccl-tests' bus factors (doc/PERFORMANCE.md): busbw = algbw * factor.
FACTORS = {
    "all_reduce": lambda n: 2 * (n - 1) / n,
    "all_gather": lambda n: (n - 1) / n,
    "reduce_scatter": lambda n: (n - 1) / n,
    "alltoall": lambda n: (n - 1) / n,
    "broadcast": lambda n: 1.0,
}


def run(coll, n, size, warmup, iters, rank):
    """Median time (us) of one collective of `size` bytes (nccl-tests' size:
    the buffer of all_reduce/broadcast/alltoall, the gathered buffer of
    all_gather, the input of reduce_scatter)."""
    count = max(size // 4, n)
    dev = torch.device("cuda", rank)
    if coll in ("all_gather", "reduce_scatter"):
        count -= count % n
        big = torch.ones(count, dtype=torch.float32, device=dev)
        small = torch.ones(count // n, dtype=torch.float32, device=dev)
        op = (lambda: dist.all_gather_into_tensor(big, small)) if coll == "all_gather" else (
            lambda: dist.reduce_scatter_tensor(small, big))
    elif coll == "alltoall":
        count -= count % n
        a = torch.ones(count, dtype=torch.float32, device=dev)
        b = torch.empty_like(a)
        op = lambda: dist.all_to_all_single(b, a)
    elif coll == "broadcast":
        a = torch.ones(count, dtype=torch.float32, device=dev)
        op = lambda: dist.broadcast(a, 0)
    else:
        a = torch.ones(count, dtype=torch.float32, device=dev)
        op = lambda: dist.all_reduce(a)
    for _ in range(warmup):
        op()
    torch.cuda.synchronize(dev)
    times = []
    for _ in range(iters):
        s, e = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        dist.barrier()
        s.record()
        op()
        e.record()
        torch.cuda.synchronize(dev)
        times.append(s.elapsed_time(e) * 1000.0)
    return count * 4, statistics.median(times)


def worker(rank, coll, n, lo, hi, iters, port):
    os.environ.update(MASTER_ADDR="127.0.0.1", MASTER_PORT=str(port))
    torch.cuda.set_device(rank)
    dist.init_process_group("nccl", rank=rank, world_size=n)
    rows = []
    size = lo
    while size <= hi:
        rows.append(run(coll, n, size, 5, iters, rank))
        size *= 2
    if rank == 0:
        host = socket.gethostname()
        name = torch.cuda.get_device_name(0)
        print(f"# nccl-tests version (format) of multiverse tools/measure/nccl_perf.py: torch "
              f"{torch.__version__}, NCCL {'.'.join(map(str, torch.cuda.nccl.version()))}")
        print(f"# Collective test starting: {coll}_perf")
        print(f"# nThread 1 nGpus {n} minBytes {lo} maxBytes {hi} step: 2(factor) warmup iters: 5 "
              f"iters: {iters} agg iters: 1 validation: 0 graph: 0")
        print("#\n# Using devices")
        for r in range(n):
            bus = torch.cuda.get_device_properties(r).pci_bus_id if hasattr(
                torch.cuda.get_device_properties(r), "pci_bus_id") else r
            print(f"#  Rank {r:2d} Group  0 Pid {os.getpid():6d} on {host:>10s} device {r:2d} "
                  f"[{bus}] {torch.cuda.get_device_name(r)}")
        print("#\n#       size         count      type   redop    root     time   algbw   busbw"
              "  #wrong     time   algbw   busbw  #wrong")
        f = FACTORS[coll](n)
        for size, t in rows:
            alg = size / t / 1000.0
            print(f"{size:12d}  {size // 4:12d}  {'float':>8s}  {'sum':>6s}  {-1:6d}  {t:7.2f}  "
                  f"{alg:6.2f}  {alg * f:6.2f}  {0:6d}  {t:7.2f}  {alg:6.2f}  {alg * f:6.2f}  {0:6d}")
        print("# Out of bounds values : 0 OK")
        print(f"# {name}")
    dist.destroy_process_group()


if __name__ == "__main__":
    coll, n, lo, hi = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4])
    iters = int(sys.argv[5]) if len(sys.argv) > 5 else 20
    mp.spawn(worker, args=(coll, n, lo, hi, iters, 29500 + os.getpid() % 1000), nprocs=n)
