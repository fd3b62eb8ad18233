/* tg: building and checking task graphs. */
#define _POSIX_C_SOURCE 200809L
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/base_err.h"
#include "tg/tg.h"

tg_task_t tg_task_default(tg_kind_t kind) {
  tg_task_t t;
  memset(&t, 0, sizeof t);
  t.kind = kind;
  t.gpu = -1;
  t.stream = -1;
  t.label = -1;
  return t;
}

/* Grows *p (of *cap elements of `size`) to hold n; 0 or -1. */
static int tg_grow(void **p, int32_t *cap, int32_t n, size_t size) {
  if (n <= *cap) return 0;
  int64_t c = *cap ? 2 * (int64_t)*cap : 16;
  while (c < n)
    c *= 2;
  if (c > INT32_MAX) return -1;
  void *q = realloc(*p, (size_t)c * size);
  if (!q) return -1;
  *p = q;
  *cap = (int32_t)c;
  return 0;
}

int32_t tg_add(tg_t *g, const tg_task_t *t) {
  if (g->n == INT32_MAX || (g->max > 0 && g->n >= g->max) ||
      tg_grow((void **)&g->t, &g->cap, g->n + 1, sizeof *g->t))
    return -1;
  g->t[g->n] = *t;
  return g->n++;
}

int tg_edge(tg_t *g, int32_t task, int32_t pred, tg_on_t on) {
  if (g->n_edges == INT32_MAX ||
      tg_grow((void **)&g->e, &g->cap_edges, g->n_edges + 1, sizeof *g->e))
    return -1;
  g->e[g->n_edges++] = (tg_edge_t){task, pred, (int32_t)on};
  return 0;
}

int32_t tg_label(tg_t *g, const char *s) {
  for (int32_t i = g->n_labels - 1; i >= 0; i--)
    if (strcmp(g->labels[i], s) == 0) return i;
  if (g->n_labels == INT32_MAX ||
      tg_grow((void **)&g->labels, &g->cap_labels, g->n_labels + 1, sizeof *g->labels))
    return -1;
  char *c = strdup(s);
  if (!c) return -1;
  g->labels[g->n_labels] = c;
  return g->n_labels++;
}

/* Source ports as ns-3 numbers queue pairs: 10000 upwards per (src, dst) pair,
 * in the order the flows appear (after any port given explicitly to the pair). */
typedef struct tg_pair_t {
  int32_t host, dst, idx;
} tg_pair_t;

static int tg_by_pair(const void *a, const void *b) {
  const tg_pair_t *x = a, *y = b;
  if (x->host != y->host) return x->host < y->host ? -1 : 1;
  if (x->dst != y->dst) return x->dst < y->dst ? -1 : 1;
  return x->idx < y->idx ? -1 : 1;
}

void tg_assign_ports(tg_t *g) {
  int32_t n = 0;
  tg_pair_t *key = malloc(((size_t)g->n + 1) * sizeof *key);
  for (int32_t i = 0; i < g->n; i++)
    if (g->t[i].kind == TG_FLOW) {
      if (g->t[i].dport == 0) g->t[i].dport = 100;
      if (key) key[n++] = (tg_pair_t){g->t[i].host, g->t[i].dst, i};
    }
  if (!key) return;
  qsort(key, (size_t)n, sizeof *key, tg_by_pair);
  uint32_t next = 10000;
  for (int32_t k = 0; k < n; k++) {
    tg_task_t *f = &g->t[key[k].idx];
    if (k == 0 || key[k].host != key[k - 1].host || key[k].dst != key[k - 1].dst) next = 10000;
    if (f->sport == 0) f->sport = next;
    if (f->sport >= next) next = f->sport + 1;
  }
  free(key);
}

/* A message about task i, after "FILE:LINE: " or "FILE: task I: " (written
 * only when there is something wrong: checks run on every experiment).
 * Returns -1. */
static int tg_fail(const tg_t *g, int32_t i, const char *where, char *err, size_t errlen,
                   const char *fmt, ...) __attribute__((format(printf, 6, 7)));
static int tg_fail(const tg_t *g, int32_t i, const char *where, char *err, size_t errlen,
                   const char *fmt, ...) {
  char what[512];
  va_list ap;
  va_start(ap, fmt);
  base_verrf(what, sizeof what, fmt, ap);
  va_end(ap);
  if (i >= 0 && i < g->n && g->t[i].line > 0)
    base_errf(err, errlen, "%s:%d: %s", where, g->t[i].line, what);
  else
    base_errf(err, errlen, "%s: task %d: %s", where, i, what);
  return -1;
}

