/* CPU backend, the reference: the systems of each window (ENG_SYSTEMS) as
 * loops over rows. Results do not depend on the thread count or the order
 * (nodes write only their own rows; the only shared writes are commutative
 * reductions). Two ways to spread the work over threads:
 *   experiment-major: each thread takes whole experiments and steps each
 *     through all its windows alone: no barrier per window, one experiment's
 *     rows stay in cache (a batch of at least as many experiments as threads);
 *   window-major: every window, each phase over the rows of all experiments in
 *     parallel (few large experiments). */
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sim/eng_num.h"
#include "sim/eng_progress.h"
#include "sim/eng_step.h"

/* Rows a thread takes at a time in the window-major loops: each thread keeps
 * the same rows every window (its cache), dealt in chunks so that a run of
 * heavy rows (a topology's switches) is spread over the threads. */
#define CPU_CHUNK 16

/* One system over rows [lo, hi); an exp system's result ORs into `running`. */
#define CPU_CALL_node(fn, r) fn(c, r)
#define CPU_CALL_port(fn, r) fn(c, r)
#define CPU_CALL_exp(fn, r) running |= fn(c, r)

/* One window of experiment e; 1 while it is running. */
static int cpu_window(eng_cols_t *c, int32_t e) {
  int running = 0;
#define CPU_ONE(phase, tab, fn)                                                                    \
  for (int32_t r = eng_lo_##tab(c, e); r < eng_hi_##tab(c, e); r++)                                \
    CPU_CALL_##tab(fn, r);
  ENG_SYSTEMS(CPU_ONE)
#undef CPU_ONE
  return running;
}

static void cpu_experiment_major(eng_world_t *w, int threads) {
  eng_cols_t *c = &w->c;
  const int32_t ne = (int32_t)w->n[ENG_T_exp];
  eng_progress_t pg;
  eng_progress_begin(&pg);
  pg.exact = 1; /* each end is counted where it happens */
#pragma omp parallel for schedule(dynamic, 1) num_threads(threads)
  for (int32_t e = 0; e < ne; e++) {
    for (int64_t k = 1; cpu_window(c, e); k++)
      if ((k & 1023) == 0 && omp_get_thread_num() == 0 && eng_progress_due(&pg))
        eng_progress_report(&pg, c->exp_status, c->exp_t, ne);
    eng_progress_add(&pg);
  }
}

static void cpu_window_major(eng_world_t *w, int threads) {
  eng_cols_t *c = &w->c;
  const int32_t ne = (int32_t)w->n[ENG_T_exp];
  /* Whether any experiment runs on after window k: runs[k & 1], cleared for
   * window k + 1 in window k's phase 1, once every thread has read it for
   * window k - 1 (phase 0's barrier lies between). */
  int runs[2] = {0, 0};
  eng_progress_t pg;
  eng_progress_begin(&pg);
#pragma omp parallel num_threads(threads)
  for (int64_t window = 1;; window++) {
    int running = 0;
    for (int phase = 0; phase < ENG_PHASES; phase++) {
      if (phase == 1 && omp_get_thread_num() == 0)
        __atomic_store_n(&runs[(window + 1) & 1], 0, __ATOMIC_RELAXED);
// clang-format off
#define CPU_ALL(ph, tab, fn)                                                                       \
  if (ph == phase) {                                                                               \
    const int32_t n_ = (int32_t)w->n[ENG_T_##tab];                                                 \
    _Pragma("omp for schedule(static, CPU_CHUNK) nowait")                                          \
    for (int32_t r = 0; r < n_; r++)                                                               \
      CPU_CALL_##tab(fn, r);                                                                       \
  }
      // clang-format on
      ENG_SYSTEMS(CPU_ALL)
#undef CPU_ALL
      if (phase == ENG_PHASES - 1 && running)
        __atomic_fetch_or(&runs[window & 1], 1, __ATOMIC_RELAXED);
#pragma omp barrier
    }
    if (!__atomic_load_n(&runs[window & 1], __ATOMIC_RELAXED)) break;
    if ((window & 15) == 0 && omp_get_thread_num() == 0 && eng_progress_due(&pg))
      eng_progress_report(&pg, c->exp_status, c->exp_t, ne);
  }
}

/* The longest chain of node windows up to node i's (i counted from x0, s its
 * events of this window) where a window waits only for its node's and its
 * neighbours' windows before (lp), not for every node's: what stepping
 * without window barriers could reach (other hosts' task events, known a
 * `sync` later, are not counted: the chain is a lower bound). */
static int64_t stats_chain(const eng_cols_t *c, int32_t x0, int32_t i, int64_t s,
                           const int64_t *lp) {
  const eng_node_t *n = &c->node[x0 + i];
  int64_t most = lp[i];
  for (int32_t p = n->port_off; p < n->port_off + n->n_ports; p++) {
    const int32_t j = c->port[c->port[p].peer].node - x0;
    if (lp[j] > most) most = lp[j];
  }
  return most + s;
}

/* A node's counters as of the window before (cpu_stats). */
typedef struct stats_prev_t {
  int64_t events, offpath, inpath, phased;
} stats_prev_t;

/* One experiment's sums over its windows (cpu_stats). */
typedef struct stats_sum_t {
  int64_t windows, events, cp, sw, steps, phased;
  int64_t rows, in, out; /* a block's pool: its other rows', ingresses', egresses' busiest */
} stats_sum_t;

/* MULTIVERSE_STATS=1: each experiment alone, its nodes' events counted per
 * window, on stderr:
 * - the critical path (the sum over windows of the busiest node's events:
 *   what one experiment costs where each node has a thread of its own; a
 *   switch in port phases counts its busiest ingress's and egress's,
 *   eng_phase.h), the parallelism (events over the critical path), and the
 *   share of switch steps that ran in port phases;
 * - what stepping without window barriers could save: the longest chain of
 *   node windows (stats_chain) and the busiest node's events alone;
 * - the parts of a window in a block's pool on the GPU (eng_cuda_pool.cuh),
 *   one after the other: the rows not stepped in phases (the busiest one's
 *   events), the phased switches' ingresses (S1: the busiest one's
 *   arrivals), their egresses (S3: the busiest one's events), each summed
 *   over windows.
 * The same results as the other ways. */
static void cpu_stats(eng_world_t *w, int threads) {
  eng_cols_t *c = &w->c;
  const int32_t ne = (int32_t)w->n[ENG_T_exp];
#pragma omp parallel for schedule(dynamic, 1) num_threads(threads)
  for (int32_t e = 0; e < ne; e++) {
    const int32_t x0 = c->exp_node_off[e], nx = c->exp_n_nodes[e];
    stats_prev_t *prev = calloc((size_t)nx + 1, sizeof *prev);
    int64_t *chain = calloc(3 * (size_t)nx + 1, sizeof *chain); /* before, now, a node's sum */
    stats_sum_t t = {0};
    int64_t longest = 0, alone = 0;
    int running = 1;
    while (running) {
      running = cpu_window(c, e);
      int64_t most = 0, rows = 0, in = 0, out = 0;
      int32_t busiest = -1;
      for (int32_t i = 0; prev && chain && i < nx; i++) {
        const eng_node_t *n = &c->node[x0 + i];
        const int64_t d = n->c_events - prev[i].events, s = d - (n->c_offpath - prev[i].offpath);
        const int64_t d_in = n->c_inpath - prev[i].inpath;
        if (n->c_phased != prev[i].phased) { /* a switch stepped in phases */
          if (d_in > in) in = d_in;
          if (s - d_in > out) out = s - d_in;
        } else if (d > rows) {
          rows = d;
        }
        prev[i] = (stats_prev_t){n->c_events, n->c_offpath, n->c_inpath, n->c_phased};
        t.events += d;
        chain[nx + i] = stats_chain(c, x0, i, s, chain);
        chain[2 * nx + i] += s;
        t.steps += d > 0 && n->is_switch;
        if (s > most) {
          most = s;
          busiest = x0 + i;
        }
      }
      t.cp += most;
      t.rows += rows;
      t.in += in;
      t.out += out;
      if (chain) memcpy(chain, chain + nx, (size_t)nx * sizeof *chain);
      t.sw += busiest >= 0 && c->node[busiest].is_switch;
      t.windows++;
    }
    for (int32_t i = 0; chain && i < nx; i++) {
      if (chain[i] > longest) longest = chain[i];
      if (chain[2 * nx + i] > alone) alone = chain[2 * nx + i];
    }
    free(chain);
    free(prev);
    for (int32_t x = x0; x < x0 + nx; x++)
      t.phased += c->node[x].c_phased;
    /* one call: the lines of experiments on other threads do not come between */
    fprintf(stderr,
            "stats: experiment %d: %lld windows, %lld events, critical path %lld (the busiest "
            "node's events, summed over windows; a switch in %.1f%% of them), parallelism %.1f; "
            "switch steps in port phases: %lld of %lld with events\n"
            "stats: experiment %d: without window barriers: longest chain %lld (%.3fx shorter), "
            "the busiest node's events alone %lld\n"
            "stats: experiment %d: in a block's pool, summed over windows: the busiest other "
            "row %lld, then ingress %lld, then egress %lld\n",
            e, (long long)t.windows, (long long)t.events, (long long)t.cp,
            t.windows ? 100.0 * (double)t.sw / (double)t.windows : 0.0,
            t.cp ? (double)t.events / (double)t.cp : 0.0, (long long)t.phased, (long long)t.steps,
            e, (long long)longest, longest ? (double)t.cp / (double)longest : 0.0, (long long)alone,
            e, (long long)t.rows, (long long)t.in, (long long)t.out);
  }
}

int eng_run_cpu(eng_world_t *w) {
  const int32_t nn = (int32_t)w->n[ENG_T_node];
  const int32_t ne = (int32_t)w->n[ENG_T_exp];
  /* A window's work per node is small: threads beyond one per ~2048 nodes cost
   * more in barriers than they bring, unless the caller asked for a count. */
  int threads = w->threads;
  if (threads <= 0) {
    int by_work = ne > 1 ? ne : 1 + nn / 2048, most = omp_get_max_threads();
    if (w->max_threads > 0 && w->max_threads < most) most = w->max_threads;
    threads = by_work < most ? by_work : most;
  }
  w->threads_used = threads;
  if (eng_env_flag("MULTIVERSE_STATS")) /* 0 or 1: the driver checks it when it starts */
    cpu_stats(w, threads);
  else if (ne >= threads)
    cpu_experiment_major(w, threads);
  else
    cpu_window_major(w, threads);
  return 0;
}
