/* eng.h over the world: experiments validated one by one (an invalid one is a
 * result, not an error of the batch), memory estimates from the world's row
 * counts, and results read back by experiment and task. */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "flow/flw.h"
#include "sim/eng_progress.h"
#include "sim/eng_standalone.h"
#include "sim/eng_num.h"
#include "sim/eng_world.h"

/* A batch is one world, or several where one would address more rows than
 * its int32 offsets allow: the valid experiments in order, cut in halves
 * until every part fits (each run after the other, results unchanged).
 * Experiments of the flow level (network.model flow) go to one flow world. */
struct eng_batch_t {
  int32_t n;
  int32_t *widx;    /* (n) experiment in its world; -1: invalid or flow level */
  int32_t *fidx;    /* (n) experiment in the flow world; -1: not there */
  flw_world_t *fw;  /* the flow level's experiments, NULL: none */
  int32_t *wof;     /* (n) its world */
  char **msg;       /* (n) why invalid; NULL otherwise */
  int32_t *n_tasks; /* (n) */
  uint8_t **open;   /* (n) per task: a long-lived flow (tg_task_t.open); NULL: none */
  eng_world_t **w;  /* (n_w) */
  int32_t n_w, n_valid;
  int broken; /* a run failed: no results */
};

/* How a message names flow task i: by its line in the flow file, else its
 * index (formatted only for a message: validation runs on every experiment). */
static const char *batch_flow_at(const tg_task_t *k, int32_t i, char *at, size_t len) {
  if (k->line > 0)
    snprintf(at, len, "flow on line %d", k->line);
  else
    snprintf(at, len, "flow (task %d)", i);
  return at;
}

/* What the world cannot take from a task graph beyond tg_check. */
static int batch_tasks_ok(const tg_t *g, const eng_params_t *p, char *err, size_t errlen) {
  for (int32_t i = 0; i < g->n; i++) {
    const tg_task_t *k = &g->t[i];
    char at[64];
    /* A slowed compute task's work, dur * overlap_q16, is an int64. */
    if (k->kind == TG_COMPUTE && k->gpu >= 0 && p->overlap_q16 > 65536 &&
        k->dur > INT64_MAX / p->overlap_q16) {
      snprintf(err, errlen,
               "task %d: a compute task of %lld ps is too long to slow down (at most %lld ps with "
               "overlap_slowdown %.4g)",
               i, (long long)k->dur, (long long)(INT64_MAX / p->overlap_q16),
               (double)p->overlap_q16 / 65536.0);
      return -1;
    }
    if (k->kind != TG_FLOW) continue;
    if (k->sport == 0 || k->dport == 0) {
      snprintf(err, errlen, "%s: ports not assigned (tg_assign_ports)",
               batch_flow_at(k, i, at, sizeof at));
      return -1;
    }
    if (p->classes && (k->prio < 1 || k->prio >= ENG_CLASSES)) {
      snprintf(err, errlen, "%s: priority %u is not a traffic class (classes: 1..%d)",
               batch_flow_at(k, i, at, sizeof at), (unsigned)k->prio, ENG_CLASSES - 1);
      return -1;
    }
    if ((k->bytes + (uint64_t)p->mtu - 1) / (uint64_t)p->mtu > (1ULL << 31)) {
      snprintf(err, errlen, "%s: %llu bytes are more than 2^31 packets of mtu %d (raise mtu)",
               batch_flow_at(k, i, at, sizeof at), (unsigned long long)k->bytes, p->mtu);
      return -1;
    }
  }
  return 0;
}

static int batch_trace_ok(const eng_trace_desc_t *tr, const tg_t *g, const topo_t *t, char *err,
                          size_t errlen) {
  if (!tr || tr->every <= 0) return 0;
  if (tr->max_samples < 1 || tr->n_flows < 0 || tr->n_ports < 0) {
    snprintf(err, errlen, "trace: needs room for a sample and non-negative counts");
    return -1;
  }
  for (int32_t i = 0; i < tr->n_flows; i++)
    if (tr->flows[i] < 0 || tr->flows[i] >= g->n || g->t[tr->flows[i]].kind != TG_FLOW) {
      snprintf(err, errlen, "trace: task %d is not a flow (%d tasks)", tr->flows[i], g->n);
      return -1;
    }
  for (int32_t i = 0; i < tr->n_ports; i++)
    if (tr->ports[i] < 0 || tr->ports[i] >= 2 * t->n_links) {
      snprintf(err, errlen, "trace: port %d: there are %d ports", tr->ports[i], 2 * t->n_links);
      return -1;
    }
  return 0;
}