static int tg_check_task(const tg_t *g, int32_t i, const topo_t *t, const char *where, char *err,
                         size_t errlen) {
  const tg_task_t *k = &g->t[i];
  if (k->kind < TG_FLOW || k->kind > TG_JOIN) {
    return tg_fail(g, i, where, err, errlen, "unknown task kind %d", k->kind);
  }
  if (k->host < 0 || k->host >= t->n_nodes || t->is_switch[k->host]) {
    return tg_fail(g, i, where, err, errlen, "host %d is not a host of the topology (%d nodes)",
                   k->host, t->n_nodes);
  }
  if (k->start < 0 || k->delay < 0 || k->dur < 0) {
    return tg_fail(g, i, where, err, errlen, "start, delay and duration must be >= 0");
  }
  if (k->start > TG_MAX_START_PS) {
    return tg_fail(g, i, where, err, errlen,
                   "start %lld ps is past 1e18 ps (1e6 s), the latest start", (long long)k->start);
  }
  if (k->delay > TG_MAX_WAIT_PS || k->dur > TG_MAX_WAIT_PS - k->delay) {
    return tg_fail(g, i, where, err, errlen,
                   "delay %lld ps + duration %lld ps: more than 1e17 ps (1e5 s)",
                   (long long)k->delay, (long long)k->dur);
  }
  if (k->gpu < -1 || k->gpu > TG_MAX_ID || k->stream < -1 || k->stream > TG_MAX_ID) {
    return tg_fail(g, i, where, err, errlen, "GPU %d, stream %d: each must be -1 (none) or 0..%d",
                   k->gpu, k->stream, TG_MAX_ID);
  }
  if (k->open && k->kind != TG_FLOW) {
    return tg_fail(g, i, where, err, errlen, "only a flow can be long-lived (open)");
  }
  if (k->kind != TG_FLOW) return 0;
  if (k->dst < 0 || k->dst >= t->n_nodes || t->is_switch[k->dst]) {
    return tg_fail(g, i, where, err, errlen, "destination %d is not a host of the topology",
                   k->dst);
  }
  if (k->dst == k->host) {
    return tg_fail(g, i, where, err, errlen, "a flow from host %d to itself", k->host);
  }
  if (k->bytes == 0 || k->bytes > TG_MAX_BYTES) {
    return tg_fail(g, i, where, err, errlen, "a flow of %llu bytes: 1 to 2^40 (1 TiB)",
                   (unsigned long long)k->bytes);
  }
  if (topo_distance(t, k->host, k->dst) < 0) {
    return tg_fail(g, i, where, err, errlen, "host %d cannot reach host %d", k->host, k->dst);
  }
  return 0;
}

/* Kahn's algorithm over the edges and the implicit stream edges; 0 if acyclic. */
static int tg_acyclic(const tg_t *g, int32_t max_stream, int32_t *bad) {
  int32_t n = g->n;
  int32_t *last_in_stream = malloc(((size_t)max_stream + 2) * sizeof *last_in_stream);
  int32_t *indeg = calloc((size_t)n + 1, sizeof *indeg);
  int32_t *off = calloc((size_t)n + 2, sizeof *off);
  int32_t *adj = malloc(((size_t)g->n_edges + 1) * sizeof *adj);
  int32_t *next_in_stream = malloc(((size_t)n + 1) * sizeof *next_in_stream);
  int32_t *queue = malloc(((size_t)n + 1) * sizeof *queue);
  int rc = -1;
  if (!indeg || !off || !adj || !next_in_stream || !queue || !last_in_stream) goto done;
  for (int32_t s = 0; s <= max_stream; s++)
    last_in_stream[s] = -1;
  for (int32_t i = 0; i < g->n_edges; i++)
    off[g->e[i].pred + 1]++;
  for (int32_t i = 0; i < n; i++)
    off[i + 1] += off[i];
  for (int32_t i = 0; i < g->n_edges; i++) {
    adj[off[g->e[i].pred]++] = g->e[i].task;
    indeg[g->e[i].task]++;
  }
  for (int32_t i = n; i > 0; i--)
    off[i] = off[i - 1];
  off[0] = 0;
  /* Stream order: each member waits for the previous member of its stream. */
  for (int32_t i = 0; i < n; i++) {
    next_in_stream[i] = -1;
    if (g->t[i].stream < 0) continue;
    int32_t s = g->t[i].stream;
    if (last_in_stream[s] >= 0) {
      next_in_stream[last_in_stream[s]] = i;
      indeg[i]++;
    }
    last_in_stream[s] = i;
  }
  int32_t head = 0, tail = 0, seen = 0;
  for (int32_t i = 0; i < n; i++)
    if (indeg[i] == 0) queue[tail++] = i;
  while (head < tail) {
    int32_t x = queue[head++];
    seen++;
    for (int32_t k = off[x]; k < off[x + 1]; k++)
      if (--indeg[adj[k]] == 0) queue[tail++] = adj[k];
    if (next_in_stream[x] >= 0 && --indeg[next_in_stream[x]] == 0)
      queue[tail++] = next_in_stream[x];
  }
  rc = seen == n ? 0 : 1;
  for (int32_t i = 0; rc == 1 && i < n; i++)
    if (indeg[i] > 0) {
      *bad = i;
      break;
    }
done:
  free(indeg);
  free(off);
  free(adj);
  free(next_in_stream);
  free(queue);
  free(last_in_stream);
  return rc;
}

