/* CUDA backend: the systems of ENG_SYSTEMS (eng_step.h), the same code as the
 * CPU backend, one thread per row. The world's tables live in one device
 * arena; the columns are copied up once, stepped there until every
 * experiment ends, and copied back. Three launch modes, chosen by the batch's
 * shape or MULTIVERSE_CUDA_LAUNCH:
 *   experiment: one kernel in which each thread block (or cluster of blocks
 *     on several SMs) takes experiments from a shared counter and steps each
 *     alone through all its windows, with block (cluster) barriers only:
 *     experiments never wait for one another, and a block that finishes one
 *     takes the next (many experiments of moderate size);
 *   persistent: one cooperative kernel runs every phase of many windows of all
 *     experiments, with a grid-wide barrier between phases (a few large
 *     experiments);
 *   systems: one kernel per system and window (the ablation). */
#include <cooperative_groups.h>
#include <cuda_runtime.h>

#include "base/base_cuda.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

extern "C" {
#include "sim/eng_num.h"
#include "sim/eng_progress.h"
#include "sim/eng_shape.h"
#include "sim/eng_step.h"
}

namespace cg = cooperative_groups;

/* Rows per table, as the kernels need them. */
typedef struct cu_rows_t {
#define CU_N(ph, tab, fn) int32_t tab;
  ENG_SYSTEMS(CU_N)
#undef CU_N
} cu_rows_t;

/* The world's column pointers, for every kernel, in constant memory: every
 * thread reads the same pointer at once (one broadcast), and the compiler
 * sees where they point. A kernel parameter whose address the systems take
 * was copied to each thread's stack (1,680 bytes of local memory per
 * thread), and every column access first loaded its pointer from there. */
static __constant__ eng_cols_t cu_c;
#define CU_C ((eng_cols_t *)&cu_c)

#define CU_CALL_node(fn, i) fn(CU_C, i)
#define CU_CALL_port(fn, i) fn(CU_C, i)
#define CU_CALL_exp(fn, i)                                                                         \
  if (fn(CU_C, i)) *running = 1

/* Systems mode: one kernel per system. */
#define CU_KERNEL(ph, tab, fn)                                                                     \
  static __global__ void k_##fn(int32_t n, int *running) {                                         \
    (void)running;                                                                                 \
    int32_t i = (int32_t)(blockIdx.x * blockDim.x + threadIdx.x);                                  \
    if (i < n) CU_CALL_##tab(fn, i);                                                               \
  }
ENG_SYSTEMS(CU_KERNEL)
#undef CU_KERNEL

#include "sim/eng_cuda_phase.cuh"
#include "sim/eng_cuda_pool.cuh"

/* eng_node_step for switch x by the 32 threads of one warp (persistent mode,
 * each switch alone in a warp): one thread takes the events, in the same order
 * as eng_node_step, while the warp refreshes the ports' keys at the start of
 * the step (and after a PFC frame) and finds the next port, each thread over
 * every 32nd port, by a butterfly of shuffles. A thread alone spent the step
 * walking its ports: keys and tournament tree at every step, a path of the
 * tree at every event. The next port is the same: the smallest key, on a tie
 * the lowest port. A window certified for port phases goes to cu_phase_step.
 * With G warps (a switch alone in a block, cu_node_slots) the group steps the
 * phases, and the first warp alone the key order. */
template <int G> static __device__ void cu_switch_step(eng_cols_t *c, int32_t x) {
  const unsigned all = 0xffffffffu;
  const int32_t lane = (int32_t)(threadIdx.x & 31), r0 = cu_grank<G>();
  const int32_t e = c->node_exp[x];
  if (c->exp_status[e] != ENG_RUNNING) return;
  const int idle = eng_node_idle(c, x, e), keys_ok = c->node[x].keys_ok;
  cu_gsync<G>(); /* every thread has read the flags its first clears */
  if (idle) {
    if (r0 == 0 && c->node_next[x] < ENG_INF)
      eng_atomic_min_i64(&c->exp_next_t[e], c->node_next[x]);
    return;
  }
  eng_ctx_t k = eng_node_ctx(c, x, c->node[x].now);
  if (r0 == 0) {
    c->node_woken[x] = 0;
    c->node[x].keys_ok = 1;
    eng_node_schedule(&k);
  }
  const int64_t key_end = eng_key(c->exp_t_end[e], 0);
  const int32_t p0 = k.p0, np = c->node[x].n_ports;
  if (c->exp_phases[e] != ENG_PHASES_OFF && cu_ph) {
    cu_gsync<G>(); /* the first thread's writes above are seen */
    if (cu_phase_ok<G>(&k)) {
      const int32_t w0 = (int32_t)(threadIdx.x >> 5) & ~(G - 1); /* the group's first warp */
      cu_phase_step<G>(k, cu_ph_head + CU_PH_HEAD * w0,
                       cu_ph + (size_t)CU_PH_WORDS * ((blockIdx.x * blockDim.x >> 5) + w0));
      return;
    }
  }
  if constexpr (G > 1)
    if (r0 >= 32) return; /* key order: the group's first warp */
  for (int32_t lp = lane; lp < np; lp += 32)
    if (keys_ok)
      eng_port_key_input(&k, lp);
    else
      c->port_key[p0 + lp] = eng_port_key(&k, lp);
  int64_t best;
  for (;;) {
    __syncwarp(all); /* the keys and the state the first thread wrote are seen */
    int32_t idx = np;
    best = ENG_INF;
    for (int32_t lp = lane; lp < np; lp += 32)
      if (c->port_key[p0 + lp] < best) {
        best = c->port_key[p0 + lp];
        idx = lp;
      }
    for (int d = 16; d > 0; d >>= 1) {
      int64_t ob = __shfl_xor_sync(all, best, d);
      int32_t oi = __shfl_xor_sync(all, idx, d);
      if (ob < best || (ob == best && oi < idx)) {
        best = ob;
        idx = oi;
      }
    }
    eng_node_heap_first(c, x, &best, &idx);
    if (best >= key_end) break;
    k.now = best >> 3;
    const int32_t cls = (int32_t)(best & 7);
    int pfc = 0;
    if (lane == 0) {
      int32_t out = eng_node_event(&k, cls, idx);
      k.events++;
      pfc = k.pfc_busy;
      k.pfc_busy = 0;
      if (!pfc && cls != ENG_EV_TIMER && cls != ENG_EV_TASK) {
        c->port_key[p0 + idx] = eng_port_key(&k, idx);
        if (out >= 0 && out != idx) c->port_key[p0 + out] = eng_port_key(&k, out);
      }
    }
    if (__shfl_sync(all, pfc, 0)) { /* a frame took the wire: every key may have moved */
      __syncwarp(all);
      for (int32_t lp = lane; lp < np; lp += 32)
        c->port_key[p0 + lp] = eng_port_key(&k, lp);
    }
  }
  if (lane == 0) eng_node_end(&k, best);
}

