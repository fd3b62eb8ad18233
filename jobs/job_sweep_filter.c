/* Job files: `include` entries (extra experiments: base with the entry's keys set)
 * and `exclude` entries (a point matching every key of one entry is dropped). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "job_sweep_int.h"

static int entry_ok(job_sweep_t *sw, const char *where, const json_t *e, job_sweep_errs_t *errs) {
  if (json_is_object(e) && json_object_size(e) > 0) return 0;
  job_err(errs, sw->file, where, "must be a non-empty object of KEY: value");
  return -1;
}

static int parse_include(job_sweep_t *sw, json_t *inc, job_sweep_errs_t *errs) {
  if (!json_is_array(inc)) {
    job_err(errs, sw->file, "sweep.include", "must be a list of objects {KEY: value, ...}");
    return 1;
  }
  int bad = 0;
  char where[512];
  for (size_t k = 0; k < json_array_size(inc); k++) {
    json_t *e = json_array_get(inc, k);
    snprintf(where, sizeof where, "sweep.include[%zu]", k);
    if (entry_ok(sw, where, e, errs)) {
      bad++;
      continue;
    }
    const char *key;
    json_t *v;
    json_object_foreach(e, key, v) {
      snprintf(where, sizeof where, "sweep.include[%zu].%s", k, key);
      if (job_path_check(sw, where, key, errs)) {
        bad++;
        continue;
      }
      if (job_axis_find(sw, key) < 0) job_axis_add(sw, key, where, JOB_SRC_INCLUDE);
    }
  }
  return bad;
}

/* Is v one of the values axis a can take? */
static int axis_has(const job_sweep_t *sw, const job_axis_t *ax, const json_t *v) {
  (void)sw;
  if (ax->dist == JOB_DIST_INT)
    return json_is_integer(v) && json_integer_value(v) >= ax->ilo &&
           json_integer_value(v) <= ax->ihi;
  for (size_t j = 0; j < json_array_size(ax->values); j++)
    if (job_same(json_array_get(ax->values, j), v)) return 1;
  return 0;
}

static int parse_exclude(job_sweep_t *sw, json_t *exc, job_sweep_errs_t *errs) {
  if (!json_is_array(exc)) {
    job_err(errs, sw->file, "sweep.exclude", "must be a list of objects {KEY: value, ...}");
    return 1;
  }
  int bad = 0;
  char where[512];
  for (size_t k = 0; k < json_array_size(exc); k++) {
    json_t *e = json_array_get(exc, k);
    snprintf(where, sizeof where, "sweep.exclude[%zu]", k);
    if (entry_ok(sw, where, e, errs)) {
      bad++;
      continue;
    }
    const char *key;
    json_t *v;
    json_object_foreach(e, key, v) {
      snprintf(where, sizeof where, "sweep.exclude[%zu].%s", k, key);
      int a = job_axis_find(sw, key);
      if (a < 0 || sw->axes[a].src == JOB_SRC_INCLUDE) {
        job_err(errs, sw->file, where, "not a key of sweep.grid, sweep.zip or sweep.samples");
        bad++;
      } else if (sw->axes[a].dist == JOB_DIST_UNIFORM || sw->axes[a].dist == JOB_DIST_LOG) {
        job_err(errs, sw->file, where, "cannot exclude one value of a continuous range");
        bad++;
      } else if (!axis_has(sw, &sw->axes[a], v)) {
        char *s = json_dumps(v, JSON_COMPACT | JSON_ENCODE_ANY);
        job_err(errs, sw->file, where, "%.80s is not a value of %s", s ? s : "?",
                sw->axes[a].where);
        free(s);
        bad++;
      }
    }
  }
  return bad;
}

int job_parse_filters(job_sweep_t *sw, json_t *include, json_t *exclude, job_sweep_errs_t *errs) {
  int bad = 0;
  if (include) bad += parse_include(sw, include, errs);
  if (exclude) bad += parse_exclude(sw, exclude, errs);
  return bad;
}
