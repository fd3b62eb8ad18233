/* driver: the cost model's store: the shipped coefficients per kind of worker
 * (jobs/presets/batching.json) and the costs file of measured batches per
 * worker and cost key, which every run reads and extends (drv_jobs.h). */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <jansson.h>

#include "base/base_err.h"
#include "base/base_json.h"
#include "driver/drv_jobs.h"
#include "driver/drv_out.h"

#define REC_LEN (4 + 3 * SHD_F_N) /* run, n, slots, seconds, sum, top[0], top[1] */

static void make_parent(const char *path);

static const char *preset_file(char *buf, size_t len) {
  const char *dir = getenv("MULTIVERSE_PRESETS");
  snprintf(buf, len, "%s/batching.json", dir ? dir : MV_PRESET_DIR);
  return buf;
}

/* The default costs file: $XDG_CACHE_HOME/multiverse/costs.json, else
 * ~/.cache/multiverse/costs.json; "" when neither is known. */
static void default_path(char *buf, size_t len) {
  const char *cache = getenv("XDG_CACHE_HOME"), *home = getenv("HOME");
  if (cache && *cache)
    snprintf(buf, len, "%s/multiverse/costs.json", cache);
  else if (home && *home)
    snprintf(buf, len, "%s/.cache/multiverse/costs.json", home);
  else
    buf[0] = '\0';
}

int drv_model_add(drv_model_t *m, const shd_rec_t *r, int32_t run) {
  if (m->n == m->cap) {
    int32_t cap = m->cap ? 2 * m->cap : 16;
    shd_rec_t *rec = realloc(m->rec, (size_t)cap * sizeof *rec);
    if (!rec) return -1;
    m->rec = rec;
    int32_t *runs = realloc(m->run, (size_t)cap * sizeof *runs);
    if (!runs) return -1;
    m->run = runs;
    m->cap = cap;
  }
  m->rec[m->n] = *r;
  m->run[m->n++] = run;
  return 0;
}

void drv_model_free(drv_model_t *m) {
  free(m->name);
  free(m->rec);
  free(m->run);
  memset(m, 0, sizeof *m);
}

/* A record from its JSON array; 0 or -1. */
static int rec_read(const json_t *a, shd_rec_t *r, int32_t *run) {
  double v[REC_LEN];
  if (!json_is_array(a) || json_array_size(a) != REC_LEN) return -1;
  for (int k = 0; k < REC_LEN; k++) {
    const json_t *x = json_array_get(a, (size_t)k);
    if (!json_is_number(x)) return -1;
    v[k] = json_number_value(x);
    if (!isfinite(v[k]) || v[k] < 0) return -1;
  }
  if (v[0] > 1e9 || v[1] > 1e9 || v[2] > 1e9) return -1;
  *run = (int32_t)v[0];
  *r = (shd_rec_t){.n = (int32_t)v[1], .slots = (int32_t)v[2], .seconds = v[3], .weight = 1};
  for (int k = 0; k < SHD_F_N; k++) {
    r->sum.x[k] = v[4 + k];
    r->top[0].x[k] = v[4 + SHD_F_N + k];
    r->top[1].x[k] = v[4 + 2 * SHD_F_N + k];
  }
  return 0;
}

static json_t *rec_json(const shd_rec_t *r, int32_t run) {
  json_t *a = json_array();
  double v[REC_LEN] = {run, r->n, r->slots, r->seconds};
  for (int k = 0; k < SHD_F_N; k++) {
    v[4 + k] = r->sum.x[k];
    v[4 + SHD_F_N + k] = r->top[0].x[k];
    v[4 + 2 * SHD_F_N + k] = r->top[1].x[k];
  }
  for (int k = 0; a && k < REC_LEN; k++)
    json_array_append_new(a, json_real(v[k]));
  return a;
}

/* Reads a costs file into c->models and c->run; 0, 1 when it does not
 * exist, -1 with a message when it does not read. */
