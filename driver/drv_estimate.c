/* driver: what the cost model reads of one experiment (shd_feat_t), from its
 * topology, tasks and parameters alone: packet-hops, the windows its run
 * steps (from the schedule its task graph would have on an empty network),
 * nodes x windows, and the size of its world. */
#include <stdlib.h>
#include <string.h>

#include "driver/drv_kind.h"

/* A host's first link: its rate (bit/s) and delay (ps). */
static void host_link(const topo_t *t, int32_t host, double *rate, double *delay) {
  *rate = 1e11;
  *delay = 1e6;
  if (host < 0 || host >= t->n_nodes || t->port_off[host] == t->port_off[host + 1]) return;
  const topo_link_t *l = &t->links[t->ports[t->port_off[host]].link];
  *rate = (double)l->rate_bps;
  *delay = (double)l->delay_ps;
}

typedef struct span_t {
  double a, b; /* ps */
} span_t;

static int by_start(const void *pa, const void *pb) {
  const span_t *a = pa, *b = pb;
  return a->a < b->a ? -1 : a->a > b->a;
}

static int by_value(const void *pa, const void *pb) {
  double a = *(const double *)pa, b = *(const double *)pb;
  return a < b ? -1 : a > b;
}

/* Stream successor pairs: tasks of one stream in task order. */
typedef struct member_t {
  int32_t stream, task;
} member_t;

static int by_member(const void *pa, const void *pb) {
  const member_t *a = pa, *b = pb;
  if (a->stream != b->stream) return a->stream < b->stream ? -1 : 1;
  return a->task < b->task ? -1 : a->task > b->task;
}

/* Windows the run steps, estimated from the schedule the task graph has on
 * an empty network (each flow at its host link's rate, over its path's
 * delays; sync and overlap slowdowns left out): the time some flow is in
 * flight over the lookahead (the smallest link delay), plus one window per
 * distinct instant at which another task ends. 0 when the graph cannot be
 * scheduled (or out of memory): the estimate then rests on the others. */
