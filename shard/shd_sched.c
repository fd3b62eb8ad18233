/* Sharding: the plan of the remaining work over workers of several kinds
 * (shd_cost.h, shd_sched): which kind of worker runs each experiment, the
 * batches of each kind's share, the next batch of one worker, and when the
 * work ends. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "shd_cost.h"

/* An experiment left, with its sort key. */
typedef struct left_t {
  double alone; /* s: its time alone on the kind of worker that runs it fastest */
  int32_t e;
} left_t;

/* Larger first, then the smaller index: a total order. */
static int by_alone(const void *pa, const void *pb) {
  const left_t *a = pa, *b = pb;
  if (a->alone != b->alone) return a->alone > b->alone ? -1 : 1;
  return a->e < b->e ? -1 : a->e > b->e;
}

/* A batch of a kind's plan, with where its members are. */
typedef struct batch_t {
  shd_batch_t b;
  int32_t key, first_exp; /* first_exp: the experiment of its first member */
  const int32_t *members; /* (b.n) indices into the group's experiments */
  const int32_t *group;   /* group position -> experiment index */
} batch_t;

static int by_cost(const void *pa, const void *pb) {
  const batch_t *a = pa, *b = pb;
  if (a->b.cost != b->b.cost) return a->b.cost > b->b.cost ? -1 : 1;
  if (a->key != b->key) return a->key < b->key ? -1 : 1;
  return a->first_exp < b->first_exp ? -1 : a->first_exp > b->first_exp;
}

static int by_int(const void *pa, const void *pb) {
  int32_t a = *(const int32_t *)pa, b = *(const int32_t *)pb;
  return a < b ? -1 : a > b;
}

static const double *coef_of(const shd_sched_t *s, int32_t c, int32_t e) {
  return s->cls[c].coef + (size_t)s->key[e] * SHD_C_N;
}

/* Seconds of e alone in a batch of kind c, or -1 when its memory does not fit. */
static double alone_on(const shd_sched_t *s, int32_t c, int32_t e) {
  if (s->cls[c].mem_budget <= 0 || s->mem[e] > s->cls[c].mem_budget) return -1;
  const double *k = coef_of(s, c, e);
  return shd_cost_parallel(k, &s->feat[e]) + shd_cost_serial(k, &s->feat[e]) + k[SHD_C_BATCH];
}

/* The plans of kind c's share (per key), their batches merged largest
 * first into *out (n_out of them); members point into plans. -1: memory. */
static int kind_plan(const shd_sched_t *s, int32_t c, const int32_t *kind_of, int32_t n_left,
                     const left_t *left, shd_plan_t *plans, int32_t **groups, batch_t **out,
                     int32_t *n_out) {
  int32_t workers = 0, total = 0;
  for (int32_t w = 0; w < s->n_workers; w++)
    workers += s->workers[w].cls == c;
  *out = NULL;
  *n_out = 0;
  for (int32_t k = 0; k < s->n_keys; k++) {
    int32_t n = 0;
    shd_exp_t *x = malloc(((size_t)n_left + 1) * sizeof *x);
    groups[k] = malloc(((size_t)n_left + 1) * sizeof *groups[k]);
    if (!x || !groups[k]) {
      free(x);
      return -1;
    }
    const double *coef = s->cls[c].coef + (size_t)k * SHD_C_N;
    for (int32_t i = 0; i < n_left; i++) {
      int32_t e = left[i].e;
      if (kind_of[e] != c || s->key[e] != k) continue;
      groups[k][n] = e;
      x[n++] = (shd_exp_t){.cost = shd_cost_parallel(coef, &s->feat[e]),
                           .mem = s->mem[e],
                           .serial = shd_cost_serial(coef, &s->feat[e])};
    }
    shd_desc_t d = {.mem_budget = s->cls[c].mem_budget,
                    .max_batch = s->cls[c].max_batch,
                    .parallel = s->cls[c].slots,
                    .contention = coef[SHD_C_CONTENTION],
                    .batch_overhead = coef[SHD_C_BATCH],
                    .ranks = workers,
                    .target = s->cls[c].target};
    int rc = n ? shd_plan(&d, x, n, &plans[k], NULL, 0) : 0;
    free(x);
    if (rc) return -1;
    total += plans[k].n_batches;
  }
  batch_t *b = malloc(((size_t)total + 1) * sizeof *b);
  if (!b) return -1;
  for (int32_t k = 0; k < s->n_keys; k++)
    for (int32_t i = 0; i < plans[k].n_batches; i++) {
      const shd_batch_t *pb = &plans[k].batches[i];
      const int32_t *m = plans[k].members + pb->first;
      b[*n_out] = (batch_t){.b = *pb, .key = k, .members = m, .group = groups[k]};
      b[*n_out].first_exp = groups[k][m[0]]; /* a tie-break: fixed by the group order */
      (*n_out)++;
    }
  qsort(b, (size_t)*n_out, sizeof *b, by_cost);
  *out = b;
  return 0;
}

