/* Qualifiers and the few primitives that differ between the CPU and CUDA
 * backends. Model code uses only these names and never tests __CUDACC__. */
#ifndef ENG_HD_H
#define ENG_HD_H

#include <stdint.h>

#ifdef __CUDACC__
#define ENG_HD __host__ __device__
#define ENG_DEV __device__
#else
#define ENG_HD
#define ENG_DEV
#endif

#define ENG_INLINE static inline ENG_HD

/* Commutative reductions only (next-event minimum, counters, wake-up flags):
 * never model state. */
#ifdef __CUDA_ARCH__
ENG_INLINE void eng_atomic_min_i64(int64_t *p, int64_t v) {
  atomicMin((long long *)p, (long long)v);
}
ENG_INLINE void eng_atomic_add_i64(int64_t *p, int64_t v) {
  atomicAdd((unsigned long long *)p, (unsigned long long)v);
}
/* Raises a flag that several rows may raise at once (they all store 1). */
ENG_INLINE void eng_flag_raise(uint8_t *p) {
  *(volatile uint8_t *)p = 1;
}
#else
ENG_INLINE void eng_atomic_min_i64(int64_t *p, int64_t v) {
  int64_t cur = __atomic_load_n(p, __ATOMIC_RELAXED);
  while (v < cur &&
         !__atomic_compare_exchange_n(p, &cur, v, 1, __ATOMIC_RELAXED, __ATOMIC_RELAXED)) {
  }
}
ENG_INLINE void eng_atomic_add_i64(int64_t *p, int64_t v) {
  __atomic_fetch_add(p, v, __ATOMIC_RELAXED);
}
ENG_INLINE void eng_flag_raise(uint8_t *p) {
  __atomic_store_n(p, (uint8_t)1, __ATOMIC_RELAXED);
}
#endif

#endif
