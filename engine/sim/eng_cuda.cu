/* CUDA backend: the same systems as the CPU backend (eng_step.h), one kernel per
 * system per window, one thread per row. The world's columns are copied to the
 * GPU once, stepped there until every experiment ends, and copied back. */
#include <cuda_runtime.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

extern "C" {
#include "sim/eng_progress.h"
#include "sim/eng_step.h"
}

#define CUDA_CHECK(call)                                                                           \
  do {                                                                                             \
    cudaError_t err_ = (call);                                                                     \
    if (err_ != cudaSuccess) {                                                                     \
      fprintf(stderr, "%s:%d: CUDA error: %s (%s)\n", __FILE__, __LINE__,                          \
              cudaGetErrorString(err_), #call);                                                    \
      abort();                                                                                     \
    }                                                                                              \
  } while (0)

static __global__ void k_node_step(eng_cols_t c, int32_t n) {
  int32_t i = (int32_t)(blockIdx.x * blockDim.x + threadIdx.x);
  if (i < n) eng_node_step(&c, i);
}

static __global__ void k_port_commit(eng_cols_t c, int32_t n) {
  int32_t i = (int32_t)(blockIdx.x * blockDim.x + threadIdx.x);
  if (i < n) eng_port_commit(&c, i);
}

static __global__ void k_trace_sample(eng_cols_t c, int32_t n) {
  int32_t i = (int32_t)(blockIdx.x * blockDim.x + threadIdx.x);
  if (i < n) eng_trace_sample(&c, i);
}

static __global__ void k_exp_advance(eng_cols_t c, int32_t n, int *running) {
  int32_t i = (int32_t)(blockIdx.x * blockDim.x + threadIdx.x);
  if (i < n && eng_exp_advance(&c, i)) *running = 1;
}

static size_t col_bytes(const eng_world_t *w, int t, size_t elem) {
  return elem * (size_t)(w->n[t] ? w->n[t] : 1);
}

static double now_s(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static unsigned blocks(int64_t n, unsigned threads) {
  return (unsigned)((n + threads - 1) / threads);
}

extern "C" int eng_cuda_available(void) {
  int n = 0;
  return cudaGetDeviceCount(&n) == cudaSuccess && n > 0;
}

extern "C" const char *eng_cuda_unavailable_reason(void) {
  return "no CUDA device is present";
}

extern "C" int eng_run_cuda(eng_world_t *w, char *err, size_t errlen) {
  if (!eng_cuda_available()) {
    snprintf(err, errlen, "--backend cuda: no CUDA device is present");
    return -1;
  }
  eng_cols_t d;
  double t0 = now_s();
  /* Packet storage (descriptor pools, link rings, PFC rings) is only ever read
   * where the run wrote it first: it is allocated on the GPU, never copied. */
#define ENG_UP(tab, type, name)                                                                    \
  CUDA_CHECK(cudaMalloc((void **)&d.tab##_##name, col_bytes(w, ENG_T_##tab, sizeof(type))));       \
  if (!eng_table_is_storage(ENG_T_##tab))                                                          \
    CUDA_CHECK(cudaMemcpy(d.tab##_##name, w->c.tab##_##name,                                       \
                          col_bytes(w, ENG_T_##tab, sizeof(type)), cudaMemcpyHostToDevice));
  ENG_COLUMNS(ENG_UP)
#undef ENG_UP
  double t1 = now_s();
  int64_t windows = 0;
  int *d_running;
  CUDA_CHECK(cudaMalloc((void **)&d_running, sizeof(int)));
  const unsigned T = 128;
  const int32_t nn = (int32_t)w->n[ENG_T_node], np = (int32_t)w->n[ENG_T_port];
  const int32_t ne = (int32_t)w->n[ENG_T_exp];
  const int32_t ns = (int32_t)w->n[ENG_T_tser];
  int running = 1, chunk = 8;
  eng_progress_t pg;
  eng_progress_begin(&pg);
  while (running) {
    /* `chunk` windows per check of the host-visible flag; the last window of the
     * chunk decides. Windows after every experiment ended do nothing. */
    for (int i = 0; i < chunk; i++) {
      k_node_step<<<blocks(nn, T), T>>>(d, nn);
      k_port_commit<<<blocks(np, T), T>>>(d, np);
      if (ns) k_trace_sample<<<blocks(ns, T), T>>>(d, ns);
      if (i == chunk - 1) CUDA_CHECK(cudaMemsetAsync(d_running, 0, sizeof(int)));
      k_exp_advance<<<blocks(ne, T), T>>>(d, ne, d_running);
    }
    windows += chunk;
    CUDA_CHECK(cudaGetLastError());
    CUDA_CHECK(cudaMemcpy(&running, d_running, sizeof(int), cudaMemcpyDeviceToHost));
    if (running && eng_progress_due(&pg)) {
      CUDA_CHECK(cudaMemcpy(w->c.exp_status, d.exp_status, sizeof(int32_t) * (size_t)ne,
                            cudaMemcpyDeviceToHost));
      CUDA_CHECK(
          cudaMemcpy(w->c.exp_t, d.exp_t, sizeof(int64_t) * (size_t)ne, cudaMemcpyDeviceToHost));
      eng_progress_report(&pg, w->c.exp_status, w->c.exp_t, ne);
    }
    if (chunk < 256) chunk *= 2;
  }
  double t2 = now_s();
#define ENG_DOWN(tab, type, name)                                                                  \
  if (!eng_table_is_storage(ENG_T_##tab))                                                          \
    CUDA_CHECK(cudaMemcpy(w->c.tab##_##name, d.tab##_##name,                                       \
                          col_bytes(w, ENG_T_##tab, sizeof(type)), cudaMemcpyDeviceToHost));       \
  CUDA_CHECK(cudaFree(d.tab##_##name));
  ENG_COLUMNS(ENG_DOWN)
#undef ENG_DOWN
  CUDA_CHECK(cudaFree(d_running));
  if (getenv("MULTIVERSE_VERBOSE"))
    fprintf(stderr, "cuda: upload %.3f s, %lld windows launched %.3f s, download %.3f s\n", t1 - t0,
            (long long)windows, t2 - t1, now_s() - t2);
  return 0;
}