/* A world's row limit against an experiment's rows: 0, or -1 with a message. */
static int batch_rows_fit(const int64_t rows[ENG_T_COUNT], char *err, size_t errlen) {
  int64_t limit = eng_world_row_limit();
  for (int t = 0; t < ENG_T_COUNT; t++)
    if (rows[t] > limit) {
      snprintf(err, errlen, "too large for one world (more than %lld rows in one table)",
               (long long)limit);
      return -1;
    }
  return 0;
}

static int64_t batch_rows_bytes(const int64_t rows[ENG_T_COUNT]) {
  int64_t bytes = 0;
  for (int t = 0; t < ENG_T_COUNT; t++)
    bytes += rows[t] * eng_world_row_bytes(t);
  return bytes;
}

int eng_exp_check(const eng_exp_desc_t *x, char *err, size_t errlen, int64_t *bytes,
                  eng_graph_size_t *size) {
  if (!x->topo || !x->tasks || !x->params) {
    snprintf(err, errlen, "an experiment needs a topology, tasks and parameters");
    return -1;
  }
  if (eng_params_check(x->params, err, errlen)) return -1;
  if (batch_tasks_ok(x->tasks, x->params, err, errlen)) return -1;
  if (tg_check(x->tasks, x->topo, "tasks", err, errlen)) return -1;
  if (batch_trace_ok(x->trace, x->tasks, x->topo, err, errlen)) return -1;
  if (x->params->model == ENG_MODEL_FLOW) {
    if (flw_exp_check(x, err, errlen)) return -1;
    if (bytes) *bytes = flw_exp_memory(x);
    if (size) memset(size, 0, sizeof *size);
    return 0;
  }
  if (eng_world_rings_check(x, err, errlen)) return -1;
  eng_graph_size_t s;
  int64_t rows[ENG_T_COUNT];
  if (eng_graph_size(x->topo, x->tasks, &s)) {
    snprintf(err, errlen, "out of memory counting its rows");
    return -1;
  }
  eng_world_rows_sized(x, &s, 0, rows);
  if (batch_rows_fit(rows, err, errlen)) return -1;
  if (bytes) *bytes = batch_rows_bytes(rows);
  if (size) *size = s;
  return 0;
}

int eng_exp_validate(const eng_exp_desc_t *x, char *err, size_t errlen) {
  return eng_exp_check(x, err, errlen, NULL, NULL);
}

int64_t eng_exp_memory_sized(const eng_exp_desc_t *x, const eng_graph_size_t *size, char *err,
                             size_t errlen) {
  if (!x->topo || !x->params || x->params->model == ENG_MODEL_FLOW ||
      (x->trace && x->trace->every > 0)) {
    snprintf(err, errlen, "sized from its graph: a packet-level experiment without a trace");
    return -1;
  }
  if (eng_params_check(x->params, err, errlen)) return -1;
  if (eng_world_rings_check(x, err, errlen)) return -1;
  int64_t rows[ENG_T_COUNT];
  eng_world_rows_sized(x, size, 0, rows);
  return batch_rows_fit(rows, err, errlen) ? -1 : batch_rows_bytes(rows);
}

int64_t eng_exp_memory_valid(const eng_exp_desc_t *x) {
  if (x->params->model == ENG_MODEL_FLOW) return flw_exp_memory(x);
  eng_world_desc_t wd = {.n_exps = 1, .exps = x};
  return eng_world_estimate(&wd);
}

int64_t eng_exp_memory(const eng_exp_desc_t *x) {
  char err[8];
  return eng_exp_validate(x, err, sizeof err) ? -1 : eng_exp_memory_valid(x);
}

/* The valid experiments of the packet level of d (malloc'd, *n of them);
 * widx[e] their index, -1 for an invalid one whose reason goes to msg[e]
 * (when msg is not NULL) and for one of the flow level, which goes to
 * flow[fidx[e]] (*nf of them; flow NULL: counted in *bytes instead). */