int tg_check(const tg_t *g, const topo_t *t, const char *where, char *err, size_t errlen) {
  int32_t *npred = calloc((size_t)g->n + 1, sizeof *npred);
  int32_t *stream_host = NULL, *gpu_host = NULL;
  int32_t max_stream = -1, max_gpu = -1, rc = -1;
  if (!npred) goto oom;
  for (int32_t i = 0; i < g->n; i++) {
    if (tg_check_task(g, i, t, where, err, errlen)) goto done;
    if (g->t[i].stream > max_stream) max_stream = g->t[i].stream;
    if (g->t[i].gpu > max_gpu) max_gpu = g->t[i].gpu;
  }
  for (int32_t k = 0; k < g->n_edges; k++) {
    const tg_edge_t *e = &g->e[k];
    if (e->task < 0 || e->task >= g->n || e->pred < 0 || e->pred >= g->n) {
      base_errf(err, errlen, "%s: an edge names task %d after task %d: no such task", where, e->task,
                e->pred);
      goto done;
    }
    if (e->task == e->pred) {
      tg_fail(g, e->task, where, err, errlen, "the task waits for itself");
      goto done;
    }
    if (e->on != TG_ON_END && e->on != TG_ON_RECV) {
      tg_fail(g, e->task, where, err, errlen, "unknown predecessor event %d", e->on);
      goto done;
    }
    if (e->on == TG_ON_RECV && g->t[e->pred].kind != TG_FLOW) {
      tg_fail(g, e->task, where, err, errlen,
              "waits for the reception of task %d, which is not a flow", e->pred);
      goto done;
    }
    npred[e->task]++;
  }
  stream_host = malloc(((size_t)max_stream + 2) * sizeof *stream_host);
  gpu_host = malloc(((size_t)max_gpu + 2) * sizeof *gpu_host);
  if (!stream_host || !gpu_host) goto oom;
  for (int32_t s = 0; s <= max_stream; s++)
    stream_host[s] = -1;
  for (int32_t s = 0; s <= max_gpu; s++)
    gpu_host[s] = -1;
  for (int32_t i = 0; i < g->n; i++) {
    const tg_task_t *k = &g->t[i];
    if (k->need < 0 || k->need > npred[i]) {
      tg_fail(g, i, where, err, errlen, "needs %d predecessors but has %d", k->need, npred[i]);
      goto done;
    }
    if (k->gpu >= 0) {
      if (gpu_host[k->gpu] >= 0 && gpu_host[k->gpu] != k->host) {
        tg_fail(g, i, where, err, errlen, "GPU %d is on host %d, not %d", k->gpu, gpu_host[k->gpu],
                k->host);
        goto done;
      }
      gpu_host[k->gpu] = k->host;
    }
    if (k->stream < 0) continue;
    if (stream_host[k->stream] >= 0 && stream_host[k->stream] != k->host) {
      tg_fail(g, i, where, err, errlen, "stream %d is on host %d, not %d", k->stream,
              stream_host[k->stream], k->host);
      goto done;
    }
    stream_host[k->stream] = k->host;
  }
  int32_t bad = -1;
  int cyc = tg_acyclic(g, max_stream, &bad);
  if (cyc < 0) goto oom;
  if (cyc) {
    tg_fail(g, bad, where, err, errlen, "the dependencies form a cycle through this task");
    goto done;
  }
  rc = 0;
  goto done;
oom:
  base_errf(err, errlen, "%s: out of memory checking the task graph", where);
done:
  free(npred);
  free(stream_host);
  free(gpu_host);
  return rc;
}

void tg_free(tg_t *g) {
  free(g->t);
  free(g->e);
  for (int32_t i = 0; i < g->n_labels; i++)
    free(g->labels[i]);
  free(g->labels);
  memset(g, 0, sizeof *g);
}
