/* Job files: the list of experiments (points of grid x zip x samples less the
 * excluded, then the include entries), each experiment's config and swept values. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "job_sweep_int.h"

void job_combo_split(const job_sweep_t *sw, int64_t c, int64_t *idx) {
  for (int f = sw->n_factors - 1; f >= 0; f--) {
    idx[f] = c % sw->factors[f].size;
    c /= sw->factors[f].size;
  }
}

json_t *job_axis_at(const job_sweep_t *sw, int a, int64_t idx) {
  const job_axis_t *ax = &sw->axes[a];
  if (ax->src == JOB_SRC_SAMPLE)
    return json_array_get(json_array_get(sw->points, (size_t)idx), (size_t)ax->column);
  return json_array_get(ax->values, (size_t)idx);
}

/* Per exclude entry and factor, which indices match the entry's keys. */
static void exclude_tables(job_sweep_t *sw) {
  sw->n_excl = (int)json_array_size(sw->excl_in);
  sw->excl = calloc((size_t)sw->n_excl + 1, sizeof *sw->excl);
  if (!sw->excl) abort();
  for (int k = 0; k < sw->n_excl; k++) {
    const char *key;
    json_t *v;
    json_object_foreach(json_array_get(sw->excl_in, (size_t)k), key, v) {
      int a = job_axis_find(sw, key), f = sw->axes[a].factor;
      unsigned char **m = &sw->excl[k].match[f];
      if (!*m) {
        *m = malloc((size_t)sw->factors[f].size);
        if (!*m) abort();
        memset(*m, 1, (size_t)sw->factors[f].size);
      }
      for (int64_t i = 0; i < sw->factors[f].size; i++)
        (*m)[i] &= job_same(job_axis_at(sw, a, i), v) ? 1 : 0;
    }
  }
}

static int excluded(const job_sweep_t *sw, const int64_t *idx) {
  for (int k = 0; k < sw->n_excl; k++) {
    int all = 1;
    for (int f = 0; f < sw->n_factors && all; f++)
      all = !sw->excl[k].match[f] || sw->excl[k].match[f][idx[f]];
    if (all) return 1;
  }
  return 0;
}

static json_t *combo_config(const job_sweep_t *sw, int64_t c) {
  int64_t idx[JOB_FACTORS_MAX];
  job_combo_split(sw, c, idx);
  json_t *cfg = json_deep_copy(sw->base);
  for (int a = 0; a < sw->n_axes; a++)
    if (sw->axes[a].factor >= 0)
      job_path_set(cfg, sw->axes[a].path, job_axis_at(sw, a, idx[sw->axes[a].factor]));
  return cfg;
}

/* Does cfg equal a point of the product that was not excluded? Each factor's
 * index is found from cfg's values, then the whole config is compared. */
static int is_point(const job_sweep_t *sw, const json_t *cfg) {
  int64_t c = 0, idx[JOB_FACTORS_MAX];
  for (int f = 0; f < sw->n_factors; f++) {
    idx[f] = -1;
    for (int64_t i = 0; i < sw->factors[f].size && idx[f] < 0; i++) {
      int all = 1;
      for (int a = 0; a < sw->n_axes && all; a++)
        if (sw->axes[a].factor == f)
          all = job_same(job_sweep_get(cfg, sw->axes[a].path), job_axis_at(sw, a, i));
      if (all) idx[f] = i;
    }
    if (idx[f] < 0) return 0;
    c = c * sw->factors[f].size + idx[f];
  }
  if (excluded(sw, idx)) return 0;
  json_t *p = combo_config(sw, c);
  int eq = job_same(p, cfg);
  json_decref(p);
  return eq;
}

/* Include entries as configs, less those equal to a point or an earlier entry. */
static void include_configs(job_sweep_t *sw) {
  sw->incl = json_array();
  for (size_t k = 0; k < json_array_size(sw->incl_in); k++) {
    json_t *cfg = json_deep_copy(sw->base);
    const char *key;
    json_t *v;
    json_object_foreach(json_array_get(sw->incl_in, k), key, v) job_path_set(cfg, key, v);
    int dup = is_point(sw, cfg);
    for (size_t j = 0; j < json_array_size(sw->incl) && !dup; j++)
      dup = job_same(json_array_get(sw->incl, j), cfg);
    if (dup) {
      sw->dropped++;
      json_decref(cfg);
    } else {
      json_array_append_new(sw->incl, cfg);
    }
  }
}

