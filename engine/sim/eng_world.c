/* World memory (columns generated from ENG_COLUMNS), results, names. Filling
 * the tables is eng_build.c. */
#define _DEFAULT_SOURCE /* madvise */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "sim/eng_num.h"
#include "sim/eng_progress.h"
#include "sim/eng_world.h"
#include "sim/eng_world_cols.h"

/* A column of n bytes, zeroed. A large one that is not packet storage
 * (mapped fresh by calloc, its pages zeroed as they are first touched) asks
 * for transparent huge pages: a batch of 2,048 small experiments touches ~1 GB
 * of such columns as it is built, a fault per 4 KiB page, most of the build's
 * time. Packet storage is touched as it fills (descriptors lazily), often a
 * small part of it: its 4 KiB pages keep what is resident small. */
static void *eng_col_alloc(size_t n, int storage) {
  void *p = calloc(n, 1);
#ifdef MADV_HUGEPAGE
  const uintptr_t huge = (uintptr_t)2 << 20;
  if (p && !storage && n >= 2 * huge) {
    uintptr_t a = ((uintptr_t)p + huge - 1) & ~(huge - 1), b = ((uintptr_t)p + n) & ~(huge - 1);
    if (b > a) madvise((void *)a, b - a, MADV_HUGEPAGE); /* advice: failing changes nothing */
  }
#else
  (void)storage;
#endif
  return p;
}

