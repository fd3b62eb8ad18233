/* Job files: the sweep's axes: `grid` lists, `zip` groups and `samples` ranges,
 * each checked with the JSON path of every mistake. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "job_sweep_int.h"

/* Compact JSON of v, cut to fit buf. */
static const char *show(const json_t *v, char *buf, size_t len) {
  char *s = json_dumps(v, JSON_COMPACT | JSON_ENCODE_ANY);
  snprintf(buf, len, "%s", s ? s : "?");
  if (s && strlen(s) >= len && len > 4) memcpy(buf + len - 4, "...", 4);
  free(s);
  return buf;
}

int job_same(const json_t *a, const json_t *b) {
  if (json_is_number(a) && json_is_number(b)) {
    if (json_is_integer(a) && json_is_integer(b))
      return json_integer_value(a) == json_integer_value(b);
    const json_t *i = json_is_integer(a) ? a : json_is_integer(b) ? b : NULL;
    const json_t *r = i == a ? b : a;
    if (!i) return json_real_value(a) == json_real_value(b);
    double x = json_real_value(r); /* an integer equals a real only exactly */
    return x >= -9223372036854775808.0 && x < 9223372036854775808.0 &&
           (json_int_t)x == json_integer_value(i) && (double)(json_int_t)x == x;
  }
  if (json_is_array(a) && json_is_array(b)) {
    if (json_array_size(a) != json_array_size(b)) return 0;
    for (size_t k = 0; k < json_array_size(a); k++)
      if (!job_same(json_array_get(a, k), json_array_get(b, k))) return 0;
    return 1;
  }
  if (json_is_object(a) && json_is_object(b)) {
    const char *key;
    const json_t *v;
    if (json_object_size(a) != json_object_size(b)) return 0;
    json_object_foreach((json_t *)a, key, v) {
      const json_t *w = json_object_get(b, key);
      if (!w || !job_same(v, w)) return 0;
    }
    return 1;
  }
  return json_equal(a, b);
}

/* Reports every value of a list equal to an earlier one; returns how many. */
static int repeats(const job_sweep_t *sw, const char *where, const json_t *list,
                   job_sweep_errs_t *errs) {
  int bad = 0;
  char buf[80], w[512];
  for (size_t j = 1; j < json_array_size(list); j++)
    for (size_t i = 0; i < j; i++)
      if (job_same(json_array_get(list, i), json_array_get(list, j))) {
        snprintf(w, sizeof w, "%s[%zu]", where, j);
        job_err(errs, sw->file, w, "%s repeats [%zu]",
                show(json_array_get(list, j), buf, sizeof buf), i);
        bad++;
        break;
      }
  return bad;
}

/* A new swept key: its path is valid and not swept already (nor a key inside or
 * around one already swept). Returns its axis or -1. */
static int axis_new(job_sweep_t *sw, const char *path, const char *where, job_src_t src,
                    job_sweep_errs_t *errs) {
  if (job_path_check(sw, where, path, errs)) return -1;
  size_t n = strlen(path);
  for (int a = 0; a < sw->n_axes; a++) {
    const char *q = sw->axes[a].path;
    size_t m = strlen(q);
    size_t k = n < m ? n : m;
    if (strncmp(q, path, k) == 0 && (n == m || (n < m ? q[n] : path[m]) == '.')) {
      job_err(errs, sw->file, where, "%s is also swept by %s", q, sw->axes[a].where);
      return -1;
    }
  }
  return job_axis_add(sw, path, where, src);
}

static int factor_new(job_sweep_t *sw, const char *where, int64_t size, job_sweep_errs_t *errs) {
  if (sw->n_factors == JOB_FACTORS_MAX) {
    job_err(errs, sw->file, where, "more than %d grid axes and zip groups", JOB_FACTORS_MAX - 1);
    return -1;
  }
  sw->factors[sw->n_factors].size = size;
  return sw->n_factors++;
}

static int nonempty_list(const job_sweep_t *sw, const char *where, const json_t *v,
                         job_sweep_errs_t *errs) {
  if (json_is_array(v) && json_array_size(v) > 0) return 0;
  job_err(errs, sw->file, where, "must be a non-empty list of values");
  return -1;
}

int job_parse_grid(job_sweep_t *sw, json_t *grid, job_sweep_errs_t *errs) {
  if (!json_is_object(grid) || json_object_size(grid) == 0) { /* {}: silently no sweep */
    job_err(errs, sw->file, "sweep.grid", "must be a non-empty object of KEY: [values]");
    return 1;
  }
  int bad = 0;
  const char *key;
  json_t *list;
  char where[512];
  json_object_foreach(grid, key, list) {
    snprintf(where, sizeof where, "sweep.grid.%s", key);
    if (nonempty_list(sw, where, list, errs)) {
      bad++;
      continue;
    }
    int r = repeats(sw, where, list, errs);
    bad += r;
    int a = axis_new(sw, key, where, JOB_SRC_GRID, errs);
    if (a < 0 || r) {
      bad += a < 0;
      continue;
    }
    int f = factor_new(sw, where, (int64_t)json_array_size(list), errs);
    if (f < 0) return bad + 1;
    sw->axes[a].factor = f;
    sw->axes[a].values = list;
  }
  return bad;
}

