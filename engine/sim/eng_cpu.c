/* CPU backend, the reference: the systems of each window as OpenMP loops over
 * rows. Results do not depend on the thread count (nodes write only their own
 * rows; the only shared writes are commutative reductions). */
#include <omp.h>

#include "sim/eng_progress.h"
#include "sim/eng_step.h"

int eng_run_cpu(eng_world_t *w) {
  eng_cols_t *c = &w->c;
  const int32_t nn = (int32_t)w->n[ENG_T_node];
  const int32_t np = (int32_t)w->n[ENG_T_port];
  const int32_t ne = (int32_t)w->n[ENG_T_exp];
  const int32_t ns = (int32_t)w->n[ENG_T_tser];
  /* A window's work per node is small: threads beyond one per ~2048 nodes cost
   * more in barriers than they bring, unless the caller asked for a count. */
  int threads = w->threads;
  if (threads <= 0) {
    threads = 1 + nn / 2048;
    if (threads > omp_get_max_threads()) threads = omp_get_max_threads();
  }
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
  return 0;
}
