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

/* What the plan's describe step keeps of a built experiment for the next
 * ones of the same task graph and topology: a sweep over the network's
 * parameters (cc, buffers, ECN) builds each of its graphs once. The graph and
 * the topology are those of the set-up, the topology's spec and sync
 * (trn_exp_build); the rest of the key is drv_seen_key's. */
typedef struct train_key_t {
  trn_setup_t setup;
  topo_spec_t topology;
  int64_t sync;
} train_key_t;

typedef struct train_t {
  trn_presets_t tp;
  coll_model_t cm;
  job_presets_t ps;
  job_train_env_t jenv;
  trn_exp_env_t env;
  job_digests_t *digests;
  drv_train_net_t net; /* network.ns3_config (drv_train_apply) */
  char *base_dir;
  drv_seen_cache_t seen; /* graphs' sizes and features, kind key train_key_t */
  topo_t topo[DRV_SEEN]; /* slot i's, built from its key's topology */
} train_t;

static void train_close(void *k) {
  train_t *t = k;
  if (!t) return;
  trn_presets_free(&t->tp);
  coll_model_free(&t->cm);
  job_digests_free(t->digests);
  for (int32_t i = 0; i < t->seen.n; i++)
    topo_free(&t->topo[i]);
  drv_seen_free(&t->seen);
  free(t->base_dir);
  free(t);
}

static void *train_open(const drv_kind_opts_t *o, char *err, size_t errlen) {
  train_t *t = calloc(1, sizeof *t);
  char def[4096];
  if (!t || !(t->base_dir = strdup(o->base_dir ? o->base_dir : ".")) ||
      !(t->digests = job_digests_new()) || drv_seen_init(&t->seen, sizeof(train_key_t))) {
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
  t->env =
      (trn_exp_env_t){.coll = &t->cm, .base_dir = t->base_dir, .max_tasks = drv_graph_max_tasks()};
  return t;
}

static int train_canon(void *k, const json_t *exp, const char *where, char **canon, uint64_t *id,
                       char *err, size_t errlen) {
  train_t *t = k;
  int rc = job_train_ident(&t->jenv, exp, t->base_dir, t->digests, canon, id, err, errlen);
  if (rc < 0) snprintf(err, errlen, "%s: out of memory", where);
  return rc;
}

/* The experiment of a spec job_train_parse read (s, its problems pr). */
static void train_built(train_t *t, const trn_exp_spec_t *s, const trn_problems_t *pr,
                        const char *where, uint64_t id, drv_exp_t *xo) {
  xo->status = ANA_FAILED;
  trn_exp_t *x = calloc(1, sizeof *x);
  if (!x) {
    snprintf(xo->message, sizeof xo->message, "out of memory");
    return;
  }
  if (job_train_build_spec(&t->env, s, pr, where, id, x)) {
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
    xo->desc.validated = 1; /* trn_exp_build's last step */
    xo->bytes = x->world_bytes;
    xo->size = x->size;
    xo->status = ANA_OK;
  }
}

/* Reads a canonical text into *s and its problems into *pr (the caller
 * frees both, also on failure): 1, or 0 with xo's status and message saying
 * why. */
static int train_read(train_t *t, const char *canon, const char *where, trn_exp_spec_t **s,
                      trn_problems_t **pr, drv_exp_t *xo) {
  json_t *obj = json_loads(canon, 0, NULL);
  *s = malloc(sizeof **s);
  *pr = calloc(1, sizeof **pr);
  const int ok = obj && *s && *pr;
  if (ok) {
    job_train_parse(&t->jenv, obj, where, *s, *pr);
  } else {
    xo->status = ANA_FAILED;
    snprintf(xo->message, sizeof xo->message, "%s",
             obj ? "out of memory building the experiment" : "its canonical text does not parse");
  }
  json_decref(obj);
  return ok;
}

static void train_build(void *k, const char *canon, uint64_t id, const char *where, drv_exp_t *xo) {
  trn_exp_spec_t *s;
  trn_problems_t *pr;
  if (train_read(k, canon, where, &s, &pr, xo)) train_built(k, s, pr, where, id, xo);
  free(s);
  free(pr);
}

static void train_release(void *k, drv_exp_t *x);

/* The key of spec s (its parameters' in *pk), or 0 when its experiments are
 * described by building them (an imported workload: files). */
static int train_key(const trn_exp_spec_t *s, train_key_t *key, drv_seen_key_t *pk) {
  if (s->imported) return 0;
  memset(key, 0, sizeof *key);
  key->setup = s->setup;
  key->topology = s->topology;
  key->sync = s->params.sync;
  eng_params_t p = s->params;
  p.overlap_q16 = trn_exp_overlap_q16(s); /* what the build runs it with */
  drv_seen_key(&p, pk);
  return 1;
}

/* Builds the experiment of spec s (problems pr; NULL where its text did not
 * read: xo says why) and sizes it (the plan's reference); a built one leaves
 * its topology, graph size and features to the next of its key. */
static void train_describe_built(train_t *t, const trn_exp_spec_t *s, const trn_problems_t *pr,
                                 uint64_t id, const char *where, const train_key_t *key,
                                 const drv_seen_key_t *pk, drv_exp_t *xo, int64_t *mem) {
  if (s) train_built(t, s, pr, where, id, xo);
  drv_exp_size(xo, mem);
  trn_exp_t *x = xo->own;
  int32_t i = key && x && x->status == BASE_OK ? drv_seen_insert(&t->seen, key, pk, xo) : -1;
  if (i >= 0) {
    topo_free(&t->topo[i]); /* the evicted entry's; an unused slot's is zeroed */
    t->topo[i] = x->topo;   /* moved: the release frees the graph alone */
    memset(&x->topo, 0, sizeof x->topo);
  }
  train_release(t, xo);
  memset(&xo->desc, 0, sizeof xo->desc);
}

/* The plan's describe step: an experiment whose task graph and topology an
 * earlier one had is sized from what that one left (drv_exp_seen: its own
 * parameters checked, its memory counted); any other is built once, from
 * the spec read here. */
static void train_describe(void *k, const char *canon, uint64_t id, const char *where,
                           drv_exp_t *xo, int64_t *mem) {
  train_t *t = k;
  trn_exp_spec_t *s;
  trn_problems_t *pr;
  train_key_t key;
  drv_seen_key_t pk;
  const int read = train_read(t, canon, where, &s, &pr, xo);
  const int keyed = read && pr->n == 0 && train_key(s, &key, &pk);
  int32_t i = keyed ? drv_seen_find(&t->seen, &key, &pk) : -1;
  if (i < 0) {
    train_describe_built(t, read ? s : NULL, pr, id, where, keyed ? &key : NULL, &pk, xo, mem);
  } else {
    eng_params_t p = s->params;
    p.overlap_q16 = pk.overlap_q16;
    eng_exp_desc_t d = {.topo = &t->topo[i], .params = &p};
    drv_exp_seen(&d, &t->seen.seen[i], where, xo, mem); /* as trn_exp_build words it */
  }
  free(s);
  free(pr);
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
    .describe = train_describe,
    .results = train_results,
    .release = train_release,
};
