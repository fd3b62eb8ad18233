/* The flow level's CPU backend (the reference for CUDA): each experiment's
 * event loop on one OpenMP thread, experiments taken dynamically. */
#include <omp.h>

#include "flow/flw_step.h"

void flw_run_cpu(flw_world_t *w) {
  int threads = w->threads > 0 ? w->threads : omp_get_max_threads();
  if (threads > w->n_exps) threads = w->n_exps > 0 ? w->n_exps : 1;
#pragma omp parallel for schedule(dynamic, 1) num_threads(threads)
  for (int32_t e = 0; e < w->n_exps; e++)
    if (w->c.exp_status[e] == ENG_RUNNING) flw_exp_run(&w->c, e);
}
