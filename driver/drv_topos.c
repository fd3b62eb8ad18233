/* driver: the topologies a kind reads once per job, by their file (relative to
 * the job's folder) or their spec, remembered by key (the path, or the spec's
 * canonical text) with the reason one cannot be built. */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "driver/drv_jobs.h"

void drv_topo_release(void *p) {
  drv_topo_t *t = p;
  if (!t) return;
  if (!t->error) topo_free(&t->t);
  free(t->error);
  free(t);
}

drv_topo_t *drv_topo_cached(drv_map_t *cache, const char *file, const topo_spec_t *spec,
                            const char *base_dir) {
  json_t *tj = file ? NULL : topo_spec_json(spec);
  char *skey = tj ? json_dumps(tj, JSON_COMPACT | JSON_SORT_KEYS) : NULL;
  const char *key = file ? file : skey;
  json_decref(tj);
  drv_topo_t *t = key ? drv_map_get(cache, key) : NULL;
  if (t || !key || !(t = calloc(1, sizeof *t))) {
    free(skey);
    return t;
  }
  char err[1024], path[8192];
  int rc;
  if (file) {
    snprintf(path, sizeof path, "%s%s%s", file[0] == '/' ? "" : base_dir,
             file[0] == '/' ? "" : "/", file);
    rc = topo_load(path, &t->t, err, sizeof err);
  } else {
    rc = topo_spec_build(spec, "network.topology", base_dir, &t->t, err, sizeof err);
  }
  if ((rc && !(t->error = strdup(err))) || drv_map_put(cache, key, t)) {
    if (rc) memset(&t->t, 0, sizeof t->t); /* nothing built */
    drv_topo_release(t);
    t = NULL;
  }
  free(skey);
  return t;
}
