/* Job files: `refine`, the stages of a search that narrows. Each stage keeps
 * the best experiments of the stage before it by one result (`metric`, `order`,
 * `keep`: a count or a percentage) and runs them again with some keys changed
 * (`set`, dotted keys as the sweep's). The driver picks the kept experiments
 * when the stage before has results; they are appended to the job then. */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/base_dec.h"
#include "job_sweep_int.h"

/* `keep`: a count, or "P%" with 0 < P <= 100. */
static int parse_keep(const json_t *v, job_refine_t *r) {
  if (json_is_integer(v)) {
    r->keep = json_integer_value(v);
    return r->keep >= 1 && r->keep <= JOB_SWEEP_MAX ? 0 : -1;
  }
  const char *s = json_string_value(v);
  size_t n = s ? strlen(s) : 0;
  char num[64];
  if (n < 2 || n > sizeof num || s[n - 1] != '%') return -1;
  memcpy(num, s, n - 1);
  num[n - 1] = '\0';
  double p = base_dec_real(num);
  if (!(p > 0 && p <= 100)) return -1;
  r->keep_pct = p;
  return 0;
}

/* One stage (object o at `where`); its problems counted. */
static int parse_stage(job_sweep_t *sw, const json_t *o, const char *where, job_refine_t *r,
                       job_sweep_errs_t *errs) {
  static const char *const keys[] = {"metric", "order", "keep", "set", NULL};
  char at[512];
  int bad = 0;
  memset(r, 0, sizeof *r);
  snprintf(r->where, sizeof r->where, "%s", where);
  if (!json_is_object(o)) {
    job_err(errs, sw->file, where,
            "must be an object {\"metric\", \"keep\", \"set\"} (or a list of them)");
    return 1;
  }
  const char *key;
  json_t *v;
  json_object_foreach((json_t *)o, key, v) {
    int k = 0;
    while (keys[k] && strcmp(keys[k], key) != 0)
      k++;
    if (keys[k]) continue;
    snprintf(at, sizeof at, "%s.%s", where, key);
    job_err(errs, sw->file, at, "unknown key (expected metric, order, keep, set)");
    bad++;
  }
  const json_t *metric = json_object_get(o, "metric"), *order = json_object_get(o, "order");
  snprintf(at, sizeof at, "%s.metric", where);
  if (!json_is_string(metric) || json_string_length(metric) == 0) {
    job_err(errs, sw->file, at, "must name a result, such as \"iteration_time_s\"");
    bad++;
  } else {
    r->metric = json_string_value(metric);
  }
  snprintf(at, sizeof at, "%s.order", where);
  const char *ord = json_string_value(order);
  if (order && (!ord || (strcmp(ord, "min") != 0 && strcmp(ord, "max") != 0))) {
    job_err(errs, sw->file, at, "must be \"min\" (the smallest is best, the default) or \"max\"");
    bad++;
  }
  r->maximize = ord && strcmp(ord, "max") == 0;
  snprintf(at, sizeof at, "%s.keep", where);
  if (parse_keep(json_object_get(o, "keep"), r)) {
    job_err(errs, sw->file, at,
            "must be how many experiments go on (1 to %lld) or a percentage of them (\"5%%\")",
            JOB_SWEEP_MAX);
    bad++;
  }
  const json_t *set = json_object_get(o, "set");
  snprintf(at, sizeof at, "%s.set", where);
  if (!json_is_object(set) || json_object_size(set) == 0) {
    job_err(errs, sw->file, at,
            "must be an object of dotted keys and values, such as {\"network.model\": \"packet\"}");
    return bad + 1;
  }
  r->set = set;
  json_object_foreach((json_t *)set, key, v) {
    snprintf(at, sizeof at, "%s.set.%s", where, key);
    if (job_path_check(sw, at, key, errs)) {
      bad++;
      continue;
    }
    if (job_axis_find(sw, key) < 0) job_axis_add(sw, key, at, JOB_SRC_INCLUDE);
  }
  return bad;
}

