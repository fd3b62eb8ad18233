/* coll: piecewise fit t = alpha + bytes / beta of measured nccl-tests points,
 * and a fit as a model-file entry. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "coll/coll.h"

/* Most ranges a fit may use: enough for the regimes of a curve (latency,
 * protocol changes, bandwidth), few enough not to follow each point's noise. */
#define COLL_FIT_RANGES 6
/* Smallest size term, us per byte: 10 TB/s, beyond any link of a server. */
#define COLL_FIT_CMIN 1e-7
/* Most distinct sizes a fit takes: the search costs up to the cube of the
 * count (0.6 s at 512). */
#define COLL_FIT_SIZES 512
/* Sizes from which the fit is held to its tighter tolerance. */
#define COLL_FIT_BIG ((uint64_t)1 << 20)

static int by_bytes(const void *a, const void *b) {
  const coll_point_t *x = a, *y = b;
  return x->bytes < y->bytes ? -1 : x->bytes > y->bytes;
}

/* Weighted sums of a range's points for its least-squares line, weights
 * 1/t^2 (relative errors). A range's sums are always added from its largest
 * size down, so that a line has the same bits however it was reached. */
typedef struct fit_sums_t {
  double s0, s1, s2, r0, r1;
} fit_sums_t;

static void sums_add(fit_sums_t *s, const coll_point_t *q) {
  double x = (double)q->bytes, t = q->time_us, w = 1 / (t * t);
  s->s0 += w;
  s->s1 += w * x;
  s->s2 += w * x * x;
  s->r0 += w * t;
  s->r1 += w * x * t;
}

/* The least-squares line t = a + c * x of the sums, with a >= 0 and
 * c >= COLL_FIT_CMIN: where the free optimum has c below, c is held there (a
 * flat range: the time does not grow with the size there, as below a
 * protocol's first bandwidth-bound size), where it has a < 0, a is held at 0
 * (then c again at least COLL_FIT_CMIN); a in us, c in us per byte. -1 if
 * singular. */
static int wls(const fit_sums_t *s, double *a, double *c) {
  double det = s->s0 * s->s2 - s->s1 * s->s1;
  if (!(det > 0)) return -1;
  *a = (s->r0 * s->s2 - s->r1 * s->s1) / det;
  *c = (s->s0 * s->r1 - s->s1 * s->r0) / det;
  if (*c < COLL_FIT_CMIN) {
    *c = COLL_FIT_CMIN;
    *a = (s->r0 - *c * s->s1) / s->s0;
  }
  if (*a < 0) {
    *a = 0;
    *c = s->r1 / s->s2;
    if (*c < COLL_FIT_CMIN) *c = COLL_FIT_CMIN;
  }
  return 0;
}

/* Tolerances of a fit: tol_big for the sizes from COLL_FIT_BIG on, which
 * carry a training step's traffic, tol_small below, where a fixed latency
 * (and a harness's own) dominates the time. */
typedef struct fit_tol_t {
  double small, big;
} fit_tol_t;

/* The largest relative error of the line over p[i..j] as a share of each
 * point's tolerance (<= 1: every point within); past 1 it stops at the first
 * point out. */
static double max_rel_err(const coll_point_t *p, int32_t i, int32_t j, double a, double c,
                          fit_tol_t tol) {
  double e = 0;
  for (int32_t k = i; k <= j && e <= 1; k++) {
    double d = fabs(a + c * (double)p[k].bytes - p[k].time_us) / p[k].time_us;
    d /= p[k].bytes >= COLL_FIT_BIG ? tol.big : tol.small;
    if (d > e) e = d;
  }
  return e;
}

/* Fewest ranges of two points or more whose lines keep every point within
 * its tolerance (ties: the smaller largest error, then the earlier cut), at
 * most maxr; -1 if there is none. Dynamic programming over prefixes: cnt[j]
 * ranges cover points [0, j), the last of them [from[j], j); the ranges
 * ending at j are grown from j down, their sums one point at a time. */
