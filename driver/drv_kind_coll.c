/* driver: the `collective` experiment kind, what `multiverse collective` runs,
 * as data (jobs/job_coll.h): one NCCL collective of `gpus` GPUs from time 0,
 * inside servers by the intra-server model and between them through the
 * packet-level network; its result the collective's time (the last member's
 * done join), algbw and busbw as nccl-tests reports them, and the network's
 * counters. Topologies and intra-server models are read once per job. */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "driver/drv.h"
#include "driver/drv_coll.h"
#include "driver/drv_jobs.h"
#include "jobs/job_coll.h"

typedef struct kc_model_t {
  coll_model_t m;
  char *error;
} kc_model_t;

/* What a collective's task graph is made of besides its parameters' key
 * (drv_seen_key): the topology and intra-server model (one of each per
 * file or spec while the kind is open), the collective and the servers.
 * Zeroed, then filled: keys compare with memcmp. */
typedef struct kc_key_t {
  const drv_topo_t *topo;
  const kc_model_t *model;
  uint64_t bytes, chunk_bytes;
  int64_t sync;
  double nic_gbps;
  int32_t op, gpus, algo, channels, gpus_per_server, nics_per_server, servers, per;
  char gpu[COLL_NAME_LEN];
} kc_key_t;

typedef struct kcoll_t {
  trn_presets_t tp;
  job_presets_t ps;
  char *base_dir;
  job_digests_t *digests;
  drv_map_t *topos;      /* topology key -> drv_topo_t */
  drv_map_t *models;     /* calibration path ("" none) -> kc_model_t */
  drv_seen_cache_t seen; /* graphs' sizes and features, kind key kc_key_t */
} kcoll_t;

static void model_release(void *p) {
  kc_model_t *m = p;
  coll_model_free(&m->m);
  free(m->error);
  free(m);
}

static void kc_close(void *k) {
  kcoll_t *c = k;
  if (!c) return;
  drv_map_free(c->topos, drv_topo_release);
  drv_map_free(c->models, model_release);
  job_digests_free(c->digests);
  trn_presets_free(&c->tp);
  drv_seen_free(&c->seen);
  free(c->base_dir);
  free(c);
}

static void *kc_open(const drv_kind_opts_t *o, char *err, size_t errlen) {
  kcoll_t *c = calloc(1, sizeof *c);
  char def[4096];
  if (!c) goto oom;
  if (job_presets_load(drv_presets_file(o->presets, def, sizeof def), &c->ps, err, errlen) ||
      trn_presets_load(&c->tp, NULL, err, errlen)) {
    kc_close(c);
    return NULL;
  }
  c->base_dir = strdup(o->base_dir ? o->base_dir : ".");
  c->digests = job_digests_new();
  c->topos = drv_map_new();
  c->models = drv_map_new();
  if (c->base_dir && c->digests && c->topos && c->models &&
      drv_seen_init(&c->seen, sizeof(kc_key_t)) == 0)
    return c;
  kc_close(c);
oom:
  snprintf(err, errlen, "out of memory");
  return NULL;
}

static int kc_canon(void *k, const json_t *exp, const char *where, char **canon, uint64_t *id,
                    char *err, size_t errlen) {
  kcoll_t *c = k;
  job_coll_t x;
  const char *files[3];
  *canon = NULL;
  if (job_coll_parse(&c->tp, &c->ps, exp, where, &x, err, errlen)) return -1;
  int rc = 0;
  if (!(*canon = job_coll_canonical(&x))) {
    snprintf(err, errlen, "%s: out of memory", where);
    rc = -1;
  } else if (job_id_files(*canon, files, job_coll_files(&x, files), c->base_dir, c->digests, id,
                          err, errlen)) {
    *id = job_id_hash(*canon, NULL, 0); /* the experiment fails: a file it names cannot be read */
    rc = 1;
  }
  job_coll_free(&x);
  return rc;
}

/* `p` relative to the job's folder, unless absolute. */
static void kc_path(const kcoll_t *c, const char *p, char *buf, size_t len) {
  snprintf(buf, len, "%s%s%s", p[0] == '/' ? "" : c->base_dir, p[0] == '/' ? "" : "/", p);
}