static eng_exp_desc_t *batch_valid(const eng_batch_desc_t *d, int32_t *widx, char **msg, int32_t *n,
                                   eng_exp_desc_t *flow, int32_t *fidx, int32_t *nf,
                                   int64_t *bytes) {
  eng_exp_desc_t *v = malloc(((size_t)d->n_exps + 1) * sizeof *v);
  *n = *nf = 0;
  if (!v) return NULL;
  for (int32_t e = 0; e < d->n_exps; e++) {
    char why[1024];
    widx[e] = -1;
    if (fidx) fidx[e] = -1;
    if (d->exps[e].validated || eng_exp_validate(&d->exps[e], why, sizeof why) == 0) {
      if (d->exps[e].params->model == ENG_MODEL_FLOW) {
        if (flow) flow[*nf] = d->exps[e];
        if (fidx) fidx[e] = *nf;
        if (bytes) *bytes += flw_exp_memory(&d->exps[e]);
        ++*nf;
        continue;
      }
      v[*n] = d->exps[e];
      widx[e] = (*n)++;
    } else if (msg && !(msg[e] = strdup(why))) {
      free(v);
      return NULL;
    }
  }
  return v;
}

int64_t eng_batch_memory(const eng_batch_desc_t *d) {
  int32_t n = 0, nf = 0, *widx = malloc(((size_t)d->n_exps + 1) * sizeof *widx);
  int64_t fbytes = 0;
  eng_exp_desc_t *v = widx ? batch_valid(d, widx, NULL, &n, NULL, NULL, &nf, &fbytes) : NULL;
  eng_world_desc_t wd = {.n_exps = n, .exps = v};
  int64_t bytes = v ? eng_world_estimate(&wd) : -1;
  if (bytes >= 0) bytes += fbytes;
  free(v);
  free(widx);
  return bytes;
}

/* Worlds for valid experiments v[lo, hi) (the lo-th valid onwards), halved
 * while one would have too many rows; world k holds them from first[k]. */
static int batch_worlds(eng_batch_t *b, const eng_exp_desc_t *v, int32_t lo, int32_t hi,
                        int32_t threads, int32_t *first, char *err, size_t errlen) {
  eng_world_desc_t wd = {.n_exps = hi - lo, .exps = v + lo, .threads = threads};
  int rc = eng_world_create(&wd, &b->w[b->n_w], err, errlen);
  if (rc == ENG_E_TOO_BIG && hi - lo > 1) {
    int32_t mid = lo + (hi - lo) / 2;
    rc = batch_worlds(b, v, lo, mid, threads, first, err, errlen);
    return rc ? rc : batch_worlds(b, v, mid, hi, threads, first, err, errlen);
  }
  if (rc == 0) first[b->n_w++] = lo;
  return rc;
}

