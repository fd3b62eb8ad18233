/* The flow level's CUDA backend: the CPU's event loop (flw_step.h, the same
 * integer arithmetic), one thread per experiment. The experiments' rows go to
 * one device arena, as many experiments at a time as the device's free memory
 * (or MULTIVERSE_CUDA_BYTES) holds (rows of consecutive experiments are
 * contiguous in every table), and come back when all of them have ended. */
#include <cuda_runtime.h>

#include "base/base_cuda.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

extern "C" {
#include "flow/flw_step.h"
#include "sim/eng_num.h"
size_t eng_cuda_free_bytes(void);
}


/* The chunk's column pointers, for every thread, in constant memory (set by
 * cudaMemcpyToSymbol before each launch), as the packet level's cu_c
 * (engine/sim/eng_cuda.cu): every thread reads the same pointer at once (one
 * broadcast), and no kernel parameter's address is taken, which could make
 * nvcc copy the 712-byte struct to each thread's stack. */
static __constant__ flw_cols_t flw_dc;

__global__ void flw_k_run(int32_t n) {
  const flw_cols_t *c = (const flw_cols_t *)&flw_dc;
  int32_t e = (int32_t)(blockIdx.x * blockDim.x + threadIdx.x);
  if (e < n && c->exp_status[e] == ENG_RUNNING) flw_exp_run(c, e);
}

/* Rows of table k held by experiments [a, b). */
static int64_t flw_span(const flw_world_t *w, int k, int32_t a, int32_t b) {
  if (k == FLW_T_exp) return b - a;
  int64_t end = b < w->n_exps ? w->c.off[k][b] : w->rows[k];
  return end - w->c.off[k][a];
}

static int64_t flw_first(const flw_world_t *w, int k, int32_t a) {
  return k == FLW_T_exp ? a : w->c.off[k][a];
}

/* Device bytes of experiments [a, b): every column's rows, 256-byte aligned,
 * and their offsets and counts. */
