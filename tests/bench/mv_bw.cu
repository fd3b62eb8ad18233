/* mv_bw: device memory copy bandwidth of GPU 0 (bytes read plus bytes written
 * per second), by cudaMemcpy and by a 16-byte-vector copy kernel.
 * usage: mv_bw [MIB] [REPS]   (default 4096 MiB per buffer, 9 repetitions) */
#include <cuda_runtime.h>
#include <stdio.h>
#include <stdlib.h>

static int check(cudaError_t e, const char *what) {
  if (e == cudaSuccess) return 0;
  fprintf(stderr, "mv_bw: %s: %s\n", what, cudaGetErrorString(e));
  return 1;
}

static __global__ void k_copy(const int4 *src, int4 *dst, size_t n) {
  size_t stride = (size_t)gridDim.x * blockDim.x;
  for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride)
    dst[i] = src[i];
}

static int cmp_float(const void *a, const void *b) {
  float x = *(const float *)a, y = *(const float *)b;
  return (x > y) - (x < y);
}

/* Median time (ms) of reps copies of `bytes`: by the kernel, or cudaMemcpy. */
static int time_copy(int kernel, const int4 *src, int4 *dst, size_t bytes, int reps, int sms,
                     float *median_ms) {
  cudaEvent_t a, b;
  float ms[64];
  if (check(cudaEventCreate(&a), "event") || check(cudaEventCreate(&b), "event")) return 1;
  for (int r = -1; r < reps; r++) { /* r = -1: warm-up */
    cudaEventRecord(a);
    if (kernel)
      k_copy<<<sms * 8, 256>>>(src, dst, bytes / sizeof(int4));
    else
      cudaMemcpy(dst, src, bytes, cudaMemcpyDeviceToDevice);
    cudaEventRecord(b);
    if (check(cudaEventSynchronize(b), "copy")) return 1;
    if (r >= 0) cudaEventElapsedTime(&ms[r], a, b);
  }
  qsort(ms, (size_t)reps, sizeof ms[0], cmp_float);
  *median_ms = ms[reps / 2];
  cudaEventDestroy(a);
  cudaEventDestroy(b);
  return 0;
}

int main(int argc, char **argv) {
  size_t mib = argc > 1 ? strtoull(argv[1], NULL, 10) : 4096;
  int reps = argc > 2 ? atoi(argv[2]) : 9;
  if (mib < 1 || reps < 1 || reps > 64) {
    fprintf(stderr, "usage: mv_bw [MIB >= 1] [REPS 1..64]\n");
    return 2;
  }
  size_t bytes = mib << 20;
  int4 *src, *dst;
  cudaDeviceProp prop;
  if (check(cudaGetDeviceProperties(&prop, 0), "device 0") ||
      check(cudaMalloc((void **)&src, bytes), "cudaMalloc") ||
      check(cudaMalloc((void **)&dst, bytes), "cudaMalloc") ||
      check(cudaMemset(src, 1, bytes), "cudaMemset"))
    return 1;
  float memcpy_ms, kernel_ms;
  if (time_copy(0, src, dst, bytes, reps, prop.multiProcessorCount, &memcpy_ms) ||
      time_copy(1, src, dst, bytes, reps, prop.multiProcessorCount, &kernel_ms))
    return 1;
  double moved = 2.0 * (double)bytes; /* read + write */
  printf("mv_bw: %s, %zu MiB copied, median of %d: cudaMemcpy %.4g B/s, kernel %.4g B/s "
         "(read + write)\n",
         prop.name, mib, reps, moved / (memcpy_ms * 1e-3), moved / (kernel_ms * 1e-3));
  cudaFree(src);
  cudaFree(dst);
  return 0;
}