int eng_batch_create(const eng_batch_desc_t *d, eng_batch_t **out, char *err, size_t errlen) {
  int rc = ENG_E_NOMEM;
  int32_t n = d->n_exps, nv = 0, nf = 0, *first = NULL;
  eng_exp_desc_t *v = NULL, *fv = NULL;
  eng_batch_t *b = calloc(1, sizeof *b);
  *out = NULL;
  if (!b) goto fail_oom;
  b->n = n;
  b->widx = malloc(((size_t)n + 1) * sizeof *b->widx);
  b->wof = calloc((size_t)n + 1, sizeof *b->wof);
  b->msg = calloc((size_t)n + 1, sizeof *b->msg);
  b->n_tasks = calloc((size_t)n + 1, sizeof *b->n_tasks);
  b->fidx = malloc(((size_t)n + 1) * sizeof *b->fidx);
  b->open = calloc((size_t)n + 1, sizeof *b->open);
  fv = malloc(((size_t)n + 1) * sizeof *fv);
  if (!b->widx || !b->wof || !b->msg || !b->n_tasks || !b->fidx || !b->open || !fv) goto fail_oom;
  for (int32_t e = 0; e < n; e++) {
    const tg_t *g = d->exps[e].tasks;
    b->n_tasks[e] = g ? g->n : 0;
    for (int32_t i = 0; i < b->n_tasks[e]; i++) {
      if (!g->t[i].open) continue;
      if (!b->open[e] && !(b->open[e] = calloc((size_t)g->n, 1))) goto fail_oom;
      b->open[e][i] = 1;
    }
  }
  v = batch_valid(d, b->widx, b->msg, &nv, fv, b->fidx, &nf, NULL);
  b->n_valid = nv;
  b->w = calloc((size_t)nv + 1, sizeof *b->w);
  first = malloc(((size_t)nv + 2) * sizeof *first);
  if (!v || !b->w || !first) goto fail_oom;
  rc = batch_worlds(b, v, 0, nv, d->threads, first, err, errlen);
  if (!rc && nf) rc = flw_world_create(nf, fv, &b->fw, err, errlen);
  if (rc) goto fail;
  /* widx: index among the valid experiments, then within its world. */
  first[b->n_w] = nv;
  for (int32_t e = 0, k = 0; e < n; e++) {
    if (b->widx[e] < 0) continue;
    while (b->widx[e] >= first[k + 1])
      k++;
    b->wof[e] = k;
    b->widx[e] -= first[k];
  }
  if (b->n_w > 1 && eng_env_flag("MULTIVERSE_VERBOSE"))
    fprintf(stderr, "batch of %d experiments in %d worlds (at most %lld rows per table each)\n", nv,
            b->n_w, (long long)eng_world_row_limit());
  free(first);
  free(v);
  free(fv);
  *out = b;
  return 0;
fail_oom:
  snprintf(err, errlen, "out of memory describing a batch of %d experiments", n);
fail:
  free(first);
  free(v);
  free(fv);
  eng_batch_destroy(b);
  return rc;
}

int eng_batch_run(eng_batch_t *b, const eng_run_desc_t *r, char *err, size_t errlen) {
  if (r->backend == ENG_BACKEND_CUDA && !eng_cuda_available()) {
    snprintf(err, errlen, "--backend cuda: %s", eng_cuda_unavailable_reason());
    return ENG_E_DEVICE;
  }
  int rc = 0;
  for (int32_t k = 0; k < b->n_w && !rc; k++) {
    eng_world_t *w = b->w[k];
    if (w->n_exps == 0) continue; /* every experiment is invalid */
    w->threads = r->threads;
    w->max_threads = r->max_threads;
    eng_progress_attach(r->finished);
    rc = eng_world_run(w, r->backend, err, errlen);
    int32_t done = 0;
    for (int32_t e = 0; e < w->n_exps; e++)
      done += w->c.exp_status[e] != ENG_RUNNING;
    eng_progress_detach(done);
  }
  if (!rc && b->fw) rc = flw_world_run(b->fw, r, err, errlen);
  b->broken = rc != 0;
  return rc;
}

static int32_t world_threads(const eng_world_t *w) {
  int32_t t = w->threads_used;
  for (int32_t k = 0; k < w->n_parts; k++) {
    int32_t p = w->parts[k] ? world_threads(w->parts[k]) : 0;
    t = p > t ? p : t;
  }
  return t;
}

int32_t eng_batch_threads(const eng_batch_t *b) {
  int32_t t = 0;
  for (int32_t k = 0; k < b->n_w; k++) {
    int32_t x = world_threads(b->w[k]);
    t = x > t ? x : t;
  }
  return t;
}

void eng_batch_destroy(eng_batch_t *b) {
  if (!b) return;
  for (int32_t e = 0; b->msg && e < b->n; e++)
    free(b->msg[e]);
  for (int32_t e = 0; b->open && e < b->n; e++)
    free(b->open[e]);
  free(b->msg);
  free(b->open);
  free(b->widx);
  free(b->fidx);
  flw_world_destroy(b->fw);
  free(b->wof);
  free(b->n_tasks);
  for (int32_t k = 0; b->w && k < b->n_w; k++)
    eng_world_destroy(b->w[k]);
  free(b->w);
  free(b);
}

int64_t eng_batch_bytes(const eng_batch_t *b) {
  int64_t bytes = 0;
  for (int32_t k = 0; k < b->n_w; k++)
    bytes += eng_world_bytes(b->w[k]);
  return bytes + (b->fw ? flw_world_bytes(b->fw) : 0);
}

int32_t eng_batch_worlds(const eng_batch_t *b) {
  return b->n_w;
}

/* Long-lived flows send until max_time_s: an experiment with some ended as it
 * should when every other task did. */
