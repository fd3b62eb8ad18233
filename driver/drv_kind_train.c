/* driver: the `training` experiment kind for `multiverse run`: a job file's
 * training experiment ({"model", "training", "cluster", "network"} or
 * {"workload", "cluster", "network"}) built by engine/train/trn_exp.h, its
 * results the columns of TRN_RESULTS. Problems of an experiment (unknown keys,
 * impossible plans) make it an `invalid` row naming them by JSON path, as
 * `multiverse train` does, so a sweep may hold plans that cannot run. */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "driver/drv.h"
#include "driver/drv_jobs.h"
#include "driver/drv_kind.h"
#include "jobs/job_train.h"

typedef struct train_t {
  trn_presets_t tp;
  coll_model_t cm;
  job_presets_t ps;
  job_train_env_t jenv;
  trn_exp_env_t env;
  job_digests_t *digests;
  drv_train_net_t net; /* network.ns3_config (drv_train_apply) */
  char *base_dir;
} train_t;

static void train_close(void *k) {
  train_t *t = k;
  if (!t) return;
  trn_presets_free(&t->tp);
  coll_model_free(&t->cm);
  job_digests_free(t->digests);
  free(t->base_dir);
  free(t);
}

static void *train_open(const drv_kind_opts_t *o, char *err, size_t errlen) {
  train_t *t = calloc(1, sizeof *t);
  char def[4096];
  if (!t || !(t->base_dir = strdup(o->base_dir ? o->base_dir : ".")) ||
      !(t->digests = job_digests_new())) {
    snprintf(err, errlen, "out of memory");
    train_close(t);
    return NULL;
  }
  if (trn_presets_load(&t->tp, NULL, err, errlen) ||
      coll_model_load_default(&t->cm, NULL, o->calibration, err, errlen) ||
      job_presets_load(drv_presets_file(o->presets, def, sizeof def), &t->ps, err, errlen)) {
    train_close(t);
    return NULL;
  }
  t->net = (drv_train_net_t){.ps = &t->ps, .base_dir = t->base_dir};
  t->jenv = (job_train_env_t){.presets = &t->tp,
                              .network = &t->ps,
                              .base_dir = t->base_dir,
                              .apply = drv_train_apply,
                              .apply_ctx = &t->net};
  t->env = (trn_exp_env_t){
      .coll = &t->cm, .base_dir = t->base_dir, .max_tasks = drv_graph_max_tasks()};
  return t;
}

static int train_canon(void *k, const json_t *exp, const char *where, char **canon, uint64_t *id,
                       char *err, size_t errlen) {
  train_t *t = k;
  int rc = job_train_ident(&t->jenv, exp, t->base_dir, t->digests, canon, id, err, errlen);
  if (rc < 0) snprintf(err, errlen, "%s: out of memory", where);
  return rc;
}

static void train_build(void *k, const char *canon, uint64_t id, const char *where,
                        drv_exp_t *xo) {
  train_t *t = k;
  json_error_t je;
  xo->status = ANA_FAILED;
  json_t *obj = json_loads(canon, 0, &je);
  trn_exp_t *x = calloc(1, sizeof *x);
  if (!obj || !x) {
    snprintf(xo->message, sizeof xo->message, "%s",
             obj ? "out of memory" : "its canonical text does not parse");
    json_decref(obj);
    free(x);
    return;
  }
  int rc = job_train_build(&t->jenv, &t->env, obj, where, id, x);
  json_decref(obj);
  if (rc) {
    snprintf(xo->message, sizeof xo->message, "out of memory building the experiment");
    free(x);
    return;
  }
  snprintf(xo->message, sizeof xo->message, "%s", x->message);
  xo->own = x;
  if (x->status == BASE_OOM) {
    xo->status = ANA_OOM;
  } else if (x->status == BASE_INVALID) {
    xo->status = ANA_INVALID;
  } else {
    xo->desc = trn_exp_desc(x);
    xo->validated = 1; /* trn_exp_build's last step */
    xo->status = ANA_OK;
  }
}

static void train_results(void *k, drv_exp_t *x, const eng_batch_t *b, int32_t e, ana_value_t *v) {
  trn_result_t r;
  (void)k;
  trn_exp_results(x->own, b, e, &r);
  for (int i = 0; i < TRN_RESULT_COUNT; i++)
    v[i].d = r.v[i];
}

static void train_release(void *k, drv_exp_t *x) {
  (void)k;
  if (x->own) trn_exp_free(x->own);
  free(x->own);
  x->own = NULL;
}

static const ana_col_t train_cols[] = {
#define TRAIN_COL(n, u, w) {.name = #n, .type = ANA_DOUBLE, .units = u, .long_name = w},
    TRN_RESULTS(TRAIN_COL)
#undef TRAIN_COL
};

const drv_kind_t drv_kind_training = {
    .name = "training",
    .n_cols = TRN_RESULT_COUNT,
    .cols = train_cols,
    .open = train_open,
    .close = train_close,
    .canon = train_canon,
    .build = train_build,
    .results = train_results,
    .release = train_release,
};