static size_t flw_chunk_bytes(const flw_world_t *w, int32_t a, int32_t b) {
  size_t s = 0;
#define FLW_SZ(tab, type, name)                                                                    \
  s += ((size_t)(flw_span(w, FLW_T_##tab, a, b) + 1) * sizeof(type) + 255) & ~(size_t)255;
  FLW_COLUMNS(FLW_SZ)
#undef FLW_SZ
  return s + FLW_T_COUNT * (((size_t)(b - a) + 1) * 12 + 512);
}

/* Experiments [a, b) on the device: up, run, down. ENG_E_NOMEM if they do not
 * fit, -1 on another failure. */
static int flw_chunk(flw_world_t *w, int32_t a, int32_t b, char *err, size_t errlen) {
  size_t bytes = flw_chunk_bytes(w, a, b), at = 0;
  int32_t n = b - a;
  char *arena = NULL;
  flw_cols_t d;
  int64_t *off = (int64_t *)malloc(((size_t)n + 1) * sizeof *off);
  int rc = -1;
  memset(&d, 0, sizeof d);
  if (!off) {
    snprintf(err, errlen, "out of memory staging the flow level's offsets");
    return -1;
  }
  if (bytes > eng_cuda_free_bytes()) { /* MULTIVERSE_CUDA_BYTES caps it too */
    free(off);
    snprintf(err, errlen, "%d experiments need %zu bytes on the GPU, more than it has free", n,
             bytes);
    return ENG_E_NOMEM;
  }
  cudaError_t ae = cudaMalloc((void **)&arena, bytes);
  if (ae != cudaSuccess) {
    cudaGetLastError();
    free(off);
    snprintf(err, errlen, "cannot allocate %zu bytes on the GPU: %s", bytes,
             cudaGetErrorString(ae));
    return ae == cudaErrorMemoryAllocation ? ENG_E_NOMEM : -1;
  }
#define FLW_UP(tab, type, name)                                                                    \
  d.tab##_##name = (type *)(arena + at);                                                           \
  BASE_CUDA_TRY(cudaMemcpy(d.tab##_##name, w->c.tab##_##name + flw_first(w, FLW_T_##tab, a),        \
                          (size_t)flw_span(w, FLW_T_##tab, a, b) * sizeof(type),                   \
                          cudaMemcpyHostToDevice));                                                \
  at += ((size_t)(flw_span(w, FLW_T_##tab, a, b) + 1) * sizeof(type) + 255) & ~(size_t)255;
  FLW_COLUMNS(FLW_UP)
#undef FLW_UP
  for (int k = 0; k < FLW_T_COUNT; k++) { /* offsets from the chunk's first row */
    for (int32_t e = 0; e < n; e++)
      off[e] = w->c.off[k][a + e] - w->c.off[k][a];
    d.off[k] = (int64_t *)(arena + at);
    at += (((size_t)n + 1) * sizeof(int64_t) + 255) & ~(size_t)255;
    d.cnt[k] = (int32_t *)(arena + at);
    at += (((size_t)n + 1) * sizeof(int32_t) + 255) & ~(size_t)255;
    BASE_CUDA_TRY(cudaMemcpy(d.off[k], off, (size_t)n * sizeof(int64_t), cudaMemcpyHostToDevice));
    BASE_CUDA_TRY(
        cudaMemcpy(d.cnt[k], w->c.cnt[k] + a, (size_t)n * sizeof(int32_t), cudaMemcpyHostToDevice));
  }
  BASE_CUDA_TRY(cudaMemcpyToSymbol(flw_dc, &d, sizeof d));
  flw_k_run<<<(unsigned)((n + 63) / 64), 64>>>(n);
  BASE_CUDA_TRY(cudaGetLastError());
  BASE_CUDA_TRY(cudaDeviceSynchronize());
#define FLW_DOWN(tab, type, name)                                                                  \
  BASE_CUDA_TRY(cudaMemcpy(w->c.tab##_##name + flw_first(w, FLW_T_##tab, a), d.tab##_##name,        \
                          (size_t)flw_span(w, FLW_T_##tab, a, b) * sizeof(type),                   \
                          cudaMemcpyDeviceToHost));
  FLW_COLUMNS(FLW_DOWN)
#undef FLW_DOWN
  rc = 0;
fail:
  cudaFree(arena);
  free(off);
  return rc;
}

extern "C" int flw_run_cuda(flw_world_t *w, char *err, size_t errlen) {
  int n_dev = 0;
  if (cudaGetDeviceCount(&n_dev) != cudaSuccess || n_dev == 0) {
    cudaGetLastError();
    snprintf(err, errlen, "--backend cuda: no CUDA device is present");
    return ENG_E_DEVICE;
  }
  /* As many experiments at a time as fit (a chunk that does not is halved). */
  int32_t chunks = 0;
  for (int32_t a = 0, step = w->n_exps; a < w->n_exps;) {
    int32_t b = a + step < w->n_exps ? a + step : w->n_exps;
    int rc = flw_chunk(w, a, b, err, errlen);
    if (rc == ENG_E_NOMEM && b - a > 1) {
      step = (b - a) / 2;
      continue;
    }
    if (rc) return rc == ENG_E_NOMEM ? ENG_E_NOMEM : ENG_E_DEVICE;
    a = b;
    chunks++;
  }
  if (eng_env_flag("MULTIVERSE_VERBOSE")) { /* tests/cli/flow_sweep_cuda.sh reads it */
    size_t one = 0;
    for (int32_t e = 0; e < w->n_exps; e++) {
      size_t x = flw_chunk_bytes(w, e, e + 1);
      one = x > one ? x : one;
    }
    fprintf(stderr,
            "flow level on the GPU: %d experiments in %d chunks (%zu bytes, one at most %zu)\n",
            w->n_exps, chunks, flw_chunk_bytes(w, 0, w->n_exps), one);
  }
  return 0;
}