static int file_read(drv_costs_t *c, const char *path, char *err, size_t errlen) {
  struct stat st;
  if (stat(path, &st) != 0 && errno == ENOENT) return 1;
  json_t *root = base_json_load(path, 0, err, errlen);
  if (!root) return -1;
  const json_t *runs = json_object_get(root, "runs"), *models = json_object_get(root, "models");
  int rc = 0;
  if (!json_is_integer(runs) || json_integer_value(runs) < 0 || json_integer_value(runs) > 1e9) {
    base_errf(err, errlen, "%s: runs: expected an integer >= 0", path);
    rc = -1;
  } else if (!json_is_object(models)) {
    base_errf(err, errlen, "%s: models: expected an object", path);
    rc = -1;
  }
  const char *name;
  json_t *m;
  if (!rc) c->run = (int32_t)json_integer_value(runs) + 1;
  if (!rc) json_object_foreach((json_t *)models, name, m) {
      const json_t *recs = json_object_get(m, "records");
      if (!strchr(name, '|') || !json_is_array(recs)) {
        base_errf(err, errlen, "%s: models.%s: expected \"WORKER|KEY\": {\"records\": [...]}", path,
                  name);
        rc = -1;
        break;
      }
      drv_model_t *mo = realloc(c->models, ((size_t)c->n_models + 1) * sizeof *mo);
      if (!mo) {
        base_errf(err, errlen, "out of memory");
        rc = -1;
        break;
      }
      c->models = mo;
      mo = &c->models[c->n_models++];
      memset(mo, 0, sizeof *mo);
      if (!(mo->name = strdup(name))) {
        base_errf(err, errlen, "out of memory");
        rc = -1;
        break;
      }
      for (size_t i = 0; i < json_array_size(recs) && !rc; i++) {
        shd_rec_t r;
        int32_t run;
        if (rec_read(json_array_get(recs, i), &r, &run)) {
          base_errf(err, errlen, "%s: models.%s.records[%zu]: expected %d numbers >= 0", path, name,
                    i, REC_LEN);
          rc = -1;
        } else if (drv_model_add(mo, &r, run)) {
          base_errf(err, errlen, "out of memory");
          rc = -1;
        }
      }
      if (rc) break;
    }
  json_decref(root);
  return rc;
}

static void models_free(drv_model_t *m, int32_t n) {
  for (int32_t i = 0; i < n; i++)
    drv_model_free(&m[i]);
  free(m);
}

int drv_costs_load(drv_costs_t *c, const char *path, FILE *warn, char *err, size_t errlen) {
  memset(c, 0, sizeof *c);
  c->run = 1;
  preset_file(c->presets_path, sizeof c->presets_path);
  c->presets = base_json_load(c->presets_path, 0, err, errlen);
  if (!c->presets) return -1;
  if (!json_is_object(json_object_get(c->presets, "workers"))) {
    base_errf(err, errlen, "%s: workers: expected an object", c->presets_path);
    return -1;
  }
  const char *given = path ? "--costs" : "MULTIVERSE_COSTS";
  if (!path) path = getenv("MULTIVERSE_COSTS");
  if (path && strcmp(path, "none") == 0) return 0;
  if (path && *path)
    snprintf(c->path, sizeof c->path, "%s", path);
  else
    default_path(c->path, sizeof c->path);
  if (!c->path[0]) return 0;
  char why[1200];
  /* The output rule before any work: a path given that cannot be written is
   * an error; the default one, a line and no costs file. */
  make_parent(c->path);
  if (drv_out_why(c->path, NULL, 0, why, sizeof why)) {
    if (path && *path) {
      base_errf(err, errlen, "%s %s: %s", given, c->path, why);
      return -1;
    }
    if (warn) fprintf(warn, "multiverse: %s: %s; no costs file (--costs)\n", c->path, why);
    c->path[0] = '\0';
    return 0;
  }
  int rc = file_read(c, c->path, why, sizeof why);
  c->readable = rc >= 0;
  if (rc < 0) {
    if (warn)
      fprintf(warn, "multiverse: %s; the costs file is neither used nor written (--costs)\n", why);
    models_free(c->models, c->n_models);
    c->models = NULL;
    c->n_models = 0;
    c->run = 1;
  }
  return 0;
}

void drv_costs_free(drv_costs_t *c) {
  json_decref(c->presets);
  models_free(c->models, c->n_models);
  memset(c, 0, sizeof *c);
}

/* Overlays the members of presets entry `key` (if present) on coef, slots
 * and max_batch; 0, or -1 with a message for a member that is not a number > 0. */