/* A switch's slot in the persistent mode (cu_node_slots): its row, with
 * CU_SLOT_BLOCK where the whole block of 32 * CU_GROUP threads steps it. */
#define CU_SLOT_BLOCK (1 << 29)
/* Ports above which a switch alone gets a block rather than a warp (more than
 * a warp has threads). */
#define CU_BLOCK_PORTS 32
static __device__ __forceinline__ void cu_switch_slot(eng_cols_t *c, int32_t r) {
  if (r & CU_SLOT_BLOCK)
    cu_switch_step<CU_GROUP>(c, r & ~CU_SLOT_BLOCK);
  else
    cu_switch_step<1>(c, r);
}

/* Persistent mode: up to `windows` windows of every phase, grid-stride over
 * rows (node rows through the slot table `slots` of n.node slots:
 * cu_node_slots), a grid barrier after each phase. flags[w & 1] collects "some
 * experiment still runs" in window w; every thread reads it after the barrier
 * and all leave together. *done receives the windows run. */
#define CU_PCALL_node(fn, i)                                                                       \
  if (slots[i] >= 0)                                                                               \
    fn(CU_C, slots[i]);                                                                            \
  else if (slots[i] < -1)                                                                          \
  cu_switch_slot(CU_C, -2 - slots[i])
#define CU_PCALL_port CU_CALL_port
#define CU_PCALL_exp CU_CALL_exp
static __global__ void __launch_bounds__(128, 4)
    k_persistent(cu_rows_t n, const int32_t *slots, int32_t windows, int *flags, int32_t *done) {
  cg::grid_group g = cg::this_grid();
  const int32_t tid = (int32_t)g.thread_rank(), stride = (int32_t)g.size();
  for (int32_t w = 0; w < windows; w++) {
    int *running = &flags[w & 1];
    for (int phase = 0; phase < ENG_PHASES; phase++) {
      /* Everyone has read flags[(w + 1) & 1] of window w - 1 by now. */
      if (phase == 1 && tid == 0) flags[(w + 1) & 1] = 0;
#define CU_PHASE(ph, tab, fn)                                                                      \
  if (ph == phase)                                                                                 \
    for (int32_t i = tid; i < n.tab; i += stride)                                                  \
      CU_PCALL_##tab(fn, i);
      ENG_SYSTEMS(CU_PHASE)
#undef CU_PHASE
      g.sync();
    }
    if (!*(volatile int *)running) {
      if (tid == 0) *done = w + 1;
      return;
    }
  }
  if (tid == 0) *done = windows;
}

/* Experiment mode with switch warps (sw_rows, one experiment per block):
 * each warp first steps switches of the experiment together (cu_switch_step,
 * warp w the switches w, w + W, ...), then its threads the other nodes. With
 * a pool (PO), a thread's switch that may step in port phases joins the
 * block's pool instead (cu_pool_node), certified and stepped after the rows
 * (cu_pool_run). */
#define CU_FIRST_node                                                                              \
  if (SW)                                                                                          \
    for (int32_t q = sw_off[e] + w; q < sw_off[e + 1]; q += W)                                     \
  cu_switch_step<1>(CU_C, sw_rows[q])
#define CU_FIRST_port
#define CU_FIRST_exp
#define CU_LCALL_node(fn, i)                                                                       \
  if constexpr (PO)                                                                                \
    cu_pool_node(CU_C, i, pool);                                                                   \
  else if (!SW || !cu_c.node[i].is_switch)                                                         \
  fn(CU_C, i)
#define CU_LCALL_port CU_CALL_port
#define CU_LCALL_exp CU_CALL_exp

/* Experiment mode: blocks take lane groups from *next and step each through
 * all its windows. A group is L experiments (lanes, L = 1 << lg, 1 to 32;
 * `lane_exp[g * L + l]`, -1 for none) stepped side by side: thread t serves
 * lane t mod L, so with L = 32 a warp steps the same node of 32 experiments
 * (one branch path where they share a shape), and with L = 1 a block steps
 * one experiment. Each lane keeps its own windows: super-step w runs window w
 * of every lane still running, so every experiment computes exactly what it
 * computes alone (nodes are independent within a window, whatever order
 * threads take them in). `running[w & 1]` (shared) collects whether a lane
 * runs on after super-step w, reset one super-step ahead once every thread has
 * read it. *finished counts experiments done (progress).
 *
 * Which rows a thread takes: a warp holds S = 32 / L row positions of its L
 * lanes; position j of warp w takes, in K rounds (K * S * W >= the group's
 * most rows, W warps), row eng_deal_row(deal, j, w, k, K, W, P) in round k
 * for j < P (eng_deal_span): by default interleaved (neighbours, of one role,
 * and each position's rows spread over the table) over as many warps as the
 * table fills, or packed into the first warps (MULTIVERSE_CUDA_DEAL=1), or
 * far apart (0: the S rows a warp steps at once lie far apart, at most one
 * switch of a table's end among them). */
/* A barrier of the threads that step a lane group: the block's, or the
 * cluster's (CL: a group stepped by a cluster of blocks on as many SMs). The
 * cluster barrier orders the cluster's memory operations (release, acquire),
 * as the block barrier does the block's. */
template <bool CL> static __device__ __forceinline__ void cu_group_sync() {
  if constexpr (CL)
    cg::this_cluster().sync();
  else
    __syncthreads();
}

