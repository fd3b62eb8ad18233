/* driver: the batch cost model's constants (jobs/presets/batching.json) as a
 * shd_desc_t for one backend, and each experiment's cost in seconds. */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "driver/drv_jobs.h"

static const char *cost_file(char *buf, size_t len) {
  const char *dir = getenv("MULTIVERSE_PRESETS");
  snprintf(buf, len, "%s/batching.json", dir ? dir : MV_PRESET_DIR);
  return buf;
}

/* A positive number at obj.key, or -1 with a message. */
static int cost_num(const char *file, const char *be, const json_t *obj, const char *key,
                    double *out, char *err, size_t errlen) {
  const json_t *v = json_object_get(obj, key);
  *out = json_is_number(v) ? json_number_value(v) : -1;
  if (*out > 0 && isfinite(*out)) return 0;
  snprintf(err, errlen, "%s: %s.%s: expected a number > 0", file, be, key);
  return -1;
}

int drv_cost_desc(const drv_machine_t *m, int ranks, int max_batch, shd_desc_t *d,
                  double *hops_per_s, char *err, size_t errlen) {
  char buf[4096];
  const char *file = cost_file(buf, sizeof buf);
  json_error_t je;
  json_t *root = json_load_file(file, 0, &je);
  if (!root) {
    snprintf(err, errlen, "%s:%d: %s", file, je.line, je.text);
    return -1;
  }
  const char *be = drv_backend_name(m->backend);
  const json_t *o = json_object_get(root, be);
  double rate, par, exp_o, batch_o, most;
  int cuda = m->backend == ENG_BACKEND_CUDA;
  int rc = -1;
  if (!json_is_object(o))
    snprintf(err, errlen, "%s: %s: expected an object", file, be);
  else if (!cost_num(file, be, o, cuda ? "hops_per_s" : "hops_per_s_per_thread", &rate, err,
                     errlen) &&
           !cost_num(file, be, o, "parallel", &par, err, errlen) &&
           !cost_num(file, be, o, "exp_overhead_s", &exp_o, err, errlen) &&
           !cost_num(file, be, o, "batch_overhead_s", &batch_o, err, errlen) &&
           !cost_num(file, be, o, "max_batch", &most, err, errlen))
    rc = 0;
  json_decref(root);
  if (rc) return rc;
  *hops_per_s = cuda ? rate : rate * (m->threads > 0 ? m->threads : 1);
  *d = (shd_desc_t){.mem_budget = m->mem_budget,
                    .max_batch = max_batch > 0 ? max_batch : (int32_t)most,
                    .parallel = par,
                    .exp_overhead = exp_o,
                    .batch_overhead = batch_o,
                    .ranks = ranks};
  return 0;
}
