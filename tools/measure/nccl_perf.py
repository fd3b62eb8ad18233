#!/usr/bin/env python3
"""NCCL collective timings on the GPUs of one machine, printed as nccl-tests
prints them (so `multiverse calibrate` reads them), for machines where
nccl-tests is not installed but PyTorch is. One process per GPU
(torch.multiprocessing), NCCL backend, float32 elements (nccl-tests' default).

Timed as nccl-tests times (its common.cu, BenchTime): per size, WARMUP
operations, a barrier, then ITERS operations launched back to back on the
stream between two CUDA events, the elapsed time divided by ITERS; each rank
times its own loop and the time reported is their average (nccl-tests'
default `-a 1`). The single-operation timing of earlier versions (the median of
separately timed operations, PyTorch's dispatch included in each) is kept as
`--single` to reproduce the shipped curves (jobs/presets/measured/h200).

usage: nccl_perf.py COLLECTIVE GPUS MIN_BYTES MAX_BYTES [ITERS] [--warmup N] [--single] > LOG
  COLLECTIVE all_reduce | all_gather | reduce_scatter | alltoall | broadcast
  ITERS      operations per timed loop (default 20, nccl-tests' -n)
  --warmup N operations before it (default 5, nccl-tests' -w)
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


def make_op(coll, n, size, rank):
    """The collective of `size` bytes (nccl-tests' size: the buffer of
    all_reduce/broadcast/alltoall, the gathered buffer of all_gather, the input
    of reduce_scatter) and its byte count."""
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
    return op, count * 4


def run(coll, n, size, warmup, iters, rank, single):
    """Time (us) of one collective: nccl-tests' loop (ITERS back to back between
    two events, divided, averaged over the ranks), or with `single` the median
    of ITERS separately timed operations on rank 0."""
    op, nbytes = make_op(coll, n, size, rank)
    dev = torch.device("cuda", rank)
    for _ in range(warmup):
        op()
    torch.cuda.synchronize(dev)
    if single:
        times = []
        for _ in range(iters):
            s, e = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
            dist.barrier()
            s.record()
            op()
            e.record()
            torch.cuda.synchronize(dev)
            times.append(s.elapsed_time(e) * 1000.0)
        return nbytes, statistics.median(times)
    s, e = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    dist.barrier()
    torch.cuda.synchronize(dev)
    s.record()
    for _ in range(iters):
        op()
    e.record()
    torch.cuda.synchronize(dev)
    t = torch.tensor([s.elapsed_time(e) * 1000.0 / iters], dtype=torch.float64, device=dev)
    dist.all_reduce(t)  # nccl-tests' -a 1: the ranks' average
    return nbytes, t.item() / n


def worker(rank, coll, n, lo, hi, iters, warmup, single, port):
    os.environ.update(MASTER_ADDR="127.0.0.1", MASTER_PORT=str(port))
    torch.cuda.set_device(rank)
    dist.init_process_group("nccl", rank=rank, world_size=n)
    rows = []
    size = lo
    while size <= hi:
        rows.append(run(coll, n, size, warmup, iters, rank, single))
        size *= 2
    if rank == 0:
        host = socket.gethostname()
        name = torch.cuda.get_device_name(0)
        print(f"# nccl-tests version (format) of multiverse tools/measure/nccl_perf.py: torch "
              f"{torch.__version__}, NCCL {'.'.join(map(str, torch.cuda.nccl.version()))}")
        print(f"# Collective test starting: {coll}_perf")
        print(f"# nThread 1 nGpus {n} minBytes {lo} maxBytes {hi} step: 2(factor) warmup iters: "
              f"{warmup} iters: {iters} agg iters: 1 validation: 0 graph: 0")
        how = ("the median of single operations (--single)" if single else
               "a loop of ITERS operations between two CUDA events, divided, averaged over ranks")
        print(f"# timing: {how}")
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
    args = [a for a in sys.argv[1:]]
    single = "--single" in args
    if single:
        args.remove("--single")
    warmup = 5
    if "--warmup" in args:
        i = args.index("--warmup")
        warmup = int(args[i + 1])
        del args[i:i + 2]
    if len(args) not in (4, 5):
        sys.exit(__doc__)
    coll, n, lo, hi = args[0], int(args[1]), int(args[2]), int(args[3])
    iters = int(args[4]) if len(args) > 4 else 20
    if coll not in FACTORS or n < 1 or lo < 1 or hi < lo or iters < 1 or warmup < 0:
        sys.exit(__doc__)
    mp.spawn(worker, args=(coll, n, lo, hi, iters, warmup, single, 29500 + os.getpid() % 1000),
             nprocs=n)
