/* trn: the training iteration's task graph: set-up of the builder (placement,
 * programs), the helpers every part uses (tasks with their meta, joins, collectives
 * and spans), and the order of the parts. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "train/trn_gen_int.h"

const char *trn_cat_name(int cat) {
  static const char *const names[TRN_CAT_COUNT] = {"compute", "tp", "pp", "dp", "ep", "sync"};
  return cat >= 0 && cat < TRN_CAT_COUNT ? names[cat] : "?";
}

static int oom(trn_gb_t *b) {
  snprintf(b->err, b->errlen, "out of memory");
  return -1;
}

/* Grows meta to hold g.n entries. */
static int meta_grow(trn_gb_t *b) {
  trn_graph_t *o = b->o;
  if (o->g.n <= o->cap_meta) return 0;
  int32_t cap = o->cap_meta ? o->cap_meta : 1024;
  while (cap < o->g.n)
    cap = cap > INT32_MAX / 2 ? INT32_MAX : 2 * cap;
  trn_meta_t *m = realloc(o->meta, (size_t)cap * sizeof *m);
  if (!m) return oom(b);
  o->meta = m;
  o->cap_meta = cap;
  return 0;
}

int trn_gb_meta_fill(trn_gb_t *b, int32_t from, trn_meta_t meta) {
  if (meta_grow(b)) return -1;
  for (int32_t i = from; i < b->o->g.n; i++) {
    b->o->meta[i] = meta;
    if (b->o->g.t[i].kind == TG_JOIN) b->o->meta[i].cat = TRN_CAT_SYNC;
    if (b->o->g.t[i].kind == TG_FLOW) {
      b->o->n_flows++;
      b->o->flow_bytes += (int64_t)b->o->g.t[i].bytes;
    }
  }
  return 0;
}

int32_t trn_gb_task(trn_gb_t *b, tg_kind_t kind, int32_t gpu, int64_t dur, int stream,
                    trn_meta_t meta) {
  tg_task_t t = tg_task_default(kind);
  t.host = b->host[gpu];
  t.gpu = gpu;
  t.dur = dur > 0 ? dur : 0;
  t.stream = stream ? gpu : -1;
  int32_t k = tg_add(&b->o->g, &t);
  if (k < 0 || trn_gb_meta_fill(b, k, meta)) return oom(b);
  return k;
}

int32_t trn_gb_flow(trn_gb_t *b, int32_t src, int32_t dst, uint64_t bytes, trn_meta_t meta) {
  tg_task_t t = tg_task_default(TG_FLOW);
  t.host = b->host[src];
  t.dst = b->host[dst];
  t.bytes = bytes;
  t.gpu = src;
  int32_t k = tg_add(&b->o->g, &t);
  if (k < 0 || trn_gb_meta_fill(b, k, meta)) return oom(b);
  return k;
}

int trn_gb_edge(trn_gb_t *b, int32_t task, int32_t pred, tg_on_t on) {
  if (pred < 0) return 0;
  if (tg_edge(&b->o->g, task, pred, on)) return oom(b);
  return 0;
}

int trn_gb_join2(trn_gb_t *b, int32_t gpu, int32_t a, int32_t c, int32_t *out) {
  if (a < 0 || c < 0) {
    *out = a >= 0 ? a : c;
    return 0;
  }
  trn_meta_t m = {TRN_CAT_SYNC, TRN_W_RED, -1, -1, -1};
  *out = trn_gb_task(b, TG_JOIN, gpu, 0, 0, m);
  if (*out < 0 || trn_gb_edge(b, *out, a, TG_ON_END) || trn_gb_edge(b, *out, c, TG_ON_END))
    return -1;
  return 0;
}

int trn_gb_span(trn_gb_t *b, trn_span_t sp) {
  trn_graph_t *o = b->o;
  if (o->n_spans == o->cap_spans) {
    int32_t cap = o->cap_spans ? 2 * o->cap_spans : 1024;
    trn_span_t *s = realloc(o->spans, (size_t)cap * sizeof *s);
    if (!s) return oom(b);
    o->spans = s;
    o->cap_spans = cap;
  }
  o->spans[o->n_spans++] = sp;
  return 0;
}

int trn_gb_p2p_spans(trn_gb_t *b, int32_t src, int32_t dst, int32_t f, uint64_t bytes) {
  trn_span_t sp = {.gpu = src,
                   .cat = TRN_CAT_PP,
                   .kind = COLL_SENDRECV,
                   .first = f,
                   .end = f + 1,
                   .done = f,
                   .bytes = bytes,
                   .task = f};
  if (trn_gb_span(b, sp)) return -1;
  sp.gpu = dst;
  sp.recv_side = 1;
  return trn_gb_span(b, sp);
}

