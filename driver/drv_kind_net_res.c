/* driver: a network experiment's results as its columns: FCT statistics over
 * its flows (times in s, exact ps scaled once), slowdowns against each flow's
 * standalone FCT, and the engine's counters. */
#include <math.h>
#include <stdlib.h>

#include "base/base_units.h"
#include "driver/drv_kind_net.h"

static int cmp_i64(const void *a, const void *b) {
  int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
  return x < y ? -1 : x > y;
}

static int cmp_f64(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return x < y ? -1 : x > y;
}

/* Nearest-rank percentile q (0..100] of n sorted values: its index. */
static int32_t rank_of(int32_t n, int q) {
  return (int32_t)((q * (int64_t)n + 99) / 100 - 1);
}

void drv_fct_stats(const drv_net_own_t *o, const eng_batch_t *b, int32_t e, drv_fct_stats_t *s) {
  const tg_t *g = o->tasks;
  int64_t *fct = malloc(((size_t)g->n + 1) * sizeof *fct);
  double *slow = malloc(((size_t)g->n + 1) * sizeof *slow);
  if (!fct || !slow) abort();
  int32_t n = 0;
  int64_t sum = 0; /* ps: exact (a flow's FCT is at most ~10^18 ps) */
  double sum_slow = 0;
  *s = (drv_fct_stats_t){0};
  for (int32_t i = 0; i < g->n; i++) {
    const tg_task_t *t = &g->t[i];
    eng_task_times_t tt;
    if (t->kind != TG_FLOW) continue;
    s->flows++;
    if (t->open) continue; /* long-lived: sends until the end (drv_net_out.c, open-N.txt) */
    s->bytes += (int64_t)t->bytes;
    if (eng_task_times(b, e, i, &tt) != 0 || tt.end < 0) continue;
    /* a flow with predecessors starts later than its `start` */
    fct[n] = tt.end - (tt.start >= 0 ? tt.start : t->start);
    int64_t alone = eng_flow_standalone(o->topo, &o->params, t);
    slow[n] = alone > 0 ? (double)fct[n] / (double)alone : 0;
    sum += fct[n];
    sum_slow += slow[n];
    n++;
  }
  qsort(fct, (size_t)n, sizeof *fct, cmp_i64);
  qsort(slow, (size_t)n, sizeof *slow, cmp_f64);
  s->done = n;
  if (n) {
    s->max_fct = fct[n - 1];
    s->p99_fct = fct[rank_of(n, 99)];
    s->mean_fct = (double)sum / n;
    s->p50_slow = slow[rank_of(n, 50)];
    s->p99_slow = slow[rank_of(n, 99)];
    s->mean_slow = sum_slow / n;
  }
  free(fct);
  free(slow);
}

/* The statistics as columns: missing (NaN) when no flow finished, not 0. */
static void fct_stats(const drv_net_own_t *o, const eng_batch_t *b, int32_t e, ana_value_t *v) {
  drv_fct_stats_t s;
  drv_fct_stats(o, b, e, &s);
  v[DRV_NET_flows].i = s.flows;
  v[DRV_NET_flows_done].i = s.done;
  v[DRV_NET_bytes].i = s.bytes;
  v[DRV_NET_max_fct].d = s.done ? (double)s.max_fct * BASE_S_PER_PS : NAN;
  v[DRV_NET_p99_fct].d = s.done ? (double)s.p99_fct * BASE_S_PER_PS : NAN;
  v[DRV_NET_mean_fct].d = s.done ? s.mean_fct * BASE_S_PER_PS : NAN;
  v[DRV_NET_p50_slowdown].d = s.done ? s.p50_slow : NAN;
  v[DRV_NET_p99_slowdown].d = s.done ? s.p99_slow : NAN;
  v[DRV_NET_mean_slowdown].d = s.done ? s.mean_slow : NAN;
}

void drv_net_results(const drv_exp_t *x, const eng_batch_t *b, int32_t e, ana_value_t *v) {
  const drv_net_own_t *o = x->own;
  eng_result_t r;
  eng_exp_result(b, e, &r);
  fct_stats(o, b, e, v);
  drv_counter_values(b, e, &v[DRV_NET_drops]);
  v[DRV_NET_paused_time].d = (double)r.paused_ps * BASE_S_PER_PS;
  /* the last task's end */
  v[DRV_NET_sim_end].d = r.status == ENG_OK ? (double)r.end_ps * BASE_S_PER_PS : NAN;
  v[DRV_NET_windows].i = r.windows;
  int64_t q = 0;
  double u = 0;
  for (int t = 0; t < r.n_tiers && t < ENG_TIERS; t++) {
    if (r.tier[t].max_queue > q) q = r.tier[t].max_queue;
    if (r.tier[t].max_util > u) u = r.tier[t].max_util;
  }
  v[DRV_NET_max_queue].i = q;
  v[DRV_NET_max_util].d = u;
}
