/* Shared by the tests of training experiments: the presets (models, GPUs, network
 * defaults, the intra-server collective model or one given as JSON), experiments
 * built from JSON text by the training kind, run in one batch. */
#ifndef TRNEXP_H
#define TRNEXP_H

#include <jansson.h>
#include <math.h>

#include "jobs/job_train.h"
#include "trntest.h"

typedef struct trnexp_t {
  coll_model_t cm;
  job_presets_t ps;
  job_train_env_t jenv;
  trn_exp_env_t env;
} trnexp_t;

static trnexp_t trnexp;

/* coll_json: an intra-server model file's text, or NULL for the presets'. */
static inline int trnexp_init(const char *coll_json) {
  char err[1024], path[2048];
  const char *dir = getenv("MV_PRESETS");
  if (trntest_init()) return -1;
  snprintf(path, sizeof path, "%s/network.json", dir ? dir : "jobs/presets");
  if (job_presets_load(path, &trnexp.ps, err, sizeof err)) goto fail;
  memset(&trnexp.cm, 0, sizeof trnexp.cm);
  if (coll_json) {
    json_error_t je;
    json_t *root = json_loads(coll_json, 0, &je);
    int rc = root ? coll_model_from_json(&trnexp.cm, root, "test model", err, sizeof err) : -1;
    json_decref(root);
    if (rc) goto fail;
  } else {
    snprintf(path, sizeof path, "%s/nccl_intra.json", dir ? dir : "jobs/presets");
    if (coll_model_load_default(&trnexp.cm, path, NULL, err, sizeof err)) goto fail;
  }
  trnexp.jenv = (job_train_env_t){
      .presets = &trntest_presets, .network = &trnexp.ps, .base_dir = getenv("MV_TEST_DATA")};
  trnexp.env = (trn_exp_env_t){.coll = &trnexp.cm, .base_dir = getenv("MV_TEST_DATA")};
  return 0;
fail:
  fprintf(stderr, "%s\n", err);
  return -1;
}

/* Builds experiment i from text[i] (seed i + 1) into x[i]; those that build run in one
 * batch on `backend` with `threads` threads (slot[i]: its index there, -1). Returns the
 * batch (NULL when none ran). */
static inline eng_batch_t *trnexp_run(int n, const char *const *text, trn_exp_t *x, int32_t *slot,
                                      eng_backend_t backend, int threads) {
  eng_exp_desc_t *d = calloc((size_t)n, sizeof *d);
  int32_t k = 0;
  for (int i = 0; i < n; i++) {
    json_error_t je;
    json_t *o = json_loads(text[i], 0, &je);
    if (!o) fprintf(stderr, "test experiment %d: %s\n", i, je.text);
    CHECK(o != NULL);
    CHECK(job_train_build(&trnexp.jenv, &trnexp.env, o, "test", (uint64_t)i + 1, &x[i]) == 0);
    json_decref(o);
    if (x[i].status == BASE_INVALID) fprintf(stderr, "experiment %d: %s\n", i, x[i].message);
    slot[i] = x[i].status == BASE_OK ? k : -1;
    if (slot[i] >= 0) d[k++] = trn_exp_desc(&x[i]);
  }
  eng_batch_t *b = NULL;
  char err[1024];
  if (k > 0) {
    eng_batch_desc_t bd = {.n_exps = k, .exps = d};
    eng_run_desc_t rd = {.backend = backend, .threads = threads};
    if (eng_batch_create(&bd, &b, err, sizeof err) || eng_batch_run(b, &rd, err, sizeof err)) {
      fprintf(stderr, "batch: %s\n", err);
      CHECK(0);
      eng_batch_destroy(b);
      b = NULL;
    }
  }
  free(d);
  return b;
}

/* Results of experiment i after trnexp_run. */
static inline trn_result_t trnexp_result(const trn_exp_t *x, const eng_batch_t *b,
                                         const int32_t *slot, int i) {
  trn_result_t r;
  trn_exp_results(&x[i], slot[i] >= 0 ? b : NULL, slot[i], &r);
  return r;
}

#endif
