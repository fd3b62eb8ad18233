/* base: qualifiers and the few primitives that differ between the CPU and CUDA
 * backends. Model code uses only these names and never tests __CUDACC__. (They
 * keep the ENG_ and eng_ names the engine's systems were written with.) */
#ifndef BASE_HD_H
#define BASE_HD_H

#include <stdint.h>

#ifdef __CUDACC__
#define ENG_HD __host__ __device__
#define ENG_DEV __device__
#else
#define ENG_HD
#define ENG_DEV
#endif

#define ENG_INLINE static inline ENG_HD
/* A function of a rare path, kept out of line so the hot code around its
 * calls stays small enough to inline. */
#ifdef __CUDACC__
#define ENG_COLD static __noinline__ ENG_HD
#else
#define ENG_COLD static __attribute__((noinline, cold))
#endif

/* A function of a hot path kept out of line (the CPU's port phases, called
 * from the node step): unlike ENG_COLD, which makes gcc optimise for size,
 * compiled for speed. */
#ifdef __CUDACC__
#define ENG_NOINLINE static __noinline__ ENG_HD
#else
#define ENG_NOINLINE static __attribute__((noinline))
#endif

/* A function of moderate size called from many places, off a switch's packet
 * path (the task heap, task events, a host's flow evaluation and control
 * packets): on the GPU one copy, called, where a copy inlined at each call
 * site made the experiment kernel 385 KB of code (249 KB with these out of
 * line, 235 KB with eng_tx's one eng_emit; tests/bench/RESULTS.md); inlined
 * on the CPU as before. */
#ifdef __CUDACC__
#define ENG_OUTLINE static __noinline__ ENG_HD
#else
#define ENG_OUTLINE static inline
#endif

/* A function of a hot path that gcc keeps out of line though it runs faster
 * inlined (eng_dequeue_acct: called, its packet went through memory both
 * ways, and the CPU's port phases ran 14 % slower); the GPU's compiler decides
 * as for ENG_INLINE. */
#ifdef __CUDACC__
#define ENG_HOT_INLINE static inline ENG_HD
#else
#define ENG_HOT_INLINE static inline __attribute__((always_inline))
#endif

/* Before a loop the GPU's compiler should keep rolled: one run a lane group,
 * or a short tail on every event's path, whose unrolled copies are code each
 * SM must fetch. Nothing on the CPU. */
#ifdef __CUDA_ARCH__
#define ENG_ROLLED _Pragma("unroll 1")
#else
#define ENG_ROLLED
#endif

/* 1 in code compiled for the GPU, else 0: for a computation written in the
 * form that suits each processor (reads issued at once where a GPU thread
 * would wait for each in turn), the same values either way. */
#ifdef __CUDA_ARCH__
#define ENG_GPU 1
#else
#define ENG_GPU 0
#endif

/* A hint that *p will be read soon (the CPU's cache; nothing on the GPU): it
 * changes no value, only when memory is fetched. */
#ifdef __CUDA_ARCH__
#define ENG_PREFETCH(p) ((void)(p))
#else
#define ENG_PREFETCH(p) __builtin_prefetch(p)
#endif

/* Commutative reductions only (next-event minimum, counters, wake-up flags and
 * poke bits): never model state. */
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
ENG_INLINE void eng_atomic_or_u32(uint32_t *p, uint32_t v) {
  atomicOr((unsigned int *)p, (unsigned int)v);
}
/* A cell one row writes while rows of other nodes may read it in the same
 * system: readers see the old or the new value, never a torn one. */
ENG_INLINE int64_t eng_load_i64(const int64_t *p) {
  return *(const volatile int64_t *)p;
}
ENG_INLINE void eng_store_i64(int64_t *p, int64_t v) {
  *(volatile int64_t *)p = v;
}
ENG_INLINE int eng_ctz64(uint64_t v) {
  return __ffsll((long long)v) - 1;
}
ENG_INLINE int eng_ctz32(uint32_t v) {
  return __ffs((int)v) - 1;
}
/* A node's count that the threads of its ports may change at once (`lock`
 * non-NULL: a switch's port phases on the GPU, eng_phase.h) changes
 * atomically; with one thread per node (lock NULL) plainly. Returns the old
 * value. */
ENG_INLINE int64_t eng_node_add_i64(const int *lock, int64_t *p, int64_t v) {
  if (!lock) {
    int64_t old = *p;
    *p = old + v;
    return old;
  }
  return (int64_t)atomicAdd((unsigned long long *)p, (unsigned long long)v);
}
ENG_INLINE void eng_node_add_i32(const int *lock, int32_t *p, int32_t v) {
  if (lock)
    atomicAdd((int *)p, (int)v);
  else
    *p += v;
}
/* The lock of a node's descriptor pool while its ports' threads share it
 * (NULL: no lock, one thread). The threads of a warp may contend: their
 * scheduling is independent (sm_70 and later). */
ENG_INLINE void eng_lock(int *lock) {
  if (!lock) return;
  while (atomicCAS(lock, 0, 1) != 0) {
  }
  __threadfence_block();
}
ENG_INLINE void eng_unlock(int *lock) {
  if (!lock) return;
  __threadfence_block();
  atomicExch(lock, 0);
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
ENG_INLINE void eng_atomic_or_u32(uint32_t *p, uint32_t v) {
  __atomic_fetch_or(p, v, __ATOMIC_RELAXED);
}
ENG_INLINE int64_t eng_load_i64(const int64_t *p) {
  return __atomic_load_n(p, __ATOMIC_RELAXED);
}
ENG_INLINE void eng_store_i64(int64_t *p, int64_t v) {
  __atomic_store_n(p, v, __ATOMIC_RELAXED);
}
ENG_INLINE int eng_ctz64(uint64_t v) {
  return __builtin_ctzll(v);
}
ENG_INLINE int eng_ctz32(uint32_t v) {
  return __builtin_ctz(v);
}
/* The CPU steps a node on one thread: plain changes, no lock. */
ENG_INLINE int64_t eng_node_add_i64(const int *lock, int64_t *p, int64_t v) {
  (void)lock;
  int64_t old = *p;
  *p = old + v;
  return old;
}
ENG_INLINE void eng_node_add_i32(const int *lock, int32_t *p, int32_t v) {
  (void)lock;
  *p += v;
}
ENG_INLINE void eng_lock(int *lock) {
  (void)lock;
}
ENG_INLINE void eng_unlock(int *lock) {
  (void)lock;
}
#endif

#endif