static kc_model_t *kc_model(kcoll_t *c, const char *calibration) {
  kc_model_t *m = drv_map_get(c->models, calibration);
  if (m || !(m = calloc(1, sizeof *m))) return m;
  char err[1024], path[8192];
  if (calibration[0]) kc_path(c, calibration, path, sizeof path);
  if (coll_model_load_default(&m->m, NULL, calibration[0] ? path : NULL, err, sizeof err))
    m->error = strdup(err);
  if (drv_map_put(c->models, calibration, m)) {
    model_release(m);
    return NULL;
  }
  return m;
}

/* The experiment of a canonical text read into a new own (its collective
 * own->c), or NULL with xo's status and message saying why. */
static drv_coll_own_t *kc_read(kcoll_t *c, const char *canon, const char *where, drv_exp_t *xo) {
  char err[1024];
  json_error_t je;
  json_t *obj = json_loads(canon, 0, &je);
  drv_coll_own_t *own = calloc(1, sizeof *own);
  xo->status = ANA_FAILED;
  if (!obj || !own || job_coll_parse(&c->tp, &c->ps, obj, where, &own->c, err, sizeof err)) {
    snprintf(xo->message, sizeof xo->message, "its canonical text does not parse: %.900s",
             obj && own ? err : je.text);
    json_decref(obj);
    free(own);
    return NULL;
  }
  json_decref(obj);
  return own;
}

/* Builds the experiment kc_read gave: own is xo's where it is ANA_OK, else
 * freed. */
static void kc_build_read(kcoll_t *c, drv_coll_own_t *own, uint64_t id, drv_exp_t *xo) {
  char err[1024];
  xo->status = ANA_FAILED;
  const job_coll_t *x = &own->c;
  drv_topo_t *t = drv_topo_cached(c->topos, x->topology_file, &x->topology, c->base_dir);
  kc_model_t *m = kc_model(c, x->calibration);
  int32_t *gpus = malloc((size_t)x->gpus * sizeof *gpus);
  own->done = malloc((size_t)x->gpus * sizeof *own->done);
  if (!t || !m || !gpus || !own->done) {
    snprintf(xo->message, sizeof xo->message, "out of memory");
    goto fail;
  }
  if (t->error || m->error) {
    snprintf(xo->message, sizeof xo->message, "%s", t->error ? t->error : m->error);
    goto fail;
  }
  int64_t need = (int64_t)x->servers * x->nics_per_server;
  if (t->t.n_hosts < need) {
    snprintf(xo->message, sizeof xo->message,
             "network.topology: %d hosts, and %d servers of %d NICs need %lld (hosts server * "
             "nics + nic)",
             t->t.n_hosts, x->servers, x->nics_per_server, (long long)need);
    xo->status = ANA_INVALID;
    goto fail;
  }
  for (int32_t i = 0; i < x->gpus; i++)
    gpus[i] = i;
  coll_cluster_t cl = {.gpus_per_server = x->gpus_per_server,
                       .nics_per_server = x->nics_per_server,
                       .gpu = x->gpu,
                       .model = &m->m,
                       .sync_ps = x->params.sync};
  coll_desc_t d = {.kind = (coll_kind_t)x->op,
                   .algo = (coll_algo_t)x->algo,
                   .bytes = x->bytes,
                   .channels = x->channels,
                   .chunk_bytes = x->chunk_bytes};
  own->g.max = drv_graph_max_tasks(); /* sizes before work: half the memory */
  if (coll_append(&own->g, &cl, &d, x->gpus, gpus, NULL, own->done, err, sizeof err)) {
    int big = (own->g.max > 0 && own->g.n >= own->g.max) || strstr(err, "out of memory");
    if (big)
      snprintf(xo->message, sizeof xo->message,
               "its task graph passes what this process's memory holds (%d tasks and flows "
               "built): fewer GPUs, or more GPUs per server",
               own->g.n);
    else
      snprintf(xo->message, sizeof xo->message, "collective.bytes %llu: %.900s",
               (unsigned long long)x->bytes, err);
    xo->status = big ? ANA_OOM : ANA_INVALID;
    goto fail;
  }
  tg_assign_ports(&own->g);
  free(gpus);
  own->topo = &t->t;
  own->model = &m->m;
  xo->own = own;
  xo->desc =
      (eng_exp_desc_t){.topo = own->topo, .tasks = &own->g, .params = &x->params, .seed = id};
  xo->status = ANA_OK;
  return;
fail:
  free(gpus);
  tg_free(&own->g);
  free(own->done);
  job_coll_free(&own->c);
  free(own);
}

