/* coll: piecewise fit t = alpha + bytes / beta of measured nccl-tests points,
 * and a fit as a model-file entry. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "coll/coll.h"

static int by_bytes(const void *a, const void *b) {
  const coll_point_t *x = a, *y = b;
  return x->bytes < y->bytes ? -1 : x->bytes > y->bytes;
}

/* Weighted least squares of t = a + c * x over p[i..j] with weights 1/t^2
 * (relative errors); a in us, c in us per byte. -1 if singular. */
static int wls(const coll_point_t *p, int32_t i, int32_t j, double *a, double *c) {
  double s0 = 0, s1 = 0, s2 = 0, r0 = 0, r1 = 0;
  for (int32_t k = i; k <= j; k++) {
    double x = (double)p[k].bytes, t = p[k].time_us, w = 1 / (t * t);
    s0 += w;
    s1 += w * x;
    s2 += w * x * x;
    r0 += w * t;
    r1 += w * x * t;
  }
  double det = s0 * s2 - s1 * s1;
  if (!(det > 0)) return -1;
  *a = (r0 * s2 - r1 * s1) / det;
  *c = (s0 * r1 - s1 * r0) / det;
  return 0;
}

static double max_rel_err(const coll_point_t *p, int32_t i, int32_t j, double a, double c) {
  double e = 0;
  for (int32_t k = i; k <= j; k++) {
    double d = fabs(a + c * (double)p[k].bytes - p[k].time_us) / p[k].time_us;
    if (d > e) e = d;
  }
  return e;
}

/* Greedy ranges at tolerance tol; returns the number of ranges (COLL_MAX_RANGES
 * + 1 if more are needed), *single set if some range holds one point. */
static int32_t segment(const coll_point_t *p, int32_t n, double tol, coll_fit_t *out, int *single) {
  int32_t nr = 0;
  *single = 0;
  for (int32_t i = 0; i < n;) {
    int32_t best = -1;
    double ba = 0, bc = 0, a, c;
    for (int32_t j = i + 1; j < n; j++)
      if (wls(p, i, j, &a, &c) == 0 && c > 0 && a >= 0 && max_rel_err(p, i, j, a, c) <= tol) {
        best = j;
        ba = a;
        bc = c;
      }
    if (best < 0) { /* one point: the line through it and the origin */
      best = i;
      ba = 0;
      bc = p[i].time_us / (double)p[i].bytes;
      *single = 1;
    }
    if (nr == COLL_MAX_RANGES) return COLL_MAX_RANGES + 1;
    out->r[nr].max_bytes = best + 1 == n ? UINT64_MAX : p[best].bytes;
    out->r[nr].alpha_us = ba;
    out->r[nr].beta_gbps = 1e-3 / bc; /* us per byte -> GB/s */
    nr++;
    i = best + 1;
  }
  return nr;
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
  if (u == 0) {
    snprintf(err, errlen, "no measured point of a size > 0");
    free(p);
    return -1;
  }
  int32_t nr = -1;
  for (size_t k = 0; k < sizeof tols / sizeof *tols; k++) {
    int single;
    nr = segment(p, u, tols[k], out, &single);
    if (nr <= COLL_MAX_RANGES && (!single || u == 1)) break;
    nr = -1;
  }
  if (nr < 0) { /* the loosest tolerance, one-point ranges allowed */
    int single;
    nr = segment(p, u, tols[sizeof tols / sizeof *tols - 1], out, &single);
  }
  if (nr > COLL_MAX_RANGES) {
    snprintf(err, errlen, "the points need more than %d ranges within 50%%", COLL_MAX_RANGES);
    free(p);
    return -1;
  }
  out->n_ranges = nr;
  out->max_err = 0;
  for (int32_t i = 0; i < u; i++) {
    double t = (double)coll_fit_time_ps(out, p[i].bytes) * 1e-6;
    double e = fabs(t - p[i].time_us) / p[i].time_us;
    if (e > out->max_err) out->max_err = e;
  }
  free(p);
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