static double est_windows(const topo_t *t, const tg_t *g) {
  const int32_t n = g->n;
  double window = 0;
  for (int32_t l = 0; l < t->n_links; l++)
    if (window == 0 || (double)t->links[l].delay_ps < window) window = (double)t->links[l].delay_ps;
  if (n == 0 || window <= 0) return 0;
  int32_t *indeg = calloc((size_t)n, sizeof *indeg), *off = calloc((size_t)n + 1, sizeof *off);
  int32_t *succ = malloc(((size_t)g->n_edges + 1) * sizeof *succ),
          *queue = malloc((size_t)n * sizeof *queue);
  int32_t *next_in_stream = malloc((size_t)n * sizeof *next_in_stream);
  double *end = malloc((size_t)n * sizeof *end), *recv = malloc((size_t)n * sizeof *recv);
  double *ready = malloc((size_t)n * sizeof *ready), *after = malloc((size_t)n * sizeof *after);
  int32_t *got = calloc((size_t)n, sizeof *got);
  double **seen = calloc((size_t)n, sizeof *seen); /* need > 0: the event times seen */
  member_t *mem = malloc((size_t)n * sizeof *mem);
  span_t *busy = malloc((size_t)n * sizeof *busy);
  double *ends = malloc((size_t)n * sizeof *ends), windows = 0;
  int32_t m = 0, head = 0, tail = 0, n_busy = 0, n_ends = 0, ok = 1;
  if (!indeg || !off || !succ || !queue || !next_in_stream || !end || !recv || !ready || !after ||
      !got || !seen || !mem || !busy || !ends)
    goto out;
  for (int32_t e = 0; e < g->n_edges; e++)
    off[g->e[e].pred + 1]++;
  for (int32_t i = 0; i < n; i++)
    off[i + 1] += off[i];
  for (int32_t e = 0; e < g->n_edges; e++) {
    int32_t p = g->e[e].pred;
    succ[off[p] + got[p]++] = e;
    indeg[g->e[e].task]++;
  }
  for (int32_t i = 0; i < n; i++) {
    next_in_stream[i] = -1;
    ready[i] = after[i] = 0;
    got[i] = 0;
    if (g->t[i].stream >= 0) mem[m++] = (member_t){g->t[i].stream, i};
  }
  qsort(mem, (size_t)m, sizeof *mem, by_member);
  for (int32_t k = 1; k < m; k++)
    if (mem[k].stream == mem[k - 1].stream) {
      next_in_stream[mem[k - 1].task] = mem[k].task;
      indeg[mem[k].task]++;
    }
  for (int32_t i = 0; i < n; i++) {
    if (g->t[i].need > 0 && indeg[i] > 0 && !(seen[i] = malloc((size_t)indeg[i] * sizeof **seen)))
      goto out;
    if (indeg[i] == 0) queue[tail++] = i;
  }
  while (head < tail) {
    int32_t i = queue[head++];
    const tg_task_t *k = &g->t[i];
    double k_time = ready[i];
    if (k->need > 0 && got[i] >= k->need) { /* the need-th smallest */
      qsort(seen[i], (size_t)got[i], sizeof **seen, by_value);
      k_time = seen[i][k->need - 1];
    }
    double start = k_time + (double)k->delay;
    if (after[i] > start) start = after[i];
    if ((double)k->start > start) start = (double)k->start;
    if (k->kind == TG_FLOW) {
      double rate, delay, src_delay;
      host_link(t, k->dst, &rate, &delay);
      host_link(t, k->host, &rate, &src_delay);
      int d = topo_distance(t, k->host, k->dst);
      double path = (d > 0 ? d : 1) * src_delay;
      recv[i] = start + (double)k->bytes * 8e12 / rate + path;
      end[i] = recv[i] + path;
      busy[n_busy++] = (span_t){start, end[i]};
    } else {
      end[i] = recv[i] = start + (k->kind == TG_JOIN ? 0 : (double)k->dur);
      ends[n_ends++] = end[i];
    }
    for (int32_t s = off[i]; s < off[i + 1]; s++) {
      const tg_edge_t *e = &g->e[succ[s]];
      double at = e->on == TG_ON_RECV ? recv[i] : end[i];
      int32_t j = e->task;
      if (seen[j])
        seen[j][got[j]++] = at;
      else if (at > ready[j])
        ready[j] = at;
      if (--indeg[j] == 0) queue[tail++] = j;
    }
    int32_t j = next_in_stream[i];
    if (j >= 0) {
      if (end[i] > after[j]) after[j] = end[i];
      if (--indeg[j] == 0) queue[tail++] = j;
    }
  }
  ok = tail == n;
  if (ok) {
    qsort(busy, (size_t)n_busy, sizeof *busy, by_start);
    double covered = 0, a = 0, b = -1;
    for (int32_t k = 0; k < n_busy; k++) {
      if (busy[k].a > b) {
        covered += b > a ? b - a : 0;
        a = busy[k].a;
        b = busy[k].b;
      } else if (busy[k].b > b) {
        b = busy[k].b;
      }
    }
    covered += b > a ? b - a : 0;
    qsort(ends, (size_t)n_ends, sizeof *ends, by_value);
    int32_t distinct = 0;
    for (int32_t k = 0; k < n_ends; k++)
      distinct += k == 0 || ends[k] != ends[k - 1];
    windows = covered / window + distinct;
  }
out:
  for (int32_t i = 0; seen && i < n; i++)
    free(seen[i]);
  free(seen);
  free(indeg), free(off), free(succ), free(queue), free(next_in_stream), free(end), free(recv);
  free(ready), free(after), free(got), free(mem), free(busy), free(ends);
  return ok ? windows : 0;
}

void drv_exp_features(const eng_exp_desc_t *d, shd_feat_t *f) {
  memset(f, 0, sizeof *f);
  if (!d->topo || !d->tasks || !d->params) return;
  const topo_t *t = d->topo;
  f->x[SHD_F_HOPS] = eng_exp_hops(d);
  f->x[SHD_F_WINDOWS] = est_windows(t, d->tasks);
  f->x[SHD_F_NODE_WINDOWS] = f->x[SHD_F_WINDOWS] * t->n_nodes;
  f->x[SHD_F_EXP] = 1;
  f->x[SHD_F_ROWS] = (double)t->n_nodes + 2.0 * t->n_links + d->tasks->n;
}
