/* The flow level behind eng.h: checks and memory of one experiment, the run on
 * a backend, results by experiment and task (counters of packets stay zero;
 * links report the utilisation their flows' wire bits give). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "flow/flw_world.h"

int flw_exp_check(const eng_exp_desc_t *x, char *err, size_t errlen) {
  int64_t rows[FLW_T_COUNT];
  if (x->trace && x->trace->every > 0) {
    snprintf(err, errlen, "trace: the flow level has no time series (network.model packet has)");
    return -1;
  }
  return flw_exp_rows(x, rows, err, errlen);
}

int64_t flw_exp_memory(const eng_exp_desc_t *x) {
  int64_t rows[FLW_T_COUNT], b = flw_row_bytes(FLW_T_exp);
  char err[256];
  if (flw_exp_rows(x, rows, err, sizeof err)) return -1;
  for (int k = 0; k < FLW_T_COUNT; k++)
    b += rows[k] * flw_row_bytes(k);
  return b;
}

/* Packet-hops of the CPU backend per unit: FLW_WORK_TASK per task and edge,
 * FLW_WORK_FLOW per flow (its path, its rate updates), fitted to the
 * flow level's CPU time per experiment on training sweeps against the
 * packet level's 1.4e6 packet-hops/s per thread (batching.json). */
#define FLW_WORK_TASK 1.5
#define FLW_WORK_FLOW 6.0

double flw_exp_work(const eng_exp_desc_t *x) {
  int64_t flows = 0;
  for (int32_t i = 0; i < x->tasks->n; i++)
    flows += x->tasks->t[i].kind == TG_FLOW;
  return FLW_WORK_TASK * (double)(x->tasks->n + x->tasks->n_edges) + FLW_WORK_FLOW * (double)flows;
}

int flw_world_run(flw_world_t *w, const eng_run_desc_t *r, char *err, size_t errlen) {
  if (r->backend == ENG_BACKEND_CUDA) return flw_run_cuda(w, err, errlen);
  w->threads = r->threads;
  flw_run_cpu(w);
  return 0;
}

void flw_world_result(const flw_world_t *w, int32_t e, eng_result_t *r) {
  const flw_cols_t *c = &w->c;
  int64_t t0 = c->off[FLW_T_task][e], l0 = c->off[FLW_T_link][e];
  memset(r, 0, sizeof *r);
  r->message = "";
  r->status = (eng_status_t)c->exp_status[e];
  r->fail = (eng_fail_t)c->exp_fail[e];
  r->events = c->exp_events[e]; /* the flow level's: task starts, ends, drains, receptions */
  for (int32_t i = 0; i < c->cnt[FLW_T_task][e]; i++)
    if (c->task_end[t0 + i] > r->end_ps) r->end_ps = c->task_end[t0 + i];
  int64_t first = c->exp_first[e], last = c->exp_now[e];
  r->duration_ps = first != INT64_MAX && last > first ? last - first : 0;
  for (int32_t q = 0; q < c->cnt[FLW_T_link][e]; q++) {
    int32_t tr = c->link_tier[l0 + q] < ENG_TIERS ? c->link_tier[l0 + q] : ENG_TIERS - 1;
    if (tr + 1 > r->n_tiers) r->n_tiers = tr + 1;
    eng_tier_stats_t *ts = &r->tier[tr];
    /* bits / (rate x duration): the duration in ps, the rate in bit/s */
    double util = r->duration_ps ? (double)c->link_carried[l0 + q] * 1e12 /
                                       ((double)c->link_cap[l0 + q] * (double)r->duration_ps)
                                 : 0;
    ts->ports++;
    ts->mean_util += util;
    if (util > ts->max_util) ts->max_util = util;
  }
  for (int32_t tr = 0; tr < r->n_tiers; tr++)
    if (r->tier[tr].ports) r->tier[tr].mean_util /= r->tier[tr].ports;
}

void flw_world_task_times(const flw_world_t *w, int32_t e, int32_t i, eng_task_times_t *t) {
  const flw_cols_t *c = &w->c;
  int64_t r = c->off[FLW_T_task][e] + i;
  int32_t f = c->task_flow[r];
  t->start = c->task_started[r] ? c->task_start[r] : -1;
  t->end = c->task_end[r];
  t->recv = f >= 0 ? c->flow_recv[c->off[FLW_T_flow][e] + f] : -1;
}
