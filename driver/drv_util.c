/* Helpers shared by the driver's commands: error printing, parameters. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "driver/drv.h"

int drv_quiet;

static void fail_v(FILE *f, const char *fmt, va_list ap) {
  if (f != stderr || !drv_quiet) vfprintf(f, fmt, ap);
}

int drv_fail(int rc, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  fail_v(stderr, fmt, ap);
  va_end(ap);
  return rc;
}

int drv_fail_to(FILE *f, int rc, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  fail_v(f, fmt, ap);
  va_end(ap);
  return rc;
}

const char *drv_presets_file(const char *path, char *buf, size_t len) {
  if (path) return path;
  if (!getenv("MULTIVERSE_PRESETS")) return MV_PRESET_DIR "/network.json";
  snprintf(buf, len, "%s/network.json", getenv("MULTIVERSE_PRESETS"));
  return buf;
}

int drv_load_params(const char *path, const char *const *sets, int n_sets, job_presets_t *ps,
                    eng_params_t *p) {
  char err[1024], def[4096];
  path = drv_presets_file(path, def, sizeof def);
  if (job_presets_load(path, ps, err, sizeof err)) return drv_fail(2, "multiverse: %s\n", err);
  *p = ps->defaults;
  if (job_params_set_list(ps, p, sets, n_sets, NULL, err, sizeof err))
    return drv_fail(2, "multiverse: %s\n", err);
  return 0;
}

int drv_costs_name_ok(const char *path) {
  size_t n = strlen(path);
  return strcmp(path, "none") == 0 ||
         (n > 5 && strcmp(path + n - 5, ".json") == 0 && path[n - 6] != '/');
}