/* Kind c's batches taken by its workers from their free times: its end. */
static double kind_end(const shd_sched_t *s, int32_t c, const batch_t *b, int32_t n) {
  int32_t workers = 0;
  double *free_at = malloc(((size_t)s->n_workers + 1) * sizeof *free_at);
  shd_batch_t *bs = malloc(((size_t)n + 1) * sizeof *bs);
  if (!free_at || !bs) abort();
  for (int32_t w = 0; w < s->n_workers; w++)
    if (s->workers[w].cls == c) free_at[workers++] = s->workers[w].free_at;
  for (int32_t i = 0; i < n; i++)
    bs[i] = b[i].b;
  shd_plan_t p = {.n_batches = n, .batches = bs};
  double end = workers ? shd_makespan_from(&p, workers, free_at, NULL) : 0;
  free(free_at);
  free(bs);
  return end;
}

int shd_sched(const shd_sched_t *s, int32_t me, shd_pick_t *next, shd_outlook_t *out) {
  const int32_t nc = s->n_classes, ne = s->n_exps;
  left_t *left = malloc(((size_t)ne + 1) * sizeof *left);
  int32_t *kind_of = malloc(((size_t)ne + 1) * sizeof *kind_of);
  double *load = calloc((size_t)nc + 1, sizeof *load), *first_free = NULL;
  double *top = calloc((size_t)nc + 1, sizeof *top); /* s: the longest a kind took */
  int32_t *workers = calloc((size_t)nc + 1, sizeof *workers), n_left = 0, lost = 0, batches = 0;
  first_free = malloc(((size_t)nc + 1) * sizeof *first_free);
  double end = 0;
  if (next) next->n = 0;
  if (!left || !kind_of || !load || !workers || !first_free || !top) {
    end = -1;
    goto done;
  }
  for (int32_t c = 0; c < nc; c++)
    first_free[c] = INFINITY;
  for (int32_t w = 0; w < s->n_workers; w++) {
    const shd_worker_t *wk = &s->workers[w];
    workers[wk->cls]++;
    load[wk->cls] += wk->free_at;
    if (wk->free_at < first_free[wk->cls]) first_free[wk->cls] = wk->free_at;
  }
  /* What is left, largest first by its best time alone. */
  for (int32_t e = 0; e < ne; e++) {
    kind_of[e] = -1;
    if (s->taken && s->taken[e]) continue;
    double best = -1;
    for (int32_t c = 0; c < nc; c++) {
      double a = workers[c] ? alone_on(s, c, e) : -1;
      if (a >= 0 && (best < 0 || a < best)) best = a;
    }
    if (best < 0) {
      lost++;
      continue;
    }
    left[n_left++] = (left_t){best, e};
  }
  qsort(left, (size_t)n_left, sizeof *left, by_alone);
  /* Each to the kind that would finish it first: its load spread over its
   * workers, or from its first free worker the longest of this experiment
   * and those it took already (they step side by side: a GPU's batch ends
   * with its longest member, so a short experiment beside a long one ends
   * with it). */
  for (int32_t i = 0; i < n_left; i++) {
    int32_t e = left[i].e, pick = -1;
    double best = INFINITY, share = 0, own_pick = 0;
    for (int32_t c = 0; c < nc; c++) {
      double a = workers[c] ? alone_on(s, c, e) : -1;
      if (a < 0) continue;
      const double *k = coef_of(s, c, e);
      double t =
          shd_cost_parallel(k, &s->feat[e]) / shd_lanes(s->cls[c].slots, k[SHD_C_CONTENTION]) +
          shd_cost_serial(k, &s->feat[e]);
      double spread = (load[c] + t) / workers[c], own = first_free[c] + (a > top[c] ? a : top[c]);
      double fin = spread > own ? spread : own;
      if (fin < best) {
        best = fin;
        pick = c;
        share = t;
        own_pick = a;
      }
    }
    kind_of[e] = pick;
    load[pick] += share;
    if (own_pick > top[pick]) top[pick] = own_pick;
  }
  int32_t mine = next && me >= 0 && me < s->n_workers ? s->workers[me].cls : -1;
  for (int32_t c = 0; c < nc && end >= 0; c++) {
    if (!workers[c]) continue;
    shd_plan_t *plans = calloc((size_t)s->n_keys + 1, sizeof *plans);
    int32_t **groups = calloc((size_t)s->n_keys + 1, sizeof *groups), nb = 0;
    batch_t *b = NULL;
    if (!plans || !groups || kind_plan(s, c, kind_of, n_left, left, plans, groups, &b, &nb)) {
      end = -1;
    } else {
      double e = kind_end(s, c, b, nb);
      if (e > end) end = e;
      batches += nb;
      if (c == mine && nb > 0) {
        next->n = b[0].b.n;
        next->key = b[0].key;
        next->cost = b[0].b.cost;
        for (int32_t m = 0; m < b[0].b.n; m++)
          next->members[m] = b[0].group[b[0].members[m]];
        qsort(next->members, (size_t)next->n, sizeof *next->members, by_int);
      }
    }
    for (int32_t k = 0; plans && k < s->n_keys; k++) {
      shd_plan_free(&plans[k]);
      if (groups) free(groups[k]);
    }
    free(plans);
    free(groups);
    free(b);
  }
  if (end < 0 && next) next->n = 0;
done:
  if (out) *out = (shd_outlook_t){.makespan = end, .batches = batches, .unplaced = lost};
  free(left);
  free(kind_of);
  free(load);
  free(top);
  free(workers);
  free(first_free);
  return end < 0 ? -1 : 0;
}