static int32_t segment(const coll_point_t *p, int32_t n, fit_tol_t tol, int32_t maxr,
                       coll_fit_t *out) {
  int32_t *cnt = malloc(((size_t)n + 1) * sizeof *cnt),
          *from = malloc(((size_t)n + 1) * sizeof *from);
  double *worst = malloc(((size_t)n + 1) * sizeof *worst);
  int32_t nr = -1;
  if (!cnt || !from || !worst) goto done;
  cnt[0] = 0;
  worst[0] = 0;
  for (int32_t j = 1; j <= n; j++) {
    cnt[j] = -1;
    fit_sums_t sum = {0};
    sums_add(&sum, &p[j - 1]);
    for (int32_t i = j - 2; i >= 0; i--) {
      sums_add(&sum, &p[i]);
      double a, c;
      if (cnt[i] < 0 || cnt[i] >= maxr || wls(&sum, &a, &c) || !(c > 0) || !(a >= 0)) continue;
      double e = max_rel_err(p, i, j - 1, a, c, tol), w = e > worst[i] ? e : worst[i];
      if (e > 1) continue;
      /* i descends: on a tie the earlier cut, seen last, wins */
      if (cnt[j] < 0 || cnt[i] + 1 < cnt[j] || (cnt[i] + 1 == cnt[j] && w <= worst[j])) {
        cnt[j] = cnt[i] + 1;
        worst[j] = w;
        from[j] = i;
      }
    }
  }
  if (cnt[n] < 0 || cnt[n] > maxr) goto done;
  nr = cnt[n];
  for (int32_t j = n, k = nr - 1; out && j > 0; j = from[j], k--) {
    double a = 0, c = 1;
    fit_sums_t sum = {0};
    for (int32_t i = j - 1; i >= from[j]; i--)
      sums_add(&sum, &p[i]);
    wls(&sum, &a, &c);
    out->r[k].max_bytes = j == n ? UINT64_MAX : p[j - 1].bytes;
    out->r[k].alpha_us = a;
    out->r[k].beta_gbps = 1e-3 / c; /* us per byte -> GB/s */
  }
done:
  free(cnt);
  free(from);
  free(worst);
  return nr;
}

/* A single point: the line through it and the origin. */
static int32_t segment_one(const coll_point_t *p, coll_fit_t *out) {
  out->r[0].max_bytes = UINT64_MAX;
  out->r[0].alpha_us = 0;
  out->r[0].beta_gbps = 1e-3 / (p[0].time_us / (double)p[0].bytes);
  return 1;
}

/* Pool adjacent violators: the n points (sorted by size, distinct sizes) made
 * non-decreasing in time, each block of points that broke the order replaced by its
 * mean (equal weights). In place; the sizes stay. */
static void monotone(coll_point_t *p, int32_t n) {
  int32_t *start = malloc(((size_t)n + 1) * sizeof *start), nb = 0;
  double *mean = malloc(((size_t)n + 1) * sizeof *mean);
  if (!start || !mean) { /* fit the points as they are */
    free(start);
    free(mean);
    return;
  }
  for (int32_t i = 0; i < n; i++) {
    start[nb] = i;
    mean[nb++] = p[i].time_us;
    while (nb > 1 && mean[nb - 2] > mean[nb - 1]) { /* merge the last two blocks */
      int32_t a = start[nb - 2], b = start[nb - 1], e = i + 1;
      mean[nb - 2] = (mean[nb - 2] * (b - a) + mean[nb - 1] * (e - b)) / (e - a);
      nb--;
    }
  }
  for (int32_t k = 0; k < nb; k++)
    for (int32_t i = start[k]; i < (k + 1 < nb ? start[k + 1] : n); i++)
      p[i].time_us = mean[k];
  free(start);
  free(mean);
}