/* Where the group's shared state lives: the first block of the cluster holds
 * it, the others reach it through distributed shared memory. */
template <bool CL, class X> static __device__ __forceinline__ X *cu_lead(X *p) {
  if constexpr (CL)
    return cg::this_cluster().map_shared_rank(p, 0);
  else
    return p;
}

/* How a lane group's rows are dealt to its threads (eng_deal_row:
 * MULTIVERSE_CUDA_DEAL), set before each experiment-mode launch. */
static __constant__ int32_t cu_deal;

template <bool SW, bool CL, bool PO>
static __device__ __forceinline__ void
cu_lanes(int32_t n_groups, int32_t lg, const int32_t *lane_exp, const int32_t *sw_rows,
         const int32_t *sw_off, int32_t *next, int32_t *finished) {
  __shared__ int32_t g_sh, lanes_sh;
#define CU_K_SH(ph, tab, fn) __shared__ int32_t rounds_##tab, span_##tab;
  ENG_SYSTEMS(CU_K_SH)
#undef CU_K_SH
  __shared__ int running_sh[2];
  int32_t rank = 0, C = 1;
  if constexpr (CL) {
    rank = (int32_t)cg::this_cluster().block_rank();
    C = (int32_t)cg::this_cluster().num_blocks();
  }
  /* Warps are numbered across the cluster: warp w of W steps rows as in a block. */
  const int32_t tid = (int32_t)threadIdx.x, L = 1 << lg, W = C * ((int32_t)blockDim.x >> 5);
  const int32_t lane = tid & (L - 1), j = (tid & 31) >> lg, S = 32 >> lg;
  const int32_t w = rank * ((int32_t)blockDim.x >> 5) + (tid >> 5);
  const bool lead = rank == 0 && tid == 0;
  int *const run_p = cu_lead<CL>(running_sh);
  /* With a pool (PO): its state in the block's dynamic shared memory, its
   * scratch the block's stretch of cu_ph (cu_pool_run). */
  cu_pool_t *const pool = PO ? (cu_pool_t *)cu_ph_head : nullptr;
  const int32_t pool_cap = (int32_t)(blockDim.x >> 5) * (CU_PH_WORDS / 2);
  int64_t *const pool_ent =
      PO && cu_ph ? (int64_t *)(cu_ph + (size_t)CU_PH_WORDS * (blockIdx.x * (blockDim.x >> 5)))
                  : nullptr;
  if (PO && tid == 0) { /* the lists' first thresholds: 2 */
    pool->in.most = pool->out.most = 0;
    cu_pool_empty(pool);
  }
  for (;;) {
    if (lead) {
      g_sh = atomicAdd(next, 1);
      running_sh[0] = running_sh[1] = 0;
      if (g_sh < n_groups) { /* rounds for the most rows any lane has, per table */
        int32_t most;
        lanes_sh = 0;
        ENG_ROLLED
        for (int32_t l = 0; l < L; l++)
          lanes_sh += lane_exp[g_sh * L + l] >= 0;
#define CU_ROUNDS(ph, tab, fn)                                                                     \
  most = 0;                                                                                        \
  ENG_ROLLED                                                                                       \
  for (int32_t l = 0; l < L; l++) {                                                                \
    const int32_t e = lane_exp[g_sh * L + l];                                                      \
    if (e >= 0 && eng_hi_##tab(CU_C, e) - eng_lo_##tab(CU_C, e) > most)                            \
      most = eng_hi_##tab(CU_C, e) - eng_lo_##tab(CU_C, e);                                        \
  }                                                                                                \
  rounds_##tab = (most + S * W - 1) / (S * W);                                                     \
  span_##tab = eng_deal_span(cu_deal, most, rounds_##tab, W, S);
        ENG_SYSTEMS(CU_ROUNDS)
#undef CU_ROUNDS
      }
    }
    cu_group_sync<CL>();
    const int32_t g = *cu_lead<CL>(&g_sh);
#define CU_K_LOCAL(ph, tab, fn)                                                                    \
  const int32_t rk_##tab = *cu_lead<CL>(&rounds_##tab), sp_##tab = *cu_lead<CL>(&span_##tab);
    ENG_SYSTEMS(CU_K_LOCAL)
#undef CU_K_LOCAL
    if constexpr (CL) /* the lead block neither moves on nor leaves while others read */
      cu_group_sync<CL>();
    if (g >= n_groups) return;
    const int32_t e = lane_exp[g * L + lane];
    for (int32_t wi = 0;; wi++) {
      int *running = &run_p[wi & 1];
      for (int phase = 0; phase < ENG_PHASES; phase++) {
        if (phase == 1 && lead) running_sh[(wi + 1) & 1] = 0;
#define CU_EXP(ph, tab, fn)                                                                        \
  if (ph == phase && e >= 0) {                                                                     \
    const int32_t k_ = j < sp_##tab ? rk_##tab : 0, lo_ = eng_lo_##tab(CU_C, e);                   \
    const int32_t hi_ = eng_hi_##tab(CU_C, e);                                                     \
    CU_FIRST_##tab;                                                                                \
    for (int32_t r = 0; r < k_; r++) {                                                             \
      const int32_t i = lo_ + eng_deal_row(cu_deal, j, w, r, rk_##tab, W, sp_##tab);               \
      if (i >= hi_) break;                                                                         \
      CU_LCALL_##tab(fn, i);                                                                       \
    }                                                                                              \
  }
        ENG_SYSTEMS(CU_EXP)
#undef CU_EXP
        if constexpr (PO)
          if (phase == 0) { /* every row has stepped: the pool's switches */
            __syncthreads();
            cu_pool_run(pool, pool_ent, pool_cap);
          }
        cu_group_sync<CL>();
      }
      if (!*(volatile int *)running) break;
    }
    if (lead) atomicAdd(finished, lanes_sh);
  }
}

/* The experiment kernel compiled for blocks of 128 threads with 4 resident per
 * SM, 256 threads with 2, 3 or 4, 512 threads with 1 or 2 (more blocks hide
 * more memory latency, fewer registers spill more:
 * MULTIVERSE_CUDA_BLOCKS_PER_SM picks one). */
#define CU_EXP_KERNEL(threads, occ)                                                                \
  static __global__ void __launch_bounds__(threads, occ) k_experiments_##threads##_##occ(          \
      int32_t n_groups, int32_t lg, const int32_t *lane_exp, const int32_t *sw_rows,               \
      const int32_t *sw_off, int32_t *next, int32_t *finished) {                                   \
    cu_lanes<false, false, false>(n_groups, lg, lane_exp, sw_rows, sw_off, next, finished);        \
  }
CU_EXP_KERNEL(128, 4)
CU_EXP_KERNEL(256, 2)
CU_EXP_KERNEL(256, 3)
CU_EXP_KERNEL(256, 4)
CU_EXP_KERNEL(512, 1)
CU_EXP_KERNEL(512, 2)
#undef CU_EXP_KERNEL

/* One experiment per block of 512 with switch warps (MULTIVERSE_CUDA_SWITCH_WARPS). */
static __global__ void __launch_bounds__(512, 1)
    k_experiments_sw(int32_t n_groups, int32_t lg, const int32_t *lane_exp, const int32_t *sw_rows,
                     const int32_t *sw_off, int32_t *next, int32_t *finished) {
  cu_lanes<true, false, false>(n_groups, lg, lane_exp, sw_rows, sw_off, next, finished);
}

/* Blocks of 512 with a pool for the switches' port phases (MULTIVERSE_CUDA_POOL),
 * for one or 2 blocks a SM; or one block a SM of TH threads, 768 or 1,024
 * (MULTIVERSE_CUDA_POOL_THREADS: fewer registers a thread, more warps). */
template <int OCC, int TH = 512>
static __global__ void __launch_bounds__(TH, OCC)
    k_experiments_po(int32_t n_groups, int32_t lg, const int32_t *lane_exp, const int32_t *sw_rows,
                     const int32_t *sw_off, int32_t *next, int32_t *finished) {
  cu_lanes<false, false, true>(n_groups, lg, lane_exp, sw_rows, sw_off, next, finished);
}

/* A lane group per cluster of blocks of 512 (MULTIVERSE_CUDA_CLUSTER), with or
 * without switch warps, or with a pool; without switch warps also compiled for
 * 2 blocks a SM (64 registers: MULTIVERSE_CUDA_BLOCKS_PER_SM=2), two clusters
 * on the same SMs; with a pool also for blocks of 1,024 one a SM
 * (MULTIVERSE_CUDA_POOL_THREADS). */
template <bool SW, int OCC, bool PO = false, int TH = 512>
static __global__ void __launch_bounds__(TH, OCC)
    k_experiments_cl(int32_t n_groups, int32_t lg, const int32_t *lane_exp, const int32_t *sw_rows,
                     const int32_t *sw_off, int32_t *next, int32_t *finished) {
  cu_lanes<SW, true, PO>(n_groups, lg, lane_exp, sw_rows, sw_off, next, finished);
}

static size_t col_bytes(const eng_world_t *w, int t, size_t elem) {
  return elem * (size_t)(w->n[t] ? w->n[t] : 1);
}

/* Offsets of every column in one arena, 256-byte aligned: the columns that
 * travel (all but packet storage) first, contiguous, so that they move in a
 * few large copies; *moved receives their span. Returns the arena's size. */
static size_t cu_layout(const eng_world_t *w, eng_cols_t *d, char *base, size_t *moved) {
  size_t off = 0;
  for (int storage = 0; storage < 2; storage++) {
#define CU_PLACE(tab, type, name)                                                                  \
  if (eng_table_is_storage(ENG_T_##tab) == storage) {                                              \
    d->name = (type *)(base + off);                                                                \
    off += (col_bytes(w, ENG_T_##tab, sizeof(type)) + 255) & ~(size_t)255;                         \
  }
    ENG_COLUMNS(CU_PLACE)
#undef CU_PLACE
    if (!storage) *moved = off;
  }
  return off;
}

/* A pinned host buffer through which the columns move in chunks: pageable
 * copies of ~100 columns one by one ran at ~2 GB/s. Kept for the process. */
#define CU_STAGE_BYTES ((size_t)64 << 20)
static char *cu_stage;

/* Moves the travelling columns between the host world and the arena's first
 * `moved` bytes (up: host to device), in chunks through the staging buffer. */
static int cu_move(eng_world_t *w, char *arena, size_t moved, int up, char *err, size_t errlen) {
  if (!cu_stage) BASE_CUDA_TRY(cudaMallocHost((void **)&cu_stage, CU_STAGE_BYTES));
  for (size_t c0 = 0; c0 < moved; c0 += CU_STAGE_BYTES) {
    size_t c1 = c0 + CU_STAGE_BYTES < moved ? c0 + CU_STAGE_BYTES : moved, off = 0;
    if (!up) BASE_CUDA_TRY(cudaMemcpy(cu_stage, arena + c0, c1 - c0, cudaMemcpyDeviceToHost));
      /* Each column's bytes that fall in [c0, c1). */
#define CU_PART(tab, type, name)                                                                   \
  if (!eng_table_is_storage(ENG_T_##tab)) {                                                        \
    size_t n_ = col_bytes(w, ENG_T_##tab, sizeof(type));                                           \
    size_t a_ = off > c0 ? off : c0, b_ = off + n_ < c1 ? off + n_ : c1;                           \
    if (a_ < b_) {                                                                                 \
      char *h_ = (char *)w->c.name + (a_ - off);                                                   \
      if (up)                                                                                      \
        memcpy(cu_stage + (a_ - c0), h_, b_ - a_);                                                 \
      else                                                                                         \
        memcpy(h_, cu_stage + (a_ - c0), b_ - a_);                                                 \
    }                                                                                              \
    off += (n_ + 255) & ~(size_t)255;                                                              \
  }
    ENG_COLUMNS(CU_PART)
#undef CU_PART
    if (up) BASE_CUDA_TRY(cudaMemcpy(arena + c0, cu_stage, c1 - c0, cudaMemcpyHostToDevice));
  }
  return 0;
fail:
  return -1;
}

static double now_s(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static unsigned blocks(int64_t n, unsigned threads) {
  return (unsigned)((n + threads - 1) / threads);
}

/* A kernel's preferred split of each SM's on-chip memory between shared
 * memory and the L1 cache, MULTIVERSE_CUDA_CARVEOUT percent shared (0: as
 * much L1 as the blocks' shared memory leaves; the driver rounds up to what
 * they need); unset: the driver's choice. A hint the driver may override;
 * results are the same either way. */
static cudaError_t cu_carveout(const void *kern) {
  long long v;
  eng_env_int("MULTIVERSE_CUDA_CARVEOUT", 0, 100, -1, &v);
  return v < 0 ? cudaSuccess
               : cudaFuncSetAttribute(kern, cudaFuncAttributePreferredSharedMemoryCarveout, (int)v);
}

extern "C" int eng_cuda_available(void) {
  int n = 0;
  return cudaGetDeviceCount(&n) == cudaSuccess && n > 0;
}

/* Free device memory, or MULTIVERSE_CUDA_BYTES if set and smaller (to share a
 * GPU, and to test splitting). */
extern "C" size_t eng_cuda_free_bytes(void) {
  size_t free_b = 0, total = 0;
  if (cudaMemGetInfo(&free_b, &total) != cudaSuccess) {
    cudaGetLastError();
    return 0;
  }
  long long cap; /* the driver refuses a bad value when it starts (drv_env.c) */
  eng_env_int("MULTIVERSE_CUDA_BYTES", 1, 1LL << 62, 0, &cap);
  if (cap > 0 && (unsigned long long)cap < free_b) free_b = (size_t)cap;
  return free_b;
}

extern "C" const char *eng_cuda_unavailable_reason(void) {
  return "no CUDA device is present";
}

/* Systems mode: `chunk` windows per check of the host-visible flag; the last
 * window of the chunk decides (windows after every experiment ended do
 * nothing). */
static int cu_run_systems(eng_cols_t d, const cu_rows_t *n, int *d_flag, int64_t *windows,
                          eng_world_t *w, char *err, size_t errlen) {
  const unsigned T = 128;
  int running = 1, chunk = 8;
  eng_progress_t pg;
  eng_progress_begin(&pg);
  while (running) {
    for (int i = 0; i < chunk; i++) {
      if (i == chunk - 1) BASE_CUDA_TRY(cudaMemsetAsync(d_flag, 0, sizeof(int)));
#define CU_LAUNCH(ph, tab, fn)                                                                     \
  if (n->tab) k_##fn<<<blocks(n->tab, T), T>>>(n->tab, d_flag);
      ENG_SYSTEMS(CU_LAUNCH)
#undef CU_LAUNCH
    }
    *windows += chunk;
    BASE_CUDA_TRY(cudaGetLastError());
    BASE_CUDA_TRY(cudaMemcpy(&running, d_flag, sizeof(int), cudaMemcpyDeviceToHost));
    if (running && eng_progress_due(&pg)) {
      BASE_CUDA_TRY(cudaMemcpy(w->c.exp_status, d.exp_status, sizeof(int32_t) * (size_t)n->exp,
                               cudaMemcpyDeviceToHost));
      BASE_CUDA_TRY(cudaMemcpy(w->c.exp_t, d.exp_t, sizeof(int64_t) * (size_t)n->exp,
                               cudaMemcpyDeviceToHost));
      eng_progress_report(&pg, w->c.exp_status, w->c.exp_t, n->exp);
    }
    if (chunk < 256) chunk *= 2;
  }
  return 0;
fail:
  return -1;
}

/* A switch and its port count, to sort switches largest first. */
typedef struct cu_sw_t {
  int32_t ports, row;
} cu_sw_t;

static int cu_sw_cmp(const void *a, const void *b) {
  const cu_sw_t *x = (const cu_sw_t *)a, *y = (const cu_sw_t *)b;
  if (x->ports != y->ports) return x->ports > y->ports ? -1 : 1;
  return x->row < y->row ? -1 : x->row > y->row;
}

/* The node rows of persistent mode in the order the threads take them. A node
 * runs its events of a window in sequence, and threads of one warp that take
 * different branches run one after the other: so each switch, where the
 * events crowd, gets a warp to itself (the 32 slots hold -2 - row: the warp
 * steps it together, cu_switch_step), the largest first, as long as the slots
 * fit in `budget` threads; the other rows follow, one per thread in row order.
 * Before, the 8 rail switches of a rail-optimized fabric (rows after the
 * hosts) shared one thread each of one warp. MULTIVERSE_CUDA_SPREAD=0 gives
 * every row one thread (the ablation). A switch of more than CU_BLOCK_PORTS
 * ports (MULTIVERSE_CUDA_SWITCH_BLOCK=1: every switch; 0: none) gets a whole
 * block of 32 * CU_GROUP slots instead, so that its port phases run a thread
 * per port up to 128 ports; being the largest, these come first, so each
 * fills one block of the launch (CU_SLOT_BLOCK). *blocks receives the
 * switches alone in a block, *warps those in a warp. NULL if out of memory. */
static int32_t *cu_node_slots(const eng_world_t *w, int64_t budget, int32_t *n_slots,
                              int32_t *blocks, int32_t *warps) {
  const int32_t n = (int32_t)w->n[ENG_T_node];
  long long spread, in_block;
  eng_env_int("MULTIVERSE_CUDA_SPREAD", 0, 1, 1, &spread);
  eng_env_int("MULTIVERSE_CUDA_SWITCH_BLOCK", 0, 1, -1, &in_block); /* -1: by its ports */
  if (n >= CU_SLOT_BLOCK) in_block = 0; /* its flag would not fit a row */
  int32_t n_sw = 0, alone = 0, s = 0;
  int64_t used = 0; /* slots of the switches alone */
  cu_sw_t *sw = (cu_sw_t *)malloc(sizeof(cu_sw_t) * (size_t)(n ? n : 1));
  uint8_t *taken = (uint8_t *)calloc((size_t)(n ? n : 1), 1);
  int32_t *slots = NULL;
  if (!sw || !taken) goto done;
  for (int32_t x = 0; x < n; x++)
    if (w->c.node[x].is_switch) sw[n_sw++] = (cu_sw_t){w->c.node[x].n_ports, x};
  qsort(sw, (size_t)n_sw, sizeof *sw, cu_sw_cmp);
  *blocks = 0; /* the largest come first and the rule grows with the ports: a prefix */
  if (spread)
    for (; alone < n_sw; alone++) {
      const int block = in_block == 1 || (in_block < 0 && sw[alone].ports > CU_BLOCK_PORTS);
      const int32_t width = block ? 32 * CU_GROUP : 32;
      if (used + width + (n - alone - 1) > budget) break;
      used += width;
      *blocks += block;
    }
  *n_slots = (int32_t)used + n - alone;
  *warps = alone - *blocks;
  slots = (int32_t *)malloc(sizeof(int32_t) * (size_t)(*n_slots ? *n_slots : 1));
  if (!slots) goto done;
  for (int32_t a = 0; a < alone; a++) { /* the blocks, the largest, first: each fills one */
    const int block = a < *blocks;
    taken[sw[a].row] = 1;
    for (int32_t l = 0; l < (block ? 32 * CU_GROUP : 32); l++)
      slots[s++] = -2 - (sw[a].row | (block ? CU_SLOT_BLOCK : 0));
  }
  for (int32_t x = 0; x < n; x++)
    if (!taken[x]) slots[s++] = x;
done:
  free(sw);
  free(taken);
  return slots;
}

/* Persistent mode: as many blocks as fit on the device at once (a cooperative
 * launch requires it), each launch running windows until every experiment has
 * ended or about half a second has passed (then progress, and again). */
static int cu_run_persistent(eng_cols_t d, cu_rows_t n, int *d_flags, int64_t *windows,
                             eng_world_t *w, char *err, size_t errlen) {
  int dev = 0, sms = 0, per_sm = 0, coop = 0;
  const int T = 32 * CU_GROUP;             /* a switch alone in a block: the whole block */
  const size_t smem = CU_PH_HEAD_BYTES(T); /* each warp's port phases' words */
  int32_t *d_done = (int32_t *)(d_flags + 2), done = 0, chunk = 64, n_slots = 0, in_block = 0,
          in_warp = 0;
  int32_t *slots = NULL, *d_slots = NULL, *d_ph = NULL;
  eng_progress_t pg;
  eng_progress_begin(&pg);
  BASE_CUDA_TRY(cudaGetDevice(&dev));
  BASE_CUDA_TRY(cudaDeviceGetAttribute(&coop, cudaDevAttrCooperativeLaunch, dev));
  if (!coop) {
    snprintf(err, errlen,
             "the GPU does not support cooperative launches "
             "(MULTIVERSE_CUDA_LAUNCH=systems runs without)");
    return -1;
  }
  BASE_CUDA_TRY(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev));
  BASE_CUDA_TRY(cu_carveout((const void *)k_persistent));
  BASE_CUDA_TRY(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, k_persistent, T, smem));
  slots = cu_node_slots(w, (int64_t)sms * per_sm * T, &n_slots, &in_block, &in_warp);
  if (!slots) {
    snprintf(err, errlen, "out of memory for the node slots of %d nodes", n.node);
    return -1;
  }
  BASE_CUDA_TRY(cudaMalloc((void **)&d_slots, sizeof(int32_t) * (size_t)(n_slots ? n_slots : 1)));
  BASE_CUDA_TRY(
      cudaMemcpy(d_slots, slots, sizeof(int32_t) * (size_t)n_slots, cudaMemcpyHostToDevice));
  if (eng_env_flag("MULTIVERSE_VERBOSE"))
    fprintf(stderr, "cuda: %d node rows in %d slots (%d switches alone in a warp, %d in a block)\n",
            n.node, n_slots, in_warp, in_block);
  n.node = n_slots;
  {
    int64_t most = 0; /* no more threads than the largest table has rows */
#define CU_MOST(ph, tab, fn)                                                                       \
  if (n.tab > most) most = n.tab;
    ENG_SYSTEMS(CU_MOST)
#undef CU_MOST
    int grid = sms * per_sm;
    if ((int64_t)grid * T > most + T) grid = (int)((most + T - 1) / T);
    if (grid < 1) grid = 1;
    if (cu_ph_begin(w, (int64_t)grid * (T / 32), &d_ph, err, errlen)) goto fail;
    if (eng_env_flag("MULTIVERSE_VERBOSE"))
      fprintf(stderr, "cuda: a cooperative grid of %d blocks of %d threads\n", grid, T);
    for (;;) {
      BASE_CUDA_TRY(cudaMemset(d_flags, 0, 2 * sizeof(int)));
      void *args[] = {&n, &d_slots, &chunk, &d_flags, &d_done};
      double t0 = now_s();
      BASE_CUDA_TRY(cudaLaunchCooperativeKernel((void *)k_persistent, grid, T, args, smem, 0));
      BASE_CUDA_TRY(cudaMemcpy(&done, d_done, sizeof done, cudaMemcpyDeviceToHost));
      *windows += done;
      if (done < chunk) break;
      /* Aim for launches of about 0.1 s. */
      double dt = now_s() - t0;
      if (dt < 0.05 && chunk < (1 << 20)) chunk *= 2;
      if (eng_progress_due(&pg)) {
        BASE_CUDA_TRY(cudaMemcpy(w->c.exp_status, d.exp_status, sizeof(int32_t) * (size_t)n.exp,
                                 cudaMemcpyDeviceToHost));
        BASE_CUDA_TRY(cudaMemcpy(w->c.exp_t, d.exp_t, sizeof(int64_t) * (size_t)n.exp,
                                 cudaMemcpyDeviceToHost));
        eng_progress_report(&pg, w->c.exp_status, w->c.exp_t, n.exp);
      }
    }
  }
  free(slots);
  cudaFree(d_slots);
  cudaFree(d_ph);
  return 0;
fail:
  free(slots);
  cudaFree(d_slots);
  cudaFree(d_ph);
  return -1;
}

#include "sim/eng_cuda_shape.cuh"

/* Experiment mode: as many blocks as fit at once (or as lane groups), each of
 * T threads (the kernel compiled for O a SM) over lane groups of 1 << lg
 * experiments; the host polls the count of finished experiments for progress
 * while the kernel runs. */
static int cu_run_experiments(const eng_world_t *w, const double *work, cu_rows_t n, int32_t T,
                              int32_t lg, int32_t C, int O, int *d_flags, char *err,
                              size_t errlen) {
  int dev = 0, sms = 0, per_sm = 0;
  int32_t deal = ENG_DEAL_SPREAD;
  int32_t *d_next = (int32_t *)d_flags, *d_fin = (int32_t *)d_flags + 1, fin = 0, n_groups = 0;
  int32_t *groups = NULL, *d_groups = NULL, *sw = NULL, *d_sw = NULL, *d_sw_off = NULL,
          *d_ph = NULL;
  cu_exp_kern_t kern;
  size_t smem = 0; /* dynamic shared memory a block: cu_sw_smem */
  cudaStream_t run = NULL, peek = NULL;
  const int sw_warps = lg == 0 && cu_env_int("MULTIVERSE_CUDA_SWITCH_WARPS", 0, 1, 0);
  const int pool_env = cu_env_int("MULTIVERSE_CUDA_POOL", 0, 1, -1); /* -1: unset */
  int kind = sw_warps ? CU_K_SWITCH_WARPS : pool_env == 1 ? CU_K_POOL : CU_K_PLAIN;
  eng_progress_t pg;
  eng_progress_begin(&pg);
  groups = cu_lane_groups(w, work, lg, &n_groups);
  if (!groups) {
    snprintf(err, errlen, "out of memory for the lane groups of %d experiments", n.exp);
    return -1;
  }
  BASE_CUDA_TRY(cudaMalloc((void **)&d_groups, sizeof(int32_t) * ((size_t)n_groups << lg)));
  BASE_CUDA_TRY(cudaMemcpy(d_groups, groups, sizeof(int32_t) * ((size_t)n_groups << lg),
                           cudaMemcpyHostToDevice));
  if (kind != CU_K_PLAIN || C != 1) T = 512;
  deal =
      cu_env_int("MULTIVERSE_CUDA_DEAL", ENG_DEAL_FAR, ENG_DEAL_SPREAD, eng_deal_default(1 << lg));
  BASE_CUDA_TRY(cudaMemcpyToSymbol(cu_deal, &deal, sizeof deal));
  {
    const int32_t settle = cu_env_int("MULTIVERSE_CUDA_SETTLE", 0, 1, 1);
    BASE_CUDA_TRY(cudaMemcpyToSymbol(cu_settle, &settle, sizeof settle));
  }
  if (C == 0 && cu_cluster_auto(kind, n_groups, &C, err, errlen)) goto fail;
  if (kind == CU_K_PLAIN && pool_env < 0 && eng_pool_default(1 << lg, T)) kind = CU_K_POOL;
  if (kind == CU_K_POOL && O < 2) /* a wider block of the pool, one a SM */
    T = cu_pool_threads(C);
  smem = cu_sw_smem(T, kind);
  kern = cu_exp_kernel(T, O, kind, C);
  if (sw_warps) {
    /* switch rows by experiment (sw[n.exp + 1 ...]) after their offsets */
    int32_t n_sw = 0, q = 0;
    for (int32_t x = 0; x < n.node; x++)
      n_sw += w->c.node[x].is_switch != 0;
    sw = (int32_t *)malloc(sizeof(int32_t) * ((size_t)n.exp + 1 + (size_t)n_sw));
    if (!sw) {
      snprintf(err, errlen, "out of memory for the switch rows of %d nodes", n.node);
      goto fail;
    }
    for (int32_t e = 0; e < n.exp; e++) {
      sw[e] = q;
      for (int32_t x = w->c.exp_node_off[e]; x < w->c.exp_node_off[e] + w->c.exp_n_nodes[e]; x++)
        if (w->c.node[x].is_switch) sw[n.exp + 1 + q++] = x;
    }
    sw[n.exp] = q;
    BASE_CUDA_TRY(
        cudaMalloc((void **)&d_sw_off, sizeof(int32_t) * ((size_t)n.exp + 1 + (size_t)n_sw)));
    BASE_CUDA_TRY(cudaMemcpy(d_sw_off, sw, sizeof(int32_t) * ((size_t)n.exp + 1 + (size_t)n_sw),
                             cudaMemcpyHostToDevice));
    d_sw = d_sw_off + n.exp + 1;
  }
  BASE_CUDA_TRY(cudaGetDevice(&dev));
  BASE_CUDA_TRY(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev));
  BASE_CUDA_TRY(cu_carveout((const void *)kern));
  BASE_CUDA_TRY(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, kern, T, smem));
  BASE_CUDA_TRY(cudaStreamCreateWithFlags(&run, cudaStreamNonBlocking));
  BASE_CUDA_TRY(cudaStreamCreateWithFlags(&peek, cudaStreamNonBlocking));
  BASE_CUDA_TRY(cudaMemsetAsync(d_flags, 0, 2 * sizeof(int32_t), run));
  {
    cudaLaunchAttribute at;
    cudaLaunchConfig_t cfg = cu_cluster_config(T, C, &at);
    cfg.stream = run;
    cfg.dynamicSmemBytes = smem;
    int grid = sms * (per_sm > 0 ? per_sm : 1);
    if (C > 1) { /* whole clusters, as many as the GPCs hold at once */
      const int clusters = cu_clusters_fit(kern, T, C, kind, n_groups);
      if (clusters < 1) {
        snprintf(err, errlen,
                 "no cluster of %d blocks of %d threads fits the GPU (MULTIVERSE_CUDA_CLUSTER)%s%s",
                 C, T, clusters < 0 ? ": " : "",
                 clusters < 0 ? cudaGetErrorString(cudaGetLastError()) : "");
        goto fail;
      }
      grid = C * clusters;
    }
    if (grid > C * n_groups) grid = C * n_groups;
    cfg.gridDim = dim3((unsigned)grid);
    if (kind != CU_K_PLAIN && cu_ph_begin(w, (int64_t)grid * (T / 32), &d_ph, err, errlen))
      goto fail;
    if (eng_env_flag("MULTIVERSE_VERBOSE"))
      fprintf(stderr,
              "cuda: %d experiments in %d lane groups of %d, %d blocks of %d threads (%d a SM), "
              "clusters of %d%s, rows %s\n",
              n.exp, n_groups, 1 << lg, grid, T, per_sm, C,
              kind == CU_K_SWITCH_WARPS ? ", switch warps"
              : kind == CU_K_POOL       ? ", a pool for port phases"
                                        : "",
              deal == ENG_DEAL_SPREAD ? "spread"
              : deal == ENG_DEAL_NEAR ? "packed"
                                      : "far apart");
    BASE_CUDA_TRY(cudaLaunchKernelEx(&cfg, kern, n_groups, lg, (const int32_t *)d_groups,
                                     (const int32_t *)d_sw, (const int32_t *)d_sw_off, d_next,
                                     d_fin));
    BASE_CUDA_TRY(cudaGetLastError());
    for (;;) {
      cudaError_t q = cudaStreamQuery(run);
      if (q == cudaSuccess) break;
      if (q != cudaErrorNotReady) BASE_CUDA_TRY(q);
      struct timespec nap = {0, 20000000};
      nanosleep(&nap, NULL);
      if (eng_progress_due(&pg)) {
        BASE_CUDA_TRY(cudaMemcpyAsync(&fin, d_fin, sizeof fin, cudaMemcpyDeviceToHost, peek));
        BASE_CUDA_TRY(cudaStreamSynchronize(peek));
        eng_progress_count(&pg, fin, n.exp);
      }
    }
  }
  BASE_CUDA_TRY(cudaStreamDestroy(run));
  BASE_CUDA_TRY(cudaStreamDestroy(peek));
  free(groups);
  free(sw);
  cudaFree(d_groups);
  cudaFree(d_sw_off);
  cudaFree(d_ph);
  return 0;
fail:
  if (run) cudaStreamDestroy(run);
  if (peek) cudaStreamDestroy(peek);
  free(groups);
  free(sw);
  cudaFree(d_groups);
  cudaFree(d_sw_off);
  cudaFree(d_ph);
  return -1;
}

extern "C" int eng_run_cuda(eng_world_t *w, char *err, size_t errlen) {
  if (!eng_cuda_available()) {
    snprintf(err, errlen, "--backend cuda: no CUDA device is present");
    return -1;
  }
  int32_t T = 128, lg = 0, C = 1;
  int O = 1; /* blocks of T a SM in the experiment mode */
  double *work = (double *)malloc(sizeof(double) * (size_t)(w->n_exps ? w->n_exps : 1));
  if (!work) {
    snprintf(err, errlen, "out of memory for the work of %d experiments", w->n_exps);
    return -1;
  }
  for (int32_t e = 0; e < w->n_exps; e++)
    work[e] = eng_shape_work(w, e);
  const cu_mode_t mode = cu_mode(w, work, &T, &lg, &C, &O);
  static const char *const mode_name[] = {"experiment", "persistent", "systems"};
  eng_cols_t d;
  char *arena = NULL;
  int *d_flags = NULL;
  int rc = -1;
  int64_t windows = 0;
  cu_rows_t n;
#define CU_SET(ph, tab, fn) n.tab = (int32_t)w->n[ENG_T_##tab];
  ENG_SYSTEMS(CU_SET)
#undef CU_SET
  double t0 = now_s(), t1 = t0, t2 = t0;
  size_t moved = 0, bytes = cu_layout(w, &d, NULL, &moved);
  cudaError_t ae = cudaMalloc((void **)&arena, bytes);
  if (ae != cudaSuccess) {
    snprintf(err, errlen, "cannot allocate the world's %zu bytes on the GPU: %s", bytes,
             cudaGetErrorString(ae));
    cudaGetLastError(); /* clear it: the process goes on (a smaller batch) */
    free(work);
    return ae == cudaErrorMemoryAllocation ? ENG_NO_DEVICE_MEMORY : -1;
  }
  cu_layout(w, &d, arena, &moved);
  /* Packet storage (descriptor pools, link rings, PFC rings) is only ever read
   * where the run wrote it first: it is never copied. */
  if (cu_move(w, arena, moved, 1, err, errlen)) goto fail;
  BASE_CUDA_TRY(cudaMemcpyToSymbol(cu_c, &d, sizeof d));
  BASE_CUDA_TRY(cudaMalloc((void **)&d_flags, 4 * sizeof(int)));
  t1 = now_s();
  if (mode == CU_EXPERIMENTS  ? cu_run_experiments(w, work, n, T, lg, C, O, d_flags, err, errlen)
      : mode == CU_PERSISTENT ? cu_run_persistent(d, n, d_flags, &windows, w, err, errlen)
                              : cu_run_systems(d, &n, d_flags, &windows, w, err, errlen))
    goto fail;
  BASE_CUDA_TRY(cudaGetLastError());
  t2 = now_s();
  if (cu_move(w, arena, moved, 0, err, errlen)) goto fail;
  if (mode == CU_EXPERIMENTS) /* each experiment ran its own windows: report the most */
    for (int32_t e = 0; e < w->n_exps; e++)
      if (w->c.exp_windows[e] > windows) windows = w->c.exp_windows[e];
  if (eng_env_flag("MULTIVERSE_VERBOSE")) {
    const double t3 = now_s();
    long long phased = 0;
    for (int32_t e = 0; e < w->n_exps; e++) {
      eng_result_t r;
      eng_world_result(w, e, &r);
      phased += r.phased;
    }
    fprintf(
        stderr,
        "cuda: %zu bytes, upload %.3f s, %lld windows (%s) %.3f s, download %.3f s; %lld switch "
        "steps in port phases\n",
        bytes, t1 - t0, (long long)windows, mode_name[mode], t2 - t1, t3 - t2, phased);
  }
  rc = 0;
fail:
  free(work);
  cudaFree(d_flags);
  cudaFree(arena);
  return rc;
}