static int overlay(const drv_costs_t *c, const char *key, double coef[SHD_C_N], int32_t *slots,
                   int32_t *max_batch, int *found, char *err, size_t errlen) {
  const json_t *e = json_object_get(json_object_get(c->presets, "workers"), key);
  if (!e) return 0;
  if (!json_is_object(e)) {
    base_errf(err, errlen, "%s: workers.%s: expected an object", c->presets_path, key);
    return -1;
  }
  const char *name;
  json_t *v;
  json_object_foreach((json_t *)e, name, v) {
    double x = json_is_number(v) ? json_number_value(v) : -1;
    int k = 0;
    while (k < SHD_C_N && strcmp(shd_coef_names[k], name) != 0)
      k++;
    int is_int = strcmp(name, "slots") == 0 || strcmp(name, "max_batch") == 0;
    if (k == SHD_C_N && !is_int) {
      char known[160] = "";
      for (int j = 0; j < SHD_C_N; j++)
        snprintf(known + strlen(known), sizeof known - strlen(known), "%s, ", shd_coef_names[j]);
      base_errf(err, errlen, "%s: workers.%s.%s: unknown member (%sslots, max_batch)",
                c->presets_path, key, name, known);
      return -1;
    }
    if (!(x > 0) || !isfinite(x) || (is_int && (x != floor(x) || x > 1e6))) {
      base_errf(err, errlen, "%s: workers.%s.%s: expected a %s > 0", c->presets_path, key, name,
                is_int ? "whole number up to 1e6" : "number");
      return -1;
    }
    if (k < SHD_C_N)
      coef[k] = x;
    else
      *(name[0] == 's' ? slots : max_batch) = (int32_t)x;
    (*found)++;
  }
  return 0;
}

int drv_costs_prior(const drv_costs_t *c, const char *name, const char *key, double coef[SHD_C_N],
                    int32_t *slots, int32_t *max_batch, char *err, size_t errlen) {
  char backend[64], full[512];
  int found = 0;
  snprintf(backend, sizeof backend, "%.*s", (int)strcspn(name, ":"), name);
  for (int k = 0; k < SHD_C_N; k++)
    coef[k] = 0;
  coef[SHD_C_CONTENTION] = 1; /* none unless an entry says (presets of older versions) */
  *slots = 0;
  *max_batch = 0;
  const char *order[4] = {backend, NULL, name, NULL};
  char with_key[2][512];
  snprintf(with_key[0], sizeof with_key[0], "%s/%s", backend, key);
  snprintf(with_key[1], sizeof with_key[1], "%s/%s", name, key);
  order[1] = with_key[0];
  order[3] = with_key[1];
  for (int i = 0; i < 4; i++)
    if ((i != 2 || strcmp(name, backend) != 0) &&
        overlay(c, order[i], coef, slots, max_batch, &found, err, errlen))
      return -1;
  snprintf(full, sizeof full, "%s/%s", name, key);
  for (int k = 0; k < SHD_C_N; k++)
    if (!(coef[k] > 0)) {
      base_errf(err, errlen, "%s: no coefficient %s for %s (workers.%s and the entries it extends)",
                c->presets_path, shd_coef_names[k], full, backend);
      return -1;
    }
  if (*max_batch <= 0 || (strcmp(backend, "cuda") == 0 && *slots <= 0)) {
    base_errf(err, errlen, "%s: workers.%s: needs max_batch%s", c->presets_path, backend,
              strcmp(backend, "cuda") == 0 ? " and slots" : "");
    return -1;
  }
  if (strcmp(backend, "cuda") != 0) *slots = 0;
  return 0;
}

const drv_model_t *drv_costs_find(const drv_costs_t *c, const char *name, const char *key) {
  char full[512];
  snprintf(full, sizeof full, "%s|%s", name, key);
  for (int32_t i = 0; i < c->n_models; i++)
    if (strcmp(c->models[i].name, full) == 0) return &c->models[i];
  return NULL;
}