int trn_gb_coll(trn_gb_t *b, coll_kind_t kind, uint64_t bytes, int32_t n, const int32_t *gpus,
                const int32_t *after, int32_t *done, int cat, trn_meta_t meta) {
  coll_desc_t cd = {.kind = kind, .algo = COLL_RING, .bytes = bytes, .channels = b->d->channels};
  int32_t first = b->o->g.n;
  char e[TRN_ERR_LEN];
  if (coll_append(&b->o->g, &b->cl, &cd, n, gpus, after, done, e, sizeof e)) {
    snprintf(b->err, b->errlen, "%s collective of %llu bytes among %d GPUs: %s", trn_cat_name(cat),
             (unsigned long long)bytes, n, e);
    return -1;
  }
  meta.cat = (uint8_t)cat;
  if (trn_gb_meta_fill(b, first, meta)) return -1;
  for (int32_t i = 0; i < n; i++) {
    /* A member's first step inside its server starts `sync` after the last member is
     * ready when another NIC's member is in its server (coll's intra-server steps):
     * the span starts then. */
    int64_t lead = 0;
    for (int32_t j = 0; j < n && !lead; j++)
      if (!b->nvlink && gpus[j] / b->gps == gpus[i] / b->gps &&
          b->host[gpus[j]] != b->host[gpus[i]])
        lead = b->d->sync_ps;
    if (trn_gb_span(b, (trn_span_t){.gpu = gpus[i],
                                    .cat = (uint8_t)cat,
                                    .kind = (uint8_t)kind,
                                    .first = first,
                                    .end = b->o->g.n,
                                    .done = done[i],
                                    .bytes = bytes,
                                    .lead = lead,
                                    .task = done[i]}))
      return -1;
  }
  return 0;
}

void trn_gb_imported(trn_gb_t *b, int32_t gpus, int64_t gps, int64_t nics, const char *gpu,
                     int32_t nvlink) {
  b->gpus = gpus;
  b->gps = gps;
  b->o->n_gpus = gpus;
  b->cl = (coll_cluster_t){.gpus_per_server = (int32_t)gps,
                           .nics_per_server = (int32_t)nics,
                           .gpu = gpu,
                           .model = b->d->model,
                           .sync_ps = b->d->sync_ps};
  if (nvlink) { /* every GPU its own NIC and "server": its steps are flows */
    b->nvlink = 1;
    b->cl.gpus_per_server = b->cl.nics_per_server = 1;
  }
}

int32_t trn_gb_gpu(const trn_gb_t *b, int64_t tp, int64_t dp, int64_t pp) {
  return (int32_t)(tp + b->t * (dp + b->dp * pp));
}

int32_t trn_gb_launch(trn_gb_t *b, int64_t r, trn_launch_t l) {
  if (b->n_launch[r] == b->cap_launch[r]) {
    int32_t cap = b->cap_launch[r] ? 2 * b->cap_launch[r] : 64;
    trn_launch_t *x = realloc(b->launch[r], (size_t)cap * sizeof *x);
    if (!x) return oom(b);
    b->launch[r] = x;
    b->cap_launch[r] = cap;
  }
  b->launch[r][b->n_launch[r]] = l;
  return b->n_launch[r]++;
}

int trn_gb_trigger(trn_gb_t *b, int32_t gpu, int32_t k, int32_t trig) {
  trn_gpu_b_t *g = &b->gb[gpu];
  if (k >= g->cap_launch) {
    int32_t cap = g->cap_launch ? 2 * g->cap_launch : 64;
    while (cap <= k)
      cap *= 2;
    int32_t *t = realloc(g->trig, (size_t)cap * sizeof *t);
    if (t) g->trig = t;
    int32_t *w = t ? realloc(g->waiter, (size_t)cap * sizeof *w) : NULL;
    if (!w) return oom(b);
    g->waiter = w;
    g->cap_launch = cap;
  }
  while (g->n_launch <= k) {
    g->trig[g->n_launch] = -1;
    g->waiter[g->n_launch++] = -1;
  }
  g->trig[k] = trig;
  return 0;
}

int trn_gb_sort_spans(trn_gb_t *b) {
  trn_graph_t *o = b->o;
  int32_t *off = calloc((size_t)o->n_gpus + 1, sizeof *off);
  trn_span_t *s = malloc(((size_t)o->n_spans + 1) * sizeof *s);
  if (!off || !s) {
    free(off);
    free(s);
    return oom(b);
  }
  for (int32_t i = 0; i < o->n_spans; i++)
    off[o->spans[i].gpu + 1]++;
  for (int32_t g = 0; g < o->n_gpus; g++)
    off[g + 1] += off[g];
  int32_t *at = malloc(((size_t)o->n_gpus + 1) * sizeof *at);
  if (!at) {
    free(off);
    free(s);
    return oom(b);
  }
  memcpy(at, off, ((size_t)o->n_gpus + 1) * sizeof *at);
  for (int32_t i = 0; i < o->n_spans; i++)
    s[at[o->spans[i].gpu]++] = o->spans[i];
  free(at);
  free(o->spans);
  o->spans = s;
  o->cap_spans = o->n_spans + 1;
  o->span_off = off;
  return 0;
}

