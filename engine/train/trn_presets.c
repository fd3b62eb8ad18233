/* trn: loading jobs/presets/models.json and gpus.json (every preset checked at load)
 * and finding presets by name. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/base_err.h"
#include "base/base_json.h"
#include "train/trn_int.h"

#ifndef MV_PRESET_DIR
#define MV_PRESET_DIR "jobs/presets"
#endif

static const char *const models_file_keys[] = {"description", "models", NULL};
static const char *const gpus_file_keys[] = {
    "description", "aliases", "curve_max_aspect", "curve_note", "gemm_source", "gpus", NULL};

static json_t *load(const char *dir, const char *file, char *path, size_t len, char *err,
                    size_t errlen) {
  snprintf(path, len, "%s/%s", dir, file);
  json_t *root = base_json_load(path, JSON_REJECT_DUPLICATES, err, errlen);
  if (root && !json_is_object(root)) {
    base_errf(err, errlen, "%s: must hold a JSON object", path);
    json_decref(root);
    root = NULL;
  }
  return root;
}

static void read_models(const json_t *root, const char *path, trn_presets_t *p,
                        trn_problems_t *pr) {
  trn_jkeys(root, models_file_keys, path, pr);
  const json_t *models = json_object_get(root, "models");
  if (!json_is_object(models)) {
    trn_jproblem(pr, path, "models", "missing: an object of model presets");
    return;
  }
  p->models = calloc(json_object_size(models) + 1, sizeof *p->models);
  const char *name;
  json_t *v;
  json_object_foreach((json_t *)models, name, v) {
    char where[1280];
    snprintf(where, sizeof where, "%s: models.%s", path, name);
    if (p->models) trn_model_read_preset(v, name, where, &p->models[p->n_models++], pr);
  }
}

static void read_gpus(const json_t *root, const char *path, trn_presets_t *p, trn_problems_t *pr) {
  double max_aspect = 0;
  trn_jkeys(root, gpus_file_keys, path, pr);
  if (trn_jnum(root, "curve_max_aspect", 1, 1e9, &max_aspect, path, pr) == 0)
    trn_jproblem(pr, path, "curve_max_aspect", "missing");
  const json_t *gpus = json_object_get(root, "gpus");
  if (!json_is_object(gpus)) {
    trn_jproblem(pr, path, "gpus", "missing: an object of GPU presets");
    return;
  }
  p->gpus = calloc(json_object_size(gpus) + 1, sizeof *p->gpus);
  const char *name;
  json_t *v;
  json_object_foreach((json_t *)gpus, name, v) {
    char where[1280];
    snprintf(where, sizeof where, "%s: gpus.%s", path, name);
    if (p->gpus) trn_gpu_read_preset(v, gpus, max_aspect, name, where, &p->gpus[p->n_gpus++], pr);
  }
  const json_t *aliases = json_object_get(root, "aliases");
  if (!aliases) return;
  if (!json_is_object(aliases)) {
    trn_jproblem(pr, path, "aliases", "must be an object of name: GPU");
    return;
  }
  p->alias = calloc(json_object_size(aliases) + 1, sizeof *p->alias);
  json_object_foreach((json_t *)aliases, name, v) {
    if (!json_is_string(v) || !json_object_get(gpus, json_string_value(v)) ||
        strlen(name) >= TRN_NAME_LEN) {
      char where[1280];
      snprintf(where, sizeof where, "%s: aliases", path);
      trn_jproblem(pr, where, name, "must name a GPU of gpus (and be a short name)");
      continue;
    }
    if (!p->alias) continue;
    snprintf(p->alias[p->n_aliases][0], TRN_NAME_LEN, "%s", name);
    snprintf(p->alias[p->n_aliases][1], TRN_NAME_LEN, "%s", json_string_value(v));
    p->n_aliases++;
  }
}

int trn_presets_load(trn_presets_t *p, const char *dir, char *err, size_t errlen) {
  char mpath[1024], gpath[1024];
  trn_problems_t pr = {0};
  memset(p, 0, sizeof *p);
  if (!dir) dir = getenv("MULTIVERSE_PRESETS") ? getenv("MULTIVERSE_PRESETS") : MV_PRESET_DIR;
  json_t *models = load(dir, "models.json", mpath, sizeof mpath, err, errlen);
  if (!models) return -1;
  json_t *gpus = load(dir, "gpus.json", gpath, sizeof gpath, err, errlen);
  if (!gpus) {
    json_decref(models);
    return -1;
  }
  read_models(models, mpath, p, &pr);
  read_gpus(gpus, gpath, p, &pr);
  json_decref(models);
  json_decref(gpus);
  if (!pr.n && (!p->models || !p->gpus)) trn_problem(&pr, "%s: out of memory for the presets", dir);
  if (!pr.n) return 0;
  if (pr.n > 1)
    base_errf(err, errlen, "%s (and %d more)", pr.msg[0], pr.n - 1);
  else
    base_errf(err, errlen, "%s", pr.msg[0]);
  trn_presets_free(p);
  return -1;
}

void trn_presets_free(trn_presets_t *p) {
  free(p->models);
  free(p->gpus);
  free(p->alias);
  memset(p, 0, sizeof *p);
}

const trn_model_t *trn_preset_model(const trn_presets_t *p, const char *name) {
  for (int32_t i = 0; i < p->n_models; i++)
    if (strcmp(p->models[i].name, name) == 0) return &p->models[i];
  return NULL;
}

const trn_gpu_t *trn_preset_gpu(const trn_presets_t *p, const char *name) {
  for (int32_t i = 0; i < p->n_aliases; i++)
    if (strcmp(p->alias[i][0], name) == 0) name = p->alias[i][1];
  for (int32_t i = 0; i < p->n_gpus; i++)
    if (strcmp(p->gpus[i].name, name) == 0) return &p->gpus[i];
  return NULL;
}