static void batch_open_end(const eng_batch_t *b, int32_t e, eng_result_t *r) {
  if (r->status != ENG_TIMED_OUT || !b->open[e]) return;
  for (int32_t i = 0; i < b->n_tasks[e]; i++) {
    eng_task_times_t t;
    if (!b->open[e][i] && (eng_task_times(b, e, i, &t) || t.end < 0)) return;
  }
  r->status = ENG_OK;
}

void eng_exp_result(const eng_batch_t *b, int32_t e, eng_result_t *r) {
  if (b->fidx[e] >= 0 && !b->broken) {
    flw_world_result(b->fw, b->fidx[e], r);
    batch_open_end(b, e, r);
    return;
  }
  if (b->widx[e] >= 0 && !b->broken) {
    eng_world_result(b->w[b->wof[e]], b->widx[e], r);
    batch_open_end(b, e, r);
    return;
  }
  memset(r, 0, sizeof *r);
  r->status = b->widx[e] < 0 && b->fidx[e] < 0 ? ENG_INVALID : ENG_FAILED;
  r->message = b->msg[e] ? b->msg[e] : "";
}

int eng_task_times(const eng_batch_t *b, int32_t e, int32_t task, eng_task_times_t *t) {
  if (e < 0 || e >= b->n || task < 0 || task >= b->n_tasks[e]) return -1;
  t->start = t->end = t->recv = -1;
  if (b->fidx[e] >= 0 && !b->broken) {
    flw_world_task_times(b->fw, b->fidx[e], task, t);
    return 0;
  }
  if (b->widx[e] < 0 || b->broken) return 0;
  const eng_world_t *w = b->w[b->wof[e]];
  t->start = eng_task_start(w, b->widx[e], task);
  t->end = eng_task_end(w, b->widx[e], task);
  t->recv = eng_task_recv(w, b->widx[e], task);
  return 0;
}

int eng_task_delivered(const eng_batch_t *b, int32_t e, int32_t task, uint64_t *bytes) {
  *bytes = 0;
  if (e < 0 || e >= b->n || task < 0 || task >= b->n_tasks[e]) return -1;
  if (b->widx[e] < 0 || b->broken) return 0;
  int64_t v = eng_task_delivered_w(b->w[b->wof[e]], b->widx[e], task);
  if (v < 0) return -1;
  *bytes = (uint64_t)v;
  return 0;
}

int32_t eng_trace_samples(const eng_batch_t *b, int32_t e) {
  return b->widx[e] < 0 || b->broken ? 0 : eng_world_trace_samples(b->w[b->wof[e]], b->widx[e]);
}

double eng_trace_value(const eng_batch_t *b, int32_t e, int32_t k, int32_t series) {
  return k < eng_trace_samples(b, e) ? eng_world_trace_value(b->w[b->wof[e]], b->widx[e], k, series)
                                     : 0.0;
}

double eng_exp_hops(const eng_exp_desc_t *x) {
  const eng_params_t *p = x->params;
  const tg_t *g = x->tasks;
  double hops = 0, acks = 1.0 / (p->ack_every > 0 ? p->ack_every : 1);
  const uint64_t mtu = p->mtu > 0 ? (uint64_t)p->mtu : 1;
  for (int32_t i = 0; i < g->n; i++) {
    const tg_task_t *f = &g->t[i];
    if (f->kind != TG_FLOW) continue;
    int d = topo_distance(x->topo, f->host, f->dst);
    hops += (double)((f->bytes + mtu - 1) / mtu) * (d > 0 ? d : 1) * (1 + acks);
  }
  return hops;
}

double eng_flow_work(const eng_exp_desc_t *x) {
  return flw_exp_work(x);
}

int64_t eng_flow_standalone(const topo_t *t, const eng_params_t *p, const tg_task_t *flow) {
  trf_flow_t f = {.src = flow->host,
                  .dst = flow->dst,
                  .sport = flow->sport,
                  .dport = flow->dport,
                  .prio = flow->prio,
                  .bytes = flow->bytes,
                  .start_ps = flow->start,
                  .line = flow->line};
  return eng_standalone_fct(t, p, &f);
}

int64_t eng_largest_base_rtt(const topo_t *t, const eng_params_t *p) {
  return eng_max_base_rtt(t, p);
}