int job_parse_refine(job_sweep_t *sw, json_t *refine, job_sweep_errs_t *errs) {
  if (!refine) return 0;
  size_t n = json_is_array(refine) ? json_array_size(refine) : 1;
  if (json_is_array(refine) && n == 0) {
    job_err(errs, sw->file, "refine", "must hold at least one stage");
    return 1;
  }
  sw->stages = calloc(n, sizeof *sw->stages);
  if (!sw->stages) abort();
  sw->n_stages = (int)n;
  int bad = 0;
  for (size_t s = 0; s < n; s++) {
    char where[64];
    if (json_is_array(refine))
      snprintf(where, sizeof where, "refine[%zu]", s);
    else
      snprintf(where, sizeof where, "refine");
    bad += parse_stage(sw, json_is_array(refine) ? json_array_get(refine, s) : refine, where,
                       &sw->stages[s], errs);
  }
  return bad;
}

/* Types of the refined keys: a swept key's values and what stages set; a key
 * only include entries and stages set: theirs and the base's. */
void job_refine_types(job_sweep_t *sw) {
  for (int a = 0; a < sw->n_axes; a++) {
    job_axis_t *ax = &sw->axes[a];
    int any = ax->src != JOB_SRC_INCLUDE, set = 0;
    job_sweep_type_t t = any ? ax->type : JOB_SWEEP_JSON;
    for (int s = 0; s < sw->n_stages; s++) {
      json_t *v = json_object_get(sw->stages[s].set, ax->path);
      set |= v != NULL;
      t = job_type_add(t, &any, v);
    }
    if (!set) continue;
    if (ax->src == JOB_SRC_INCLUDE) {
      t = job_type_add(t, &any, job_sweep_get(sw->base, ax->path));
      for (size_t k = 0; k < json_array_size(sw->incl); k++)
        t = job_type_add(t, &any, job_sweep_get(json_array_get(sw->incl, k), ax->path));
    }
    ax->type = t;
  }
}

int job_sweep_n_stages(const job_sweep_t *sw) {
  return sw->n_stages;
}

const job_refine_t *job_sweep_stage(const job_sweep_t *sw, int s) {
  return s >= 1 && s <= sw->n_stages ? &sw->stages[s - 1] : NULL;
}

int64_t job_refine_keep(const job_refine_t *r, int64_t n) {
  int64_t k = r->keep;
  if (r->keep_pct > 0) k = (int64_t)ceil((double)n * r->keep_pct / 100.0 - 1e-9);
  if (k < 1) k = 1;
  return k < n ? k : n;
}

json_t *job_sweep_with(const json_t *exp, const json_t *set) {
  json_t *cfg = exp ? json_deep_copy(exp) : NULL;
  const char *key;
  json_t *v;
  if (cfg) json_object_foreach((json_t *)set, key, v) job_path_set(cfg, key, v);
  return cfg;
}

json_t *job_refine_apply(const job_sweep_t *sw, const json_t *exp, int s) {
  const job_refine_t *r = job_sweep_stage(sw, s);
  return r ? job_sweep_with(exp, r->set) : NULL;
}

int64_t job_sweep_refine_add(job_sweep_t *sw, int64_t from, int s) {
  json_t *exp = job_sweep_experiment(sw, from), *cfg = job_refine_apply(sw, exp, s);
  json_decref(exp);
  if (!cfg) return -1;
  int64_t k = (int64_t)json_array_size(sw->incl), m = sw->n_exp - sw->n_sweep;
  sw->order = realloc(sw->order, (size_t)(sw->n_exp + 1) * sizeof *sw->order);
  sw->ref_stage = realloc(sw->ref_stage, (size_t)(m + 1) * sizeof *sw->ref_stage);
  sw->ref_from = realloc(sw->ref_from, (size_t)(m + 1) * sizeof *sw->ref_from);
  if (!sw->order || !sw->ref_stage || !sw->ref_from || json_array_append_new(sw->incl, cfg))
    abort();
  sw->order[sw->n_exp] = -1 - k;
  sw->ref_stage[m] = s;
  sw->ref_from[m] = from;
  return sw->n_exp++;
}

int job_sweep_exp_stage(const job_sweep_t *sw, int64_t i) {
  return i >= sw->n_sweep && i < sw->n_exp ? sw->ref_stage[i - sw->n_sweep] : 0;
}

int64_t job_sweep_exp_refines(const job_sweep_t *sw, int64_t i) {
  return i >= sw->n_sweep && i < sw->n_exp ? sw->ref_from[i - sw->n_sweep] : -1;
}