int drv_model_fit(const drv_model_t *m, int32_t run_now, const double prior[SHD_C_N],
                  double coef[SHD_C_N], shd_fit_t *fi) {
  shd_rec_t *r = malloc(((size_t)m->n + 1) * sizeof *r);
  if (!r) return -1;
  for (int32_t i = 0; i < m->n; i++) {
    r[i] = m->rec[i];
    double w = pow(0.5, run_now - m->run[i]);
    r[i].weight = w > 0.05 ? (w < 1 ? w : 1) : 0.05;
  }
  int rc = shd_fit(prior, r, m->n, coef, fi);
  free(r);
  return rc;
}

/* The file's models with this run's records added, the newest kept. */
static json_t *merged(const drv_costs_t *now, const drv_model_t *models, const double *coef,
                      int32_t n, const drv_costs_t *file) {
  json_t *root = json_object(), *all = json_object();
  int32_t runs = now->run;
  if (file->run - 1 > runs) runs = file->run - 1; /* another run wrote meanwhile */
  json_object_set_new(root, "multiverse_costs", json_integer(1));
  json_object_set_new(root, "runs", json_integer(runs));
  json_object_set_new(root, "models", all);
  for (int32_t i = 0; i < file->n_models; i++) {
    const drv_model_t *m = &file->models[i];
    json_t *o = json_object(), *recs = json_array();
    int32_t first = m->n > DRV_COST_KEEP ? m->n - DRV_COST_KEEP : 0;
    for (int32_t k = first; k < m->n; k++)
      json_array_append_new(recs, rec_json(&m->rec[k], m->run[k]));
    json_object_set_new(o, "records", recs);
    json_object_set_new(all, m->name, o);
  }
  for (int32_t i = 0; i < n; i++) {
    const drv_model_t *m = &models[i];
    int32_t mine = 0;
    for (int32_t k = 0; k < m->n; k++)
      mine += m->run[k] == now->run;
    if (!mine) continue;
    json_t *o = json_object_get(all, m->name), *recs;
    if (!o) {
      o = json_object();
      json_object_set_new(o, "records", json_array());
      json_object_set_new(all, m->name, o);
    }
    recs = json_object_get(o, "records");
    for (int32_t k = 0; k < m->n; k++)
      if (m->run[k] == now->run) json_array_append_new(recs, rec_json(&m->rec[k], runs));
    while (json_array_size(recs) > DRV_COST_KEEP)
      json_array_remove(recs, 0);
    json_t *co = json_object();
    for (int k = 0; k < SHD_C_N; k++)
      json_object_set_new(co, shd_coef_names[k], json_real(coef[(size_t)i * SHD_C_N + k]));
    json_object_set_new(o, "fitted", co);
  }
  return root;
}

/* mkdir -p of the folder holding path. */
static void make_parent(const char *path) {
  char buf[4096];
  snprintf(buf, sizeof buf, "%s", path);
  char *slash = strrchr(buf, '/');
  if (!slash || slash == buf) return;
  *slash = '\0';
  for (char *c = buf + 1; *c; c++)
    if (*c == '/') {
      *c = '\0';
      mkdir(buf, 0777);
      *c = '/';
    }
  mkdir(buf, 0777);
}

int drv_costs_save(const drv_costs_t *c, const drv_model_t *models, const double *coef, int32_t n,
                   char *err, size_t errlen) {
  if (!c->path[0] || !c->readable) return 0;
  char lock[4200], why[1200];
  make_parent(c->path);
  snprintf(lock, sizeof lock, "%s.lock", c->path);
  int fd = open(lock, O_RDWR | O_CREAT, 0666);
  if (fd < 0 || flock(fd, LOCK_EX)) {
    base_errf(err, errlen, "%s: %s", lock, strerror(errno));
    if (fd >= 0) close(fd);
    return -1;
  }
  drv_costs_t file = {.run = 1};
  int rc = file_read(&file, c->path, why, sizeof why);
  if (rc < 0) {
    base_errf(err, errlen, "%s (not overwritten)", why);
  } else {
    json_t *root = merged(c, models, coef, n, &file);
    char *text = root ? json_dumps(root, JSON_COMPACT) : NULL;
    rc = -1;
    if (!text)
      base_errf(err, errlen, "%s: out of memory", c->path);
    else
      rc = drv_out_text(c->path, text, err, errlen);
    free(text);
    json_decref(root);
  }
  models_free(file.models, file.n_models);
  close(fd);
  return rc < 0 ? -1 : 0;
}
