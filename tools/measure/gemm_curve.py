#!/usr/bin/env python3
"""Dense bf16 GEMM throughput (TFLOP/s) on one GPU through PyTorch (cuBLAS), for
the compute model's efficiency curve: the shapes of
jobs/presets/gpus.json's gemm rows (m, n, k), random data, the median of `iters`
timed products after warm-up (CUDA events). Prints JSON rows [m, n, k, tflops].

usage: gemm_curve.py [ITERS]
"""
import json
import statistics
import sys

import torch

SHAPES = [(1024, 1024, 1024), (2048, 2048, 2048), (4096, 4096, 4096), (8192, 8192, 8192),
          (16384, 16384, 16384), (1024, 2145, 1024), (6144, 12288, 12288), (802816, 192, 768),
          (2048, 4096, 1024), (4096, 16384, 4096), (8192, 1024, 8192), (512, 512, 512)]


def tflops(m, n, k, iters):
    a = torch.randn(m, k, dtype=torch.bfloat16, device="cuda")
    b = torch.randn(k, n, dtype=torch.bfloat16, device="cuda")
    for _ in range(3):
        a @ b
    torch.cuda.synchronize()
    times = []
    for _ in range(iters):
        s, e = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        s.record()
        a @ b
        e.record()
        torch.cuda.synchronize()
        times.append(s.elapsed_time(e) / 1000.0)
    return 2.0 * m * n * k / statistics.median(times) / 1e12


if __name__ == "__main__":
    iters = int(sys.argv[1]) if len(sys.argv) > 1 else 20
    rows = [[m, n, k, round(tflops(m, n, k, iters), 1)] for m, n, k in SHAPES]
    print(json.dumps({"gpu": torch.cuda.get_device_name(0), "torch": torch.__version__,
                      "dtype": "bf16", "iters": iters, "columns": ["m", "n", "k", "tflops"],
                      "gemm": rows}, indent=1))