static void kc_build(void *k, const char *canon, uint64_t id, const char *where, drv_exp_t *xo) {
  drv_coll_own_t *own = kc_read(k, canon, where, xo);
  if (own) kc_build_read(k, own, id, xo);
}

static void kc_release(void *k, drv_exp_t *x) {
  drv_coll_own_t *own = x->own;
  (void)k;
  if (!own) return;
  tg_free(&own->g);
  free(own->done);
  job_coll_free(&own->c);
  free(own);
  x->own = NULL;
}

/* The plan's describe step: an experiment whose task graph an earlier one
 * had (the same key, parameters' key too) is sized from what that one left
 * (drv_exp_seen: its own parameter checks, link rings, row limit and
 * memory); any other (and one of the flow level, or whose topology or model
 * cannot be read) is built and sized, and a built one leaves its graph's
 * size and features to the next of its key. */
static void kc_describe(void *k, const char *canon, uint64_t id, const char *where, drv_exp_t *xo,
                        int64_t *mem) {
  kcoll_t *c = k;
  drv_coll_own_t *own = kc_read(c, canon, where, xo);
  const job_coll_t *x = own ? &own->c : NULL;
  drv_topo_t *t = x ? drv_topo_cached(c->topos, x->topology_file, &x->topology, c->base_dir) : NULL;
  kc_model_t *m = x ? kc_model(c, x->calibration) : NULL;
  int keyed = t && m && !t->error && !m->error;
  kc_key_t key;
  drv_seen_key_t pk;
  int32_t i = -1;
  if (keyed) {
    memset(&key, 0, sizeof key);
    key.topo = t; /* field by field: the padding stays zero */
    key.model = m;
    key.bytes = x->bytes;
    key.chunk_bytes = x->chunk_bytes;
    key.sync = x->params.sync;
    key.nic_gbps = x->nic_gbps;
    key.op = x->op;
    key.gpus = x->gpus;
    key.algo = x->algo;
    key.channels = x->channels;
    key.gpus_per_server = x->gpus_per_server;
    key.nics_per_server = x->nics_per_server;
    key.servers = x->servers;
    key.per = x->per;
    snprintf(key.gpu, sizeof key.gpu, "%s", x->gpu);
    drv_seen_key(&x->params, &pk);
    i = drv_seen_find(&c->seen, &key, &pk);
  }
  if (i >= 0) {
    eng_exp_desc_t d = {.topo = &t->t, .params = &x->params};
    drv_exp_seen(&d, &c->seen.seen[i], NULL, xo, mem); /* as drv_exp_size words it */
    job_coll_free(&own->c);
    free(own);
    return;
  }
  if (own) kc_build_read(c, own, id, xo); /* own is xo's now, or freed */
  drv_exp_size(xo, mem);
  if (keyed) drv_seen_insert(&c->seen, &key, &pk, xo);
  kc_release(c, xo);
  memset(&xo->desc, 0, sizeof xo->desc);
}

static const ana_col_t kc_cols[] = {
#define KC_COL(n, ty, u, ln) {.name = #n, .type = ty, .units = u, .long_name = ln},
    DRV_COLL_COLS(KC_COL)
#undef KC_COL
};

static void kc_results(void *k, drv_exp_t *x, const eng_batch_t *b, int32_t e, ana_value_t *v) {
  (void)k;
  drv_coll_results(x->own, b, e, v);
}

const drv_kind_t drv_kind_collective = {
    .name = "collective",
    .n_cols = DRV_COLL_N_COLS,
    .cols = kc_cols,
    .open = kc_open,
    .close = kc_close,
    .canon = kc_canon,
    .build = kc_build,
    .describe = kc_describe,
    .results = kc_results,
    .release = kc_release,
};