job_sweep_type_t job_type_add(job_sweep_type_t t, int *any, const json_t *v) {
  job_sweep_type_t u = json_is_integer(v)   ? JOB_SWEEP_INT
                       : json_is_real(v)    ? JOB_SWEEP_REAL
                       : json_is_boolean(v) ? JOB_SWEEP_BOOL
                       : json_is_string(v)  ? JOB_SWEEP_STRING
                                            : JOB_SWEEP_JSON;
  if (!v) return t;
  if (!*any) {
    *any = 1;
    return u;
  }
  if (t == u) return t;
  if ((t == JOB_SWEEP_INT || t == JOB_SWEEP_REAL) && (u == JOB_SWEEP_INT || u == JOB_SWEEP_REAL))
    return JOB_SWEEP_REAL;
  return JOB_SWEEP_JSON;
}

static void axis_types(job_sweep_t *sw) {
  for (int a = 0; a < sw->n_axes; a++) {
    job_axis_t *ax = &sw->axes[a];
    int any = 0;
    job_sweep_type_t t = JOB_SWEEP_JSON;
    if (ax->dist == JOB_DIST_UNIFORM || ax->dist == JOB_DIST_LOG || ax->dist == JOB_DIST_INT) {
      t = ax->dist == JOB_DIST_INT ? JOB_SWEEP_INT : JOB_SWEEP_REAL;
      any = 1;
    }
    for (size_t j = 0; j < json_array_size(ax->values); j++)
      t = job_type_add(t, &any, json_array_get(ax->values, j));
    if (ax->src == JOB_SRC_INCLUDE && sw->n_exp > (int64_t)json_array_size(sw->incl))
      t = job_type_add(t, &any, job_sweep_get(sw->base, ax->path));
    for (size_t k = 0; k < json_array_size(sw->incl); k++)
      t = job_type_add(t, &any, job_sweep_get(json_array_get(sw->incl, k), ax->path));
    ax->type = t;
  }
}

int job_expand(job_sweep_t *sw, job_sweep_errs_t *errs) {
  exclude_tables(sw);
  include_configs(sw);
  int64_t n_incl = (int64_t)json_array_size(sw->incl);
  sw->order = malloc((size_t)(sw->n_combos + n_incl) * sizeof *sw->order);
  if (!sw->order) abort();
  int64_t idx[JOB_FACTORS_MAX];
  for (int64_t c = 0; c < sw->n_combos; c++) {
    job_combo_split(sw, c, idx);
    if (!excluded(sw, idx)) sw->order[sw->n_exp++] = c;
  }
  if (sw->n_exp == 0 && n_incl == 0) {
    job_err(errs, sw->file, "sweep.exclude", "excludes every experiment");
    return 1;
  }
  for (int64_t k = 0; k < n_incl; k++)
    sw->order[sw->n_exp++] = -1 - k;
  axis_types(sw);
  return 0;
}

int64_t job_sweep_count(const job_sweep_t *sw) {
  return sw->n_exp;
}

int64_t job_sweep_dropped(const job_sweep_t *sw) {
  return sw->dropped;
}

json_t *job_sweep_experiment(const job_sweep_t *sw, int64_t i) {
  if (i < 0 || i >= sw->n_exp) return NULL;
  int64_t c = sw->order[i];
  if (c < 0) return json_deep_copy(json_array_get(sw->incl, (size_t)(-1 - c)));
  return combo_config(sw, c);
}

int job_sweep_n_axes(const job_sweep_t *sw) {
  return sw->n_axes;
}

const char *job_sweep_axis(const job_sweep_t *sw, int a) {
  return a >= 0 && a < sw->n_axes ? sw->axes[a].path : NULL;
}

job_sweep_type_t job_sweep_axis_type(const job_sweep_t *sw, int a) {
  return sw->axes[a].type;
}

json_t *job_sweep_value(const job_sweep_t *sw, int64_t i, int a) {
  if (i < 0 || i >= sw->n_exp || a < 0 || a >= sw->n_axes) return NULL;
  int64_t c = sw->order[i];
  const job_axis_t *ax = &sw->axes[a];
  if (c < 0) return job_sweep_get(json_array_get(sw->incl, (size_t)(-1 - c)), ax->path);
  if (ax->factor < 0) return job_sweep_get(sw->base, ax->path);
  int64_t idx[JOB_FACTORS_MAX];
  job_combo_split(sw, c, idx);
  return job_axis_at(sw, a, idx[ax->factor]);
}
