/* Sharding: the planned makespan of batches taken in order from a shared counter
 * by ranks that each run one batch at a time (free from the start, or from
 * the end of what each holds); the same for a batch's members on threads. */
#include <stdlib.h>

#include "shd_cost.h"

typedef struct slot_t {
  double free_at; /* s */
  int32_t rank;
} slot_t;

/* Earlier free time first; ties: lower rank (a total order). */
static int before(const slot_t *a, const slot_t *b) {
  return a->free_at < b->free_at || (a->free_at == b->free_at && a->rank < b->rank);
}

static void sift_down(slot_t *h, int32_t n, int32_t i) {
  for (;;) {
    int32_t l = 2 * i + 1, r = l + 1, m = i;
    if (l < n && before(&h[l], &h[m])) m = l;
    if (r < n && before(&h[r], &h[m])) m = r;
    if (m == i) return;
    slot_t t = h[i];
    h[i] = h[m];
    h[m] = t;
    i = m;
  }
}

double shd_makespan(const shd_plan_t *plan, int32_t ranks, int32_t *rank_of) {
  return shd_makespan_from(plan, ranks, NULL, rank_of);
}

double shd_makespan_from(const shd_plan_t *plan, int32_t ranks, const double *free_at,
                         int32_t *rank_of) {
  if (ranks < 1) ranks = 1;
  slot_t *h = malloc((size_t)ranks * sizeof *h);
  if (!h) abort();
  double end = 0;
  for (int32_t r = 0; r < ranks; r++) {
    h[r] = (slot_t){free_at ? free_at[r] : 0, r};
    if (h[r].free_at > end) end = h[r].free_at;
  }
  for (int32_t r = ranks / 2 - 1; r >= 0; r--)
    sift_down(h, ranks, r);
  for (int32_t b = 0; b < plan->n_batches; b++) {
    if (rank_of) rank_of[b] = h[0].rank;
    h[0].free_at += plan->batches[b].cost;
    if (h[0].free_at > end) end = h[0].free_at;
    sift_down(h, ranks, 0);
  }
  free(h);
  return end;
}

static int by_double(const void *pa, const void *pb) {
  double a = *(const double *)pa, b = *(const double *)pb;
  return a < b ? -1 : a > b;
}

void shd_member_ends(const double *cost, int32_t n, int32_t threads, double *ends) {
  if (threads < 1) threads = 1;
  if (threads > n) threads = n > 0 ? n : 1;
  slot_t *h = malloc((size_t)threads * sizeof *h);
  if (!h) abort();
  for (int32_t t = 0; t < threads; t++)
    h[t] = (slot_t){0, t};
  for (int32_t m = 0; m < n; m++) {
    h[0].free_at += cost[m];
    ends[m] = h[0].free_at;
    sift_down(h, threads, 0);
  }
  free(h);
  qsort(ends, (size_t)n, sizeof *ends, by_double);
}

double shd_own_estimate(double est, const double *ends, int32_t n, int32_t e, double ran) {
  if (n < 1 || e < 1 || e > n || !(ends[e - 1] > 0)) return est > ran ? est : ran;
  double own = est + (ran / ends[e - 1] - 1) * ends[n - 1];
  return own > ran ? own : ran;
}