/* One zip group: lists of one length, stepped together; no two rows equal. */
static int zip_group(job_sweep_t *sw, json_t *g, const char *gwhere, job_sweep_errs_t *errs) {
  if (!json_is_object(g) || json_object_size(g) == 0) {
    job_err(errs, sw->file, gwhere, "must be a non-empty object of KEY: [values]");
    return 1;
  }
  int bad = 0;
  const char *key;
  json_t *list;
  char where[512];
  size_t len = 0;
  int same = 1;
  json_object_foreach(g, key, list) {
    snprintf(where, sizeof where, "%s.%s", gwhere, key);
    if (nonempty_list(sw, where, list, errs)) {
      bad++;
      continue;
    }
    if (len && json_array_size(list) != len) same = 0;
    len = json_array_size(list);
  }
  if (bad) return bad;
  if (!same) {
    char msg[1024];
    size_t n = 0;
    json_object_foreach(g, key, list) {
      n += (size_t)snprintf(msg + n, n < sizeof msg ? sizeof msg - n : 0, "%s%s has %zu",
                            n ? ", " : "", key, json_array_size(list));
      if (n >= sizeof msg) break;
    }
    job_err(errs, sw->file, gwhere, "lists of different lengths (%s)", msg);
    return 1;
  }
  for (size_t s = 1; s < len; s++)
    for (size_t r = 0; r < s; r++) {
      int eq = 1;
      json_object_foreach(g, key, list) eq &=
          job_same(json_array_get(list, r), json_array_get(list, s));
      if (eq) {
        job_err(errs, sw->file, gwhere, "rows %zu and %zu are the same", r, s);
        return 1;
      }
    }
  int first = sw->n_axes, column = 0;
  json_object_foreach(g, key, list) {
    snprintf(where, sizeof where, "%s.%s", gwhere, key);
    int a = axis_new(sw, key, where, JOB_SRC_ZIP, errs);
    if (a < 0) {
      bad++;
      continue;
    }
    sw->axes[a].values = list;
    sw->axes[a].column = column++;
  }
  if (bad) return bad;
  int f = factor_new(sw, gwhere, (int64_t)len, errs);
  if (f < 0) return 1;
  for (int a = first; a < sw->n_axes; a++)
    sw->axes[a].factor = f;
  return 0;
}

int job_parse_zip(job_sweep_t *sw, json_t *zip, job_sweep_errs_t *errs) {
  if (json_is_object(zip)) return zip_group(sw, zip, "sweep.zip", errs);
  if (!json_is_array(zip) || json_array_size(zip) == 0) {
    job_err(errs, sw->file, "sweep.zip",
            "must be an object of KEY: [values] or a list of such objects (one per group)");
    return 1;
  }
  int bad = 0;
  char where[64];
  for (size_t i = 0; i < json_array_size(zip); i++) {
    snprintf(where, sizeof where, "sweep.zip[%zu]", i);
    bad += zip_group(sw, json_array_get(zip, i), where, errs);
  }
  return bad;
}

/* [low, high] of numbers (integers for `int`), low < high (<= for int; > 0 for log). */
static int range(job_sweep_t *sw, job_axis_t *ax, const char *where, json_t *r,
                 job_sweep_errs_t *errs) {
  int ok = json_is_array(r) && json_array_size(r) == 2;
  json_t *lo = json_array_get(r, 0), *hi = json_array_get(r, 1);
  if (ax->dist == JOB_DIST_INT) {
    ok = ok && json_is_integer(lo) && json_is_integer(hi);
    ax->ilo = ok ? json_integer_value(lo) : 0;
    ax->ihi = ok ? json_integer_value(hi) : 0;
    /* the width in uint64_t: exact for any low <= high (hi - lo overflowed int64) */
    if (ok && ax->ilo <= ax->ihi && (uint64_t)ax->ihi - (uint64_t)ax->ilo < UINT64_MAX) return 0;
    job_err(errs, sw->file, where,
            ok && ax->ilo <= ax->ihi
                ? "needs [low, high], at most 2^64 - 1 integers (not every int64)"
                : "needs [low, high], integers with low <= high");
    return 1;
  }
  ok = ok && json_is_number(lo) && json_is_number(hi);
  ax->lo = ok ? json_number_value(lo) : 0;
  ax->hi = ok ? json_number_value(hi) : 0;
  ok = ok && isfinite(ax->lo) && isfinite(ax->hi) && ax->lo < ax->hi;
  if (ax->dist == JOB_DIST_LOG && !(ok && ax->lo > 0)) {
    job_err(errs, sw->file, where, "needs [low, high], numbers with 0 < low < high");
    return 1;
  }
  if (!ok) {
    job_err(errs, sw->file, where, "needs [low, high], numbers with low < high");
    return 1;
  }
  return 0;
}