/* Placement and programs. */
static int setup(trn_gb_t *b) {
  const trn_setup_t *s = b->s;
  b->t = s->plan.tp;
  b->p = s->plan.pp;
  b->dp = s->plan.dp;
  b->v = s->plan.virtual_stages;
  b->m = s->plan.micro_batches;
  b->ep = s->plan.ep;
  b->gps = s->cluster.gpus_per_server;
  int64_t gpus = b->t * b->p * b->dp;
  if (gpus > INT32_MAX / 4 || b->m > INT32_MAX / 8 / b->v) {
    snprintf(b->err, b->errlen, "%lld GPUs x %lld micro-batches: too large a task graph",
             (long long)gpus, (long long)b->m);
    return -1;
  }
  b->gpus = (int32_t)gpus;
  b->o->n_gpus = b->gpus;
  b->cl = (coll_cluster_t){.gpus_per_server = (int32_t)b->gps,
                           .nics_per_server = (int32_t)s->cluster.nics_per_server,
                           .gpu = s->cluster.gpu.name,
                           .model = b->d->model,
                           .sync_ps = b->d->sync_ps};
  b->host = malloc((size_t)b->gpus * sizeof *b->host);
  b->gb = calloc((size_t)b->gpus, sizeof *b->gb);
  b->o->gpu_stage = malloc((size_t)b->gpus * sizeof *b->o->gpu_stage);
  b->prog = calloc((size_t)b->p, sizeof *b->prog);
  b->n_steps = calloc((size_t)b->p, sizeof *b->n_steps);
  b->launch = calloc((size_t)b->p, sizeof *b->launch);
  b->n_launch = calloc(2 * (size_t)b->p, sizeof *b->n_launch);
  if (!b->host || !b->gb || !b->o->gpu_stage || !b->prog || !b->n_steps || !b->launch ||
      !b->n_launch)
    return oom(b);
  b->cap_launch = b->n_launch + b->p;
  int64_t nics = s->cluster.nics_per_server;
  for (int32_t g = 0; g < b->gpus; g++) {
    int64_t server = g / b->gps, local = g % b->gps;
    b->host[g] = (int32_t)(server * nics + local * nics / b->gps);
    b->gb[g].last = b->gb[g].dp_done = -1;
    b->o->gpu_stage[g] = (int32_t)(g / (b->t * b->dp));
  }
  for (int64_t r = 0; r < b->p; r++) {
    b->n_steps[r] = trn_schedule(b->p, b->v, b->m, r, &b->prog[r]);
    if (b->n_steps[r] < 0) return oom(b);
  }
  for (int32_t g = 0; g < b->gpus; g++) {
    int32_t n = b->n_steps[b->o->gpu_stage[g]];
    b->gb[g].call_join = malloc(2 * ((size_t)n + 1) * sizeof(int32_t));
    if (!b->gb[g].call_join) return oom(b);
    b->gb[g].call_mark = b->gb[g].call_join + n + 1;
  }
  int64_t bucket = s->plan.bucket_params;
  b->bucket = bucket > 0 ? bucket : (40000000 > 1000000 * b->dp ? 40000000 : 1000000 * b->dp);
  return 0;
}

static void builder_free(trn_gb_t *b) {
  for (int32_t g = 0; b->gb && g < b->gpus; g++) {
    free(b->gb[g].call_join);
    free(b->gb[g].trig);
    free(b->gb[g].waiter);
  }
  for (int64_t r = 0; r < b->p; r++) {
    if (b->prog) free(b->prog[r]);
    if (b->launch) free(b->launch[r]);
  }
  free(b->gb);
  free(b->host);
  free(b->prog);
  free(b->n_steps);
  free(b->launch);
  free(b->n_launch);
}

int trn_gen(const trn_gen_desc_t *d, trn_graph_t *out, char *err, size_t errlen) {
  trn_gb_t b = {.o = out, .d = d, .s = d->setup, .err = err, .errlen = errlen};
  memset(out, 0, sizeof *out);
  out->g.max = d->max_tasks;
  int rc = -1;
  if (setup(&b) || trn_gen_costs(&b) || trn_gen_passes(&b) || trn_gen_p2p(&b) || trn_gen_dp(&b) ||
      trn_gb_sort_spans(&b)) {
    if (d->max_tasks > 0 && out->g.n >= d->max_tasks) {
      snprintf(err, errlen,
               "its task graph passed %d tasks (%.3g GB) before it was complete: more than "
               "this process may build",
               d->max_tasks, (double)d->max_tasks * (sizeof(tg_task_t) + sizeof(tg_edge_t)) / 1e9);
      rc = -2;
    }
    goto done;
  }
  tg_assign_ports(&out->g);
  rc = 0;
done:
  builder_free(&b);
  if (rc) trn_graph_free(out);
  return rc;
}

void trn_graph_free(trn_graph_t *g) {
  tg_free(&g->g);
  free(g->meta);
  free(g->spans);
  free(g->span_off);
  free(g->gpu_stage);
  free(g->prebubble);
  memset(g, 0, sizeof *g);
}