void eng_cols_alloc(eng_world_t *w) {
#define ENG_ALLOC(tab, type, name)                                                                 \
  w->c.name = (type *)eng_col_alloc(                                                               \
      (size_t)(w->n[ENG_T_##tab] ? w->n[ENG_T_##tab] : 1) * sizeof(type),                          \
      eng_table_is_storage(ENG_T_##tab)); /* an empty table: one row (what a copy moves) */
  ENG_COLUMNS(ENG_ALLOC)
#undef ENG_ALLOC
}

int eng_cols_ok(const eng_world_t *w) {
  int ok = 1;
#define ENG_CHECK(tab, type, name) ok = ok && w->c.name != NULL;
  ENG_COLUMNS(ENG_CHECK)
#undef ENG_CHECK
  return ok;
}

int64_t eng_world_row_bytes(int table) {
  int64_t b = 0;
#define ENG_SIZE(tab, type, name) b += ENG_T_##tab == table ? (int64_t)sizeof(type) : 0;
  ENG_COLUMNS(ENG_SIZE)
#undef ENG_SIZE
  return b;
}

int64_t eng_world_bytes(const eng_world_t *w) {
  int64_t b = 0;
  for (int t = 0; t < ENG_T_COUNT; t++)
    b += w->n[t] * eng_world_row_bytes(t);
  return b;
}

void eng_world_destroy(eng_world_t *w) {
  if (!w) return;
#define ENG_FREE(tab, type, name) free(w->c.name);
  ENG_COLUMNS(ENG_FREE)
#undef ENG_FREE
  free(w->exp_task_row);
  free(w->worst_rings_of);
  free((void *)w->desc.exps);
  for (int32_t k = 0; k < w->n_parts; k++)
    eng_world_destroy(w->parts[k]);
  free(w->parts);
  free(w->part_of);
  free(w->part_idx);
  free(w);
}

/* Where experiment e's results are: in w, or in the world that ran it. */
static const eng_world_t *eng_home(const eng_world_t *w, int32_t *e) {
  while (w->n_parts && w->part_of[*e] >= 0) {
    int32_t k = w->part_of[*e];
    *e = w->part_idx[*e];
    w = w->parts[k];
  }
  return w;
}

void eng_world_result(const eng_world_t *w, int32_t e, eng_result_t *r) {
  w = eng_home(w, &e);
  const eng_cols_t *c = &w->c;
  memset(r, 0, sizeof *r);
  r->message = "";
  r->status = (eng_status_t)c->exp_status[e];
  r->fail = c->exp_fail[e] == INT64_MAX ? ENG_FAIL_NONE : (eng_fail_t)c->exp_fail[e];
  r->windows = c->exp_windows[e];
  int32_t x0 = c->exp_node_off[e], nx = c->exp_n_nodes[e];
  for (int32_t x = x0; x < x0 + nx; x++) {
    r->drops += c->node[x].c_drops;
    r->pfc_pauses += c->node[x].c_pauses;
    r->ecn_marks += c->node[x].c_ecn;
    r->packet_hops += c->node[x].c_hops;
    r->retransmits += c->node[x].c_retx;
    r->timeouts += c->node[x].c_timeouts;
    r->cnps += c->node[x].c_cnps;
    r->retx_bytes += c->node[x].c_retx_bytes;
    r->events += c->node[x].c_events;
    r->phased += c->node[x].c_phased;
  }
  int64_t start = INT64_MAX, last = 0;
  r->end_ps = 0;
  for (int32_t i = 0; i < c->exp_n_tasks[e]; i++) {
    int32_t t = w->exp_task_row[c->exp_task_off[e] + i];
    if (c->task[t].end > r->end_ps) r->end_ps = c->task[t].end;
    if (c->task[t].started && c->task[t].start < start) start = c->task[t].start;
  }
  for (int32_t x = x0; x < x0 + nx; x++)
    if (c->node[x].now > last) last = c->node[x].now;
  r->duration_ps = start != INT64_MAX && last > start ? last - start : 0;
  for (int32_t x = x0; x < x0 + nx; x++) {
    int32_t tr = c->node[x].tier < ENG_TIERS ? c->node[x].tier : ENG_TIERS - 1;
    if (tr + 1 > r->n_tiers) r->n_tiers = tr + 1;
    eng_tier_stats_t *ts = &r->tier[tr];
    for (int32_t p = c->node[x].port_off; p < c->node[x].port_off + c->node[x].n_ports; p++) {
      double util = r->duration_ps ? (double)c->port[p].busy_ps / (double)r->duration_ps : 0;
      ts->ports++;
      ts->mean_util += util;
      if (util > ts->max_util) ts->max_util = util;
      if (c->port[p].q_max > ts->max_queue) ts->max_queue = c->port[p].q_max;
      r->paused_ps += c->port[p].paused_ps;
      if (c->port[p].paused) r->paused_ps += last - c->port[p].paused_since;
    }
  }
  for (int32_t tr = 0; tr < r->n_tiers; tr++)
    if (r->tier[tr].ports) r->tier[tr].mean_util /= r->tier[tr].ports;
}

int32_t eng_world_trace_samples(const eng_world_t *w, int32_t e) {
  w = eng_home(w, &e);
  return w->c.exp_tr_count[e];
}

double eng_world_trace_value(const eng_world_t *w, int32_t e, int32_t k, int32_t series) {
  w = eng_home(w, &e);
  const eng_cols_t *c = &w->c;
  return c->tval_v[c->exp_tr_off[e] + k * c->exp_tr_nser[e] + series];
}

/* Task row of experiment e's task i, in the world *w that holds its results. */
static int32_t eng_task_row(const eng_world_t **w, int32_t e, int32_t i) {
  *w = eng_home(*w, &e);
  return (*w)->exp_task_row[(*w)->c.exp_task_off[e] + i];
}

int64_t eng_task_start(const eng_world_t *w, int32_t e, int32_t i) {
  int32_t t = eng_task_row(&w, e, i);
  return w->c.task[t].started ? w->c.task[t].start : -1;
}

int64_t eng_task_end(const eng_world_t *w, int32_t e, int32_t i) {
  int32_t t = eng_task_row(&w, e, i);
  return w->c.task[t].end;
}

int64_t eng_task_recv(const eng_world_t *w, int32_t e, int32_t i) {
  int32_t t = eng_task_row(&w, e, i);
  int32_t f = w->c.task[t].flow;
  return f >= 0 ? w->c.flow[f].recv : -1;
}

int64_t eng_task_delivered_w(const eng_world_t *w, int32_t e, int32_t i) {
  int32_t t = eng_task_row(&w, e, i);
  int32_t f = w->c.task[t].flow;
  if (f < 0) return -1;
  uint64_t b = (uint64_t)w->c.flow[f].rcv_nxt * (uint64_t)w->c.exp_mtu[w->c.task[t].exp];
  return (int64_t)(b < w->c.flow[f].bytes ? b : w->c.flow[f].bytes);
}

const char *eng_status_name(eng_status_t s) {
  switch (s) {
  case ENG_OK:
    return "ok";
  case ENG_FAILED:
    return "failed";
  case ENG_TIMED_OUT:
    return "timed_out";
  case ENG_INVALID:
    return "invalid";
  default:
    return "running";
  }
}

const char *eng_result_reason(const eng_result_t *r) {
  switch (r->status) {
  case ENG_OK:
    return "";
  case ENG_INVALID:
    return r->message && *r->message ? r->message : "invalid";
  case ENG_TIMED_OUT:
    return "reached its simulated-time limit (max_time_s)";
  default:
    return *eng_fail_text(r->fail) ? eng_fail_text(r->fail) : "failed";
  }
}

const char *eng_fail_text(eng_fail_t f) {
  switch (f) {
  case ENG_FAIL_RING:
    return "a link's in-flight ring overflowed (raise ring_cap)";
  case ENG_FAIL_PFC_RING:
    return "too many PFC frames in flight on one link";
  case ENG_FAIL_ROUTE:
    return "a packet reached a node with no route to its destination";
  case ENG_FAIL_DEADLOCK:
    return "deadlock: nothing pending while tasks are unfinished (PFC deadlock?)";
  case ENG_FAIL_POOL:
    return "a node's descriptor pool overflowed (set pool_pkts)";
  default:
    return "";
  }
}

/* Runs experiments which[0..n) of w's description in a world of their own,
 * the next part of w, and records where their results are. A world too large
 * for one world's rows (with worst-case storage, more than their batch had) is
 * run as two halves, each a part. */
static int eng_run_part(eng_world_t *w, const int32_t *which, int32_t n, int worst_storage,
                        eng_backend_t backend, char *err, size_t errlen) {
  const int32_t k = w->n_parts;
  eng_exp_desc_t *ex = malloc(((size_t)n + 1) * sizeof *ex);
  if (!w->part_of) {
    w->part_of = malloc(((size_t)w->n_exps + 1) * sizeof *w->part_of);
    w->part_idx = malloc(((size_t)w->n_exps + 1) * sizeof *w->part_idx);
    for (int32_t e = 0; w->part_of && e < w->n_exps; e++)
      w->part_of[e] = -1;
  }
  if (k == w->cap_parts && ex) {
    const int32_t cap = k ? 2 * k : 2;
    eng_world_t **p = realloc(w->parts, (size_t)cap * sizeof *p);
    if (p) {
      w->parts = p;
      w->cap_parts = cap;
    }
  }
  if (!ex || !w->part_of || !w->part_idx || k == w->cap_parts) {
    free(ex);
    snprintf(err, errlen, "out of memory splitting a batch of %d experiments", w->n_exps);
    return ENG_E_NOMEM;
  }
  for (int32_t i = 0; i < n; i++)
    ex[i] = w->desc.exps[which[i]];
  eng_world_desc_t d = {.n_exps = n, .exps = ex, .worst_storage = worst_storage};
  w->parts[k] = NULL;
  int rc = eng_world_create(&d, &w->parts[k], err, errlen);
  free(ex);
  if (rc == ENG_E_TOO_BIG && n > 1) {
    rc = eng_run_part(w, which, n / 2, worst_storage, backend, err, errlen);
    return rc ? rc : eng_run_part(w, which + n / 2, n - n / 2, worst_storage, backend, err, errlen);
  }
  if (rc && worst_storage && !w->desc.worst_storage) {
    /* Worst-case storage too large to build: the experiments stay failed with
     * the overflow ("raise ring_cap", "set pool_pkts"), read from w. */
    return 0;
  }
  if (rc) return rc;
  for (int32_t i = 0; i < n; i++) {
    w->part_of[which[i]] = k;
    w->part_idx[which[i]] = i;
  }
  w->n_parts = k + 1;
  w->parts[k]->threads = w->threads;
  w->parts[k]->max_threads = w->max_threads;
  return eng_world_run(w->parts[k], backend, err, errlen);
}

/* Whether experiment e failed for want of room its worst-case storage has: a
 * compact ring or pool overflowed. */
static int eng_storage_overflow(const eng_world_t *w, int32_t e) {
  if (w->c.exp_status[e] != ENG_FAILED || w->desc.worst_storage) return 0;
  const eng_params_t *p = w->desc.exps[e].params;
  switch (w->c.exp_fail[e]) {
  case ENG_FAIL_RING:
  case ENG_FAIL_PFC_RING:
    return p->ring_cap == 0;
  case ENG_FAIL_POOL: /* only a compact pool fails (pool_pkts given: never) */
    return 1;
  default:
    return 0;
  }
}

/* Experiments whose compact rings or pools overflowed run again in a world of
 * their own with worst-case storage. */
static int eng_run_retry(eng_world_t *w, eng_backend_t backend, char *err, size_t errlen) {
  int32_t n = 0, *which = malloc(((size_t)w->n_exps + 1) * sizeof *which);
  if (!which) {
    snprintf(err, errlen, "out of memory");
    return ENG_E_NOMEM;
  }
  int32_t pools = 0;
  for (int32_t e = 0; e < w->n_exps; e++)
    if (eng_storage_overflow(w, e)) {
      which[n++] = e;
      pools += w->c.exp_fail[e] == ENG_FAIL_POOL;
    }
  if (n && eng_env_flag("MULTIVERSE_VERBOSE")) {
    fprintf(stderr,
            "storage overflowed in %d experiment(s) (%d rings, %d pools), run again with "
            "worst-case storage:",
            n, n - pools, pools);
    for (int32_t i = 0; i < n && i < 16; i++)
      fprintf(stderr, " %d", which[i]);
    fprintf(stderr, "%s\n", n > 16 ? " ..." : "");
  }
  /* Progress: the others ended for good. Those run again count once: where
   * the first run counts each end it counted them already, else the raise
   * after their second run does (its own counting is held). */
  eng_progress_raise(w->n_exps - n);
  int32_t *counter = eng_progress_hold();
  int rc = n ? eng_run_part(w, which, n, 1, backend, err, errlen) : 0;
  eng_progress_resume(counter);
  if (!rc) eng_progress_raise(w->n_exps);
  free(which);
  return rc;
}

/* A batch too large for the device runs as two halves. */
static int eng_run_split(eng_world_t *w, eng_backend_t backend, char *err, size_t errlen) {
  int32_t half = w->n_exps / 2, *which = malloc(((size_t)w->n_exps + 1) * sizeof *which);
  if (!which) {
    snprintf(err, errlen, "out of memory");
    return ENG_E_NOMEM;
  }
  for (int32_t e = 0; e < w->n_exps; e++)
    which[e] = e;
  int rc = eng_run_part(w, which, half, w->desc.worst_storage, backend, err, errlen);
  if (!rc)
    rc = eng_run_part(w, which + half, w->n_exps - half, w->desc.worst_storage, backend, err, errlen);
  free(which);
  return rc;
}

int eng_world_run(eng_world_t *w, eng_backend_t backend, char *err, size_t errlen) {
  if (backend != ENG_BACKEND_CUDA)
    return eng_run_cpu(w) ? ENG_E_DEVICE : eng_run_retry(w, backend, err, errlen);
  /* Known not to fit: split before trying (the arena is the world's bytes). */
  size_t free_bytes = eng_cuda_free_bytes();
  int rc = w->n_exps > 1 && free_bytes && (size_t)eng_world_bytes(w) > free_bytes
               ? ENG_NO_DEVICE_MEMORY
               : eng_run_cuda(w, err, errlen);
  if (rc == ENG_NO_DEVICE_MEMORY && w->n_exps > 1) return eng_run_split(w, backend, err, errlen);
  if (rc) return rc == ENG_NO_DEVICE_MEMORY ? ENG_E_NOMEM : ENG_E_DEVICE;
  return eng_run_retry(w, backend, err, errlen);
}