/* One sample axis: {"uniform"|"log_uniform"|"int": [low, high]} or {"choice": [...]}. */
static int sample_axis(job_sweep_t *sw, const char *key, json_t *spec, const char *where,
                       job_sweep_errs_t *errs) {
  static const char *const names[] = {NULL, "uniform", "log_uniform", "int", "choice"};
  const char *how = NULL;
  json_t *arg = NULL;
  if (json_is_object(spec) && json_object_size(spec) == 1) {
    void *it = json_object_iter(spec);
    how = json_object_iter_key(it);
    arg = json_object_iter_value(it);
  }
  job_dist_t dist = JOB_DIST_NONE;
  for (int d = JOB_DIST_UNIFORM; how && d <= JOB_DIST_CHOICE; d++)
    if (strcmp(how, names[d]) == 0) dist = (job_dist_t)d;
  if (dist == JOB_DIST_NONE) {
    job_err(errs, sw->file, where,
            "must be one of {\"uniform\": [low, high]}, {\"log_uniform\": [low, high]}, "
            "{\"int\": [low, high]}, {\"choice\": [values]}");
    return 1;
  }
  char w[1024];
  snprintf(w, sizeof w, "%s.%s", where, how);
  job_axis_t tmp = {.dist = dist};
  int bad;
  if (dist == JOB_DIST_CHOICE)
    bad = nonempty_list(sw, w, arg, errs) ? 1 : repeats(sw, w, arg, errs);
  else
    bad = range(sw, &tmp, w, arg, errs);
  int a = axis_new(sw, key, where, JOB_SRC_SAMPLE, errs);
  if (a < 0 || bad) return bad + (a < 0);
  job_axis_t *ax = &sw->axes[a];
  ax->dist = dist;
  ax->lo = tmp.lo;
  ax->hi = tmp.hi;
  ax->ilo = tmp.ilo;
  ax->ihi = tmp.ihi;
  ax->values = dist == JOB_DIST_CHOICE ? arg : NULL;
  ax->column = sw->n_sample_axes++;
  return 0;
}

int job_parse_samples(job_sweep_t *sw, json_t *s, job_sweep_errs_t *errs) {
  if (!json_is_object(s)) {
    job_err(errs, sw->file, "sweep.samples",
            "must be an object {\"n\": N, \"seed\": S, \"axes\": {KEY: {...}}}");
    return 1;
  }
  int bad = 0;
  const char *key;
  json_t *v;
  json_object_foreach(s, key, v) {
    if (strcmp(key, "n") && strcmp(key, "seed") && strcmp(key, "axes")) {
      char w[512];
      snprintf(w, sizeof w, "sweep.samples.%s", key);
      job_err(errs, sw->file, w, "unknown key (expected n, seed, axes)");
      bad++;
    }
  }
  json_t *n = json_object_get(s, "n"), *seed = json_object_get(s, "seed");
  json_t *axes = json_object_get(s, "axes");
  if (!json_is_integer(n) || json_integer_value(n) < 1 || json_integer_value(n) > JOB_SWEEP_MAX) {
    job_err(errs, sw->file, "sweep.samples.n", "must be an integer from 1 to %lld", JOB_SWEEP_MAX);
    bad++;
  }
  if (seed && (!json_is_integer(seed) || json_integer_value(seed) < 0)) {
    job_err(errs, sw->file, "sweep.samples.seed", "must be an integer >= 0");
    bad++;
  }
  if (!json_is_object(axes) || json_object_size(axes) == 0) {
    job_err(errs, sw->file, "sweep.samples.axes", "must be a non-empty object of KEY: {...}");
    return bad + 1;
  }
  int first = sw->n_axes;
  char where[512];
  json_object_foreach(axes, key, v) {
    snprintf(where, sizeof where, "sweep.samples.axes.%s", key);
    bad += sample_axis(sw, key, v, where, errs);
  }
  if (bad) return bad;
  sw->n_samples = json_integer_value(n);
  sw->seed = seed ? (uint64_t)json_integer_value(seed) : 0;
  /* Distinct points the axes can give, if all are discrete (saturating). */
  double space = 1;
  for (int a = first; a < sw->n_axes; a++) {
    const job_axis_t *ax = &sw->axes[a];
    if (ax->dist == JOB_DIST_CHOICE)
      space *= (double)json_array_size(ax->values);
    else if (ax->dist == JOB_DIST_INT)
      space *= (double)((uint64_t)ax->ihi - (uint64_t)ax->ilo) + 1;
    else
      space = INFINITY;
  }
  if ((double)sw->n_samples > space) {
    job_err(errs, sw->file, "sweep.samples.n",
            "%lld distinct points asked for, but the axes give only %.0f", (long long)sw->n_samples,
            space);
    return 1;
  }
  int f = factor_new(sw, "sweep.samples", sw->n_samples, errs);
  if (f < 0) return 1;
  sw->sample_factor = f;
  for (int a = first; a < sw->n_axes; a++)
    sw->axes[a].factor = f;
  return 0;
}
