/* Job files: `include` entries (extra experiments: base with the entry's keys set)
 * and `exclude` entries (a point matching every key of one entry is dropped). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "job_sweep_int.h"

/* One key of an entry (where: its JSON path): the number of errors, 0 or 1. */
typedef int (*entry_key_fn)(job_sweep_t *sw, const char *where, const char *key, const json_t *v,
                            job_sweep_errs_t *errs);

/* sweep.NAME: a list of non-empty objects, each key checked by fn; the number
 * of errors. */
static int parse_entries(job_sweep_t *sw, const json_t *list, const char *name, entry_key_fn fn,
                         job_sweep_errs_t *errs) {
  char where[512];
  snprintf(where, sizeof where, "sweep.%s", name);
  if (!json_is_array(list)) {
    job_err(errs, sw->file, where, "must be a list of objects {KEY: value, ...}");
    return 1;
  }
  int bad = 0;
  for (size_t k = 0; k < json_array_size(list); k++) {
    json_t *e = json_array_get(list, k);
    snprintf(where, sizeof where, "sweep.%s[%zu]", name, k);
    if (!json_is_object(e) || json_object_size(e) == 0) {
      job_err(errs, sw->file, where, "must be a non-empty object of KEY: value");
      bad++;
      continue;
    }
    const char *key;
    json_t *v;
    json_object_foreach(e, key, v) {
      snprintf(where, sizeof where, "sweep.%s[%zu].%s", name, k, key);
      bad += fn(sw, where, key, v, errs);
    }
  }
  return bad;
}

/* An include key: a settable path, an axis of its own unless one has it. */
static int include_key(job_sweep_t *sw, const char *where, const char *key, const json_t *v,
                       job_sweep_errs_t *errs) {
  (void)v;
  if (job_path_check(sw, where, key, errs)) return 1;
  if (job_axis_find(sw, key) < 0) job_axis_add(sw, key, where, JOB_SRC_INCLUDE);
  return 0;
}

/* Is v one of the values axis a can take? */
static int axis_has(const job_axis_t *ax, const json_t *v) {
  if (ax->dist == JOB_DIST_INT)
    return json_is_integer(v) && json_integer_value(v) >= ax->ilo &&
           json_integer_value(v) <= ax->ihi;
  for (size_t j = 0; j < json_array_size(ax->values); j++)
    if (job_same(json_array_get(ax->values, j), v)) return 1;
  return 0;
}

/* An exclude key: an axis of the grid, zip or samples, and one of its values. */
static int exclude_key(job_sweep_t *sw, const char *where, const char *key, const json_t *v,
                       job_sweep_errs_t *errs) {
  int a = job_axis_find(sw, key);
  if (a < 0 || sw->axes[a].src == JOB_SRC_INCLUDE) {
    job_err(errs, sw->file, where, "not a key of sweep.grid, sweep.zip or sweep.samples");
    return 1;
  }
  if (sw->axes[a].dist == JOB_DIST_UNIFORM || sw->axes[a].dist == JOB_DIST_LOG) {
    job_err(errs, sw->file, where, "cannot exclude one value of a continuous range");
    return 1;
  }
  if (!axis_has(&sw->axes[a], v)) {
    char *s = json_dumps(v, JSON_COMPACT | JSON_ENCODE_ANY);
    job_err(errs, sw->file, where, "%.80s is not a value of %s", s ? s : "?", sw->axes[a].where);
    free(s);
    return 1;
  }
  return 0;
}

int job_parse_filters(job_sweep_t *sw, json_t *include, json_t *exclude, job_sweep_errs_t *errs) {
  int bad = 0;
  if (include) bad += parse_entries(sw, include, "include", include_key, errs);
  if (exclude) bad += parse_entries(sw, exclude, "exclude", exclude_key, errs);
  return bad;
}
