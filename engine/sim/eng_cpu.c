/* CPU backend, the reference: the systems of each window as loops over rows.
 * Results do not depend on the thread count or the order (nodes write only
 * their own rows; the only shared writes are commutative reductions). Two
 * ways to spread the work over threads:
 *   experiment-major: each thread takes whole experiments and steps each
 *     through all its windows alone: no barrier per window, one experiment's
 *     rows stay in cache (a batch of at least as many experiments as threads);
 *   window-major: every window, the nodes of all experiments in parallel, then
 *     the ports (few large experiments). */
#include <omp.h>

#include "sim/eng_progress.h"
#include "sim/eng_step.h"

/* One window of experiment e; 1 while it is running. */
static int cpu_window(eng_cols_t *c, int32_t e) {
  int32_t x0 = c->exp_node_off[e], p0 = c->exp_port_off[e];
  for (int32_t x = x0; x < x0 + c->exp_n_nodes[e]; x++)
    eng_node_step(c, x);
  for (int32_t p = p0; p < p0 + c->exp_n_ports[e]; p++)
    eng_port_commit(c, p);
  if (c->exp_tr_every[e])
    for (int32_t s = c->exp_tr_ser[e]; s < c->exp_tr_ser[e] + c->exp_tr_nser[e]; s++)
      eng_trace_sample(c, s);
  return eng_exp_advance(c, e);
}

static void cpu_experiment_major(eng_world_t *w, int threads) {
  eng_cols_t *c = &w->c;
  const int32_t ne = (int32_t)w->n[ENG_T_exp];
  eng_progress_t pg;
  eng_progress_begin(&pg);
#pragma omp parallel for schedule(dynamic, 1) num_threads(threads)
  for (int32_t e = 0; e < ne; e++) {
    for (int64_t k = 1; cpu_window(c, e); k++)
      if ((k & 1023) == 0 && omp_get_thread_num() == 0 && eng_progress_due(&pg))
        eng_progress_report(&pg, c->exp_status, c->exp_t, ne);
  }
}

static void cpu_window_major(eng_world_t *w, int threads) {
  eng_cols_t *c = &w->c;
  const int32_t nn = (int32_t)w->n[ENG_T_node];
  const int32_t np = (int32_t)w->n[ENG_T_port];
  const int32_t ne = (int32_t)w->n[ENG_T_exp];
  const int32_t ns = (int32_t)w->n[ENG_T_tser];
  int running = 1;
  eng_progress_t pg;
  eng_progress_begin(&pg);
  for (int64_t window = 1; running; window++) {
#pragma omp parallel for schedule(dynamic, 16) num_threads(threads)
    for (int32_t x = 0; x < nn; x++)
      eng_node_step(c, x);
#pragma omp parallel for schedule(static) num_threads(threads)
    for (int32_t p = 0; p < np; p++)
      eng_port_commit(c, p);
    for (int32_t s = 0; s < ns; s++)
      eng_trace_sample(c, s);
    running = 0;
    for (int32_t e = 0; e < ne; e++)
      running |= eng_exp_advance(c, e);
    if ((window & 1023) == 0 && eng_progress_due(&pg))
      eng_progress_report(&pg, c->exp_status, c->exp_t, ne);
  }
}

int eng_run_cpu(eng_world_t *w) {
  const int32_t nn = (int32_t)w->n[ENG_T_node];
  const int32_t ne = (int32_t)w->n[ENG_T_exp];
  /* A window's work per node is small: threads beyond one per ~2048 nodes cost
   * more in barriers than they bring, unless the caller asked for a count. */
  int threads = w->threads;
  if (threads <= 0) {
    int by_work = ne > 1 ? ne : 1 + nn / 2048;
    threads = by_work < omp_get_max_threads() ? by_work : omp_get_max_threads();
  }
  if (ne >= threads)
    cpu_experiment_major(w, threads);
  else
    cpu_window_major(w, threads);
  return 0;
}