int coll_fit(const coll_point_t *in, int32_t n, coll_fit_t *out, char *err, size_t errlen) {
  static const double tols[] = {0.02, 0.03, 0.04, 0.05, 0.06, 0.07, 0.08,
                                0.09, 0.10, 0.15, 0.20, 0.30, 0.50};
  coll_point_t *p = malloc(((size_t)n + 1) * sizeof *p);
  int32_t m = 0;
  if (!p) {
    snprintf(err, errlen, "out of memory");
    return -1;
  }
  for (int32_t i = 0; i < n; i++) {
    if (!(in[i].time_us > 0) || !isfinite(in[i].time_us)) {
      snprintf(err, errlen, "a time of %g us at %llu bytes: times must be > 0", in[i].time_us,
               (unsigned long long)in[i].bytes);
      free(p);
      return -1;
    }
    if (in[i].bytes > 0) p[m++] = in[i];
  }
  qsort(p, (size_t)m, sizeof *p, by_bytes);
  int32_t u = 0; /* merge equal sizes: mean time */
  for (int32_t i = 0; i < m;) {
    int32_t j = i;
    double sum = 0;
    for (; j < m && p[j].bytes == p[i].bytes; j++)
      sum += p[j].time_us;
    p[u].bytes = p[i].bytes;
    p[u++].time_us = sum / (j - i);
    i = j;
  }
  /* The points as measured (max_err is over them), then made non-decreasing in size:
   * a larger message never takes less time, so a drop between neighbouring sizes is
   * the measurement's noise (single timed operations, clocks); adjacent points that
   * break the order are pooled into their mean, the least-squares non-decreasing
   * curve (pool adjacent violators). */
  coll_point_t *meas = malloc(((size_t)u + 1) * sizeof *meas);
  if (!meas) {
    snprintf(err, errlen, "out of memory");
    free(p);
    return -1;
  }
  memcpy(meas, p, (size_t)u * sizeof *p);
  monotone(p, u);
  if (u == 0) {
    free(meas);
    snprintf(err, errlen, "no measured point of a size > 0");
    free(p);
    return -1;
  }
  if (u > COLL_FIT_SIZES) {
    snprintf(err, errlen,
             "%d sizes: the fit takes at most %d (nccl-tests -f 2 gives one per doubling)", u,
             COLL_FIT_SIZES);
    free(p);
    free(meas);
    return -1;
  }
  /* The tightest tolerance from COLL_FIT_BIG on, then the tightest below:
   * loosening either never loses a fit, so each is a binary search. */
  int32_t nr = u == 1 ? segment_one(p, out) : -1;
  const int32_t nt = (int32_t)(sizeof tols / sizeof *tols);
  if (u > 1 && segment(p, u, (fit_tol_t){tols[nt - 1], tols[nt - 1]}, COLL_FIT_RANGES, NULL) >= 0) {
    int32_t lo = 0, hi = nt - 1; /* big: the first index that fits */
    while (lo < hi) {
      int32_t mid = (lo + hi) / 2;
      if (segment(p, u, (fit_tol_t){tols[nt - 1], tols[mid]}, COLL_FIT_RANGES, NULL) >= 0)
        hi = mid;
      else
        lo = mid + 1;
    }
    const double big = tols[lo];
    lo = 0, hi = nt - 1; /* then small */
    while (lo < hi) {
      int32_t mid = (lo + hi) / 2;
      if (segment(p, u, (fit_tol_t){tols[mid], big}, COLL_FIT_RANGES, NULL) >= 0)
        hi = mid;
      else
        lo = mid + 1;
    }
    nr = segment(p, u, (fit_tol_t){tols[lo], big}, COLL_FIT_RANGES, out);
  }
  if (nr < 0) {
    snprintf(err, errlen, "the points need more than %d ranges of two points within 50%%",
             COLL_FIT_RANGES);
    free(p);
    free(meas);
    return -1;
  }
  out->n_ranges = nr;
  out->max_err = 0;
  for (int32_t i = 0; i < u; i++) {
    double t = (double)coll_fit_time_ps(out, meas[i].bytes) * 1e-6;
    double e = fabs(t - meas[i].time_us) / meas[i].time_us;
    if (e > out->max_err) out->max_err = e;
  }
  free(p);
  free(meas);
  return 0;
}

json_t *coll_fit_to_json(const coll_fit_t *f) {
  json_t *o = json_object(), *rs = NULL;
  if (!o || json_object_set_new(o, "gpu", json_string(f->gpu)) ||
      json_object_set_new(o, "collective", json_string(coll_name(f->kind))) ||
      json_object_set_new(o, "gpus", json_integer(f->gpus)) ||
      json_object_set_new(o, "max_error", json_real(f->max_err)) ||
      json_object_set_new(o, "ranges", rs = json_array()))
    goto oom;
  for (int32_t i = 0; i < f->n_ranges; i++) {
    const coll_range_t *r = &f->r[i];
    json_t *x = json_object();
    if (json_array_append_new(rs, x) ||
        json_object_set_new(x, "max_bytes",
                            r->max_bytes == UINT64_MAX ? json_null()
                                                       : json_integer((json_int_t)r->max_bytes)) ||
        json_object_set_new(x, "alpha_us", json_real(r->alpha_us)) ||
        json_object_set_new(x, "beta_GBps", json_real(r->beta_gbps)))
      goto oom;
  }
  return o;
oom:
  json_decref(o);
  return NULL;
}
