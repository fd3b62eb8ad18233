/* driver: the `network` experiment kind, what `multiverse net` runs, as data:
 * {"kind":"network","network":{"topology": {...} or "FILE","flows":"FILE",
 * "cc":"dcqcn", ...every --set key}}, paths relative to the job file. Flow
 * files are ns-3 HPCC flow files, htsim connection matrices or JSON task
 * graphs (trf_detect); topologies and flow files are read once per job. */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "driver/drv.h"
#include "driver/drv_kind_net.h"
#include "driver/drv_jobs.h"
#include "traffic/trf.h"

typedef struct net_t {
  job_presets_t ps;
  char *base_dir;
  job_digests_t *digests;
  drv_map_t *topos; /* topology key -> drv_topo_t */
  drv_map_t *works; /* topology key "\n" flows path -> net_work_t */
} net_t;

/* A flow file read against one topology, or why it cannot be; with what the
 * plan's describe step learnt of it under the parameters it was sized with. */
typedef struct net_work_t {
  tg_t g;
  int graph; /* a task graph (.cm, JSON), not an ns-3 flow file */
  char *error;
  drv_seen_cache_t seen; /* sizings kept per flow file and topology (no kind key) */
} net_work_t;

static void work_release(void *p) {
  net_work_t *w = p;
  tg_free(&w->g);
  free(w->error);
  free(w);
}

static void net_close(void *k) {
  net_t *n = k;
  if (!n) return;
  drv_map_free(n->works, work_release);
  drv_map_free(n->topos, drv_topo_release);
  job_digests_free(n->digests);
  free(n->base_dir);
  free(n);
}

static void *net_open(const drv_kind_opts_t *o, char *err, size_t errlen) {
  net_t *n = calloc(1, sizeof *n);
  char def[4096];
  if (!n) goto oom;
  if (job_presets_load(drv_presets_file(o->presets, def, sizeof def), &n->ps, err, errlen)) {
    net_close(n);
    return NULL;
  }
  n->base_dir = strdup(o->base_dir ? o->base_dir : ".");
  n->digests = job_digests_new();
  n->topos = drv_map_new();
  n->works = drv_map_new();
  if (n->base_dir && n->digests && n->topos && n->works) return n;
  net_close(n);
oom:
  snprintf(err, errlen, "out of memory");
  return NULL;
}

/* A kind-less experiment is a network one: {"network": {...}} as the job
 * file's base gives it. */
static json_t *net_with_kind(const json_t *exp) {
  json_t *c = json_copy((json_t *)exp);
  if (c && !json_object_get(c, "kind")) json_object_set_new(c, "kind", json_string("network"));
  return c;
}

/* Appends a line to a message of several. */
static void net_more(char *err, size_t errlen, const char *line) {
  size_t used = strlen(err);
  snprintf(err + used, errlen - used, "%s%s", used ? "\n" : "", line);
}

/* Every problem of an experiment object, one line each (job_exp_parse names
 * only the first). */
static void net_problems(const net_t *n, const json_t *obj, const char *where, char *err,
                         size_t errlen) {
  char line[1024], at[512];
  const char *key, *kind = json_string_value(json_object_get(obj, "kind"));
  json_t *v, *net = json_object_get(obj, "network");
  err[0] = '\0';
  json_object_foreach((json_t *)obj, key, v) {
    if (strcmp(key, "kind") == 0 || strcmp(key, "network") == 0) continue;
    snprintf(line, sizeof line, "%s.%s: unknown member (kind, network)", where, key);
    net_more(err, errlen, line);
  }
  if (!kind || strcmp(kind, "network") != 0) {
    snprintf(line, sizeof line, "%s.kind: expected \"network\"", where);
    net_more(err, errlen, line);
  }
  snprintf(at, sizeof at, "%s.network", where);
  if (!json_is_object(net)) {
    snprintf(line, sizeof line, "%s: expected an object", at);
    net_more(err, errlen, line);
    return;
  }
  const json_t *topo = json_object_get(net, "topology"), *flows = json_object_get(net, "flows");
  if (!(json_is_string(topo) && *json_string_value(topo)) && !json_is_object(topo)) {
    snprintf(line, sizeof line, "%s.topology: expected a file name or a topology object", at);
    net_more(err, errlen, line);
  } else if (json_is_object(topo)) {
    topo_spec_t *s = malloc(sizeof *s);
    char tat[600];
    snprintf(tat, sizeof tat, "%s.topology", at);
    if (s && topo_spec_parse(topo, tat, s, line, sizeof line)) {
      /* "AT.topology: KEY: why" (a file's form) -> "AT.topology.KEY: why", a JSON path */
      size_t at_len = strlen(tat), k = 0;
      const char *rest = line + at_len + 2;
      const char *colon = strncmp(line, tat, at_len) == 0 && strncmp(line + at_len, ": ", 2) == 0
                              ? strstr(rest, ": ")
                              : NULL;
      if (colon) k = (size_t)(colon - rest);
      if (colon && k && strcspn(rest, " .[") >= k) {
        char path[4 * sizeof line];
        snprintf(path, sizeof path, "%s.%.*s%s", tat, (int)k, rest, colon);
        size_t len = strlen(path) < sizeof line ? strlen(path) : sizeof line - 1;
        memcpy(line, path, len);
        line[len] = '\0';
      }
      net_more(err, errlen, line);
    }
    free(s);
  }
  if (!json_is_string(flows) || !*json_string_value(flows)) {
    snprintf(line, sizeof line, "%s.flows: expected a flow file name", at);
    net_more(err, errlen, line);
  }
  /* Each key alone, on the experiment's cc and preset where those apply, as
   * job_params_apply takes them first: a parameter of one cc is checked
   * under that cc (cc and preset themselves on the defaults). */
  eng_params_t base = n->ps.defaults, scratch;
  const char *const first[] = {"cc", "preset"};
  for (int i = 0; i < 2; i++) {
    const json_t *fv = json_object_get(net, first[i]);
    scratch = base;
    if (fv && job_param_set_json(&n->ps, &scratch, first[i], fv, at, line, sizeof line) == 0)
      base = scratch;
  }
  json_object_foreach(net, key, v) {
    if (strcmp(key, "topology") == 0 || strcmp(key, "flows") == 0) continue;
    const int own = strcmp(key, "cc") == 0 || strcmp(key, "preset") == 0;
    scratch = own ? n->ps.defaults : base;
    if (job_param_set_json(&n->ps, &scratch, key, v, at, line, sizeof line))
      net_more(err, errlen, line);
  }
}

/* The canonical text and id of an experiment; x, parsed, is kept (job_exp_free)
 * when it gives 0. canon's return. */
static int net_ident(net_t *n, const json_t *exp, const char *where, char **canon, uint64_t *id,
                     job_exp_t *x, char *err, size_t errlen) {
  json_t *obj = net_with_kind(exp);
  *canon = NULL;
  if (!obj) {
    snprintf(err, errlen, "%s: out of memory", where);
    return -1;
  }
  int rc = job_exp_parse(&n->ps, obj, where, x, err, errlen);
  if (rc) { /* every problem, each key alone (net_problems); where only keys
             * together are refused, the parse's message */
    char *first = strdup(err);
    net_problems(n, obj, where, err, errlen);
    if (!err[0]) snprintf(err, errlen, "%s", first ? first : "out of memory");
    free(first);
  }
  json_decref(obj);
  if (rc) return -1;
  *canon = job_exp_canonical(x);
  if (!*canon) {
    snprintf(err, errlen, "%s: out of memory", where);
    rc = -1;
  } else if (job_exp_id_canon(x, *canon, n->base_dir, n->digests, id, err, errlen)) {
    *id = job_id_hash(*canon, NULL, 0);
    rc = 1;
  }
  if (rc) job_exp_free(x);
  return rc;
}

static int net_canon(void *k, const json_t *exp, const char *where, char **canon, uint64_t *id,
                     char *err, size_t errlen) {
  job_exp_t x;
  int rc = net_ident(k, exp, where, canon, id, &x, err, errlen);
  if (rc == 0) job_exp_free(&x);
  return rc;
}

/* `p` relative to the job's folder, unless absolute. */
static void net_path(const net_t *n, const char *p, char *buf, size_t len) {
  snprintf(buf, len, "%s%s%s", p[0] == '/' ? "" : n->base_dir, p[0] == '/' ? "" : "/", p);
}

/* The flow file read against topology `which` (remembered by both). */
static net_work_t *net_work(net_t *n, const job_exp_t *x, const drv_topo_t *which,
                            const topo_t *t) {
  char key[8192], path[8192], err[1024];
  snprintf(key, sizeof key, "%p\n%s", (const void *)which, x->flows_file);
  net_work_t *w = drv_map_get(n->works, key);
  if (w) return w;
  if (!(w = calloc(1, sizeof *w))) return NULL;
  net_path(n, x->flows_file, path, sizeof path);
  int format;
  if (drv_load_flows(path, t, &w->g, &format, err, sizeof err) == 0) {
    w->graph = format != TRF_FORMAT_NS3;
  } else {
    tg_free(&w->g);
    memset(&w->g, 0, sizeof w->g);
    w->error = strdup(err);
  }
  if (drv_map_put(n->works, key, w)) {
    work_release(w);
    return NULL;
  }
  return w;
}

/* Builds experiment x (its flow file's work in *wo when it has one). */
static void net_make_parsed(net_t *n, const job_exp_t *x, uint64_t id, drv_exp_t *xo,
                            net_work_t **wo) {
  xo->status = ANA_FAILED;
  drv_topo_t *t = drv_topo_cached(n->topos, x->topology_file, x->topology, n->base_dir);
  net_work_t *w = t && !t->error ? net_work(n, x, t, &t->t) : NULL;
  drv_net_own_t *own = calloc(1, sizeof *own);
  if (!t || (!t->error && !w) || !own) {
    snprintf(xo->message, sizeof xo->message, "out of memory");
    free(own);
  } else if (t->error || w->error) {
    snprintf(xo->message, sizeof xo->message, "%s", t->error ? t->error : w->error);
    free(own);
  } else {
    *own = (drv_net_own_t){.params = x->params, .topo = &t->t, .tasks = &w->g, .graph = w->graph};
    xo->own = own;
    xo->desc = (eng_exp_desc_t){
        .topo = own->topo, .tasks = own->tasks, .params = &own->params, .seed = id};
    xo->status = ANA_OK;
    if (wo) *wo = w;
  }
}

/* Builds the experiment of a canonical text. */
static void net_make(net_t *n, const char *canon, uint64_t id, drv_exp_t *xo) {
  job_exp_t x;
  char err[1024];
  json_error_t je;
  xo->status = ANA_FAILED;
  json_t *obj = json_loads(canon, 0, &je);
  if (!obj || job_exp_parse(&n->ps, obj, "experiment", &x, err, sizeof err)) {
    snprintf(xo->message, sizeof xo->message, "its canonical text does not parse: %.900s",
             obj ? err : je.text);
    json_decref(obj);
    return;
  }
  json_decref(obj);
  net_make_parsed(n, &x, id, xo, NULL);
  job_exp_free(&x);
}

static void net_build(void *k, const char *canon, uint64_t id, const char *where, drv_exp_t *xo) {
  (void)where;
  net_make(k, canon, id, xo);
}

static void net_release(void *k, drv_exp_t *x) {
  (void)k;
  free(x->own);
  x->own = NULL;
}

/* The plan's describe step of a built experiment xo (status ANA_OK or not;
 * where ANA_OK, w is its work): the experiments of a sweep share their
 * topology and flow file (read once by the kind); one whose parameters give
 * its graph the checks and features an earlier one had (drv_seen_key) is
 * sized from that one's (drv_exp_seen), any other as it is built. Releases xo. */
static void net_sized(net_t *n, net_work_t *w, drv_exp_t *xo, int64_t *mem) {
  if (xo->status != ANA_OK) {
    *mem = 0;
    net_release(n, xo);
    return;
  }
  drv_net_own_t *own = xo->own;
  drv_seen_key_t pk;
  drv_seen_key(&own->params, &pk);
  int32_t i = drv_seen_find(&w->seen, NULL, &pk);
  if (i >= 0) {
    eng_exp_desc_t d = {.topo = own->topo, .params = &own->params};
    drv_exp_seen(&d, &w->seen.seen[i], NULL, xo, mem);
  } else {
    drv_exp_size(xo, mem);
    drv_seen_insert(&w->seen, NULL, &pk, xo);
  }
  net_release(n, xo);
  memset(&xo->desc, 0, sizeof xo->desc);
}

/* canon and describe from one parse: the canonical text parses back to the
 * same experiment (job_exp_canonical), so the parsed one is described. */
static int net_canon_describe(void *k, const json_t *exp, const char *where, char **canon,
                              uint64_t *id, char *err, size_t errlen, drv_exp_t *xo, int64_t *mem) {
  job_exp_t x;
  int rc = net_ident(k, exp, where, canon, id, &x, err, errlen);
  if (rc) return rc;
  net_work_t *w = NULL;
  net_make_parsed(k, &x, *id, xo, &w);
  job_exp_free(&x);
  net_sized(k, w, xo, mem);
  return 0;
}

static const ana_col_t net_cols[] = {
#define NET_COL(n, ty, u, ln) {.name = #n, .type = ty, .units = u, .long_name = ln},
    DRV_NET_COLS(NET_COL)
#undef NET_COL
};

static void net_results(void *k, drv_exp_t *x, const eng_batch_t *b, int32_t e, ana_value_t *v) {
  (void)k;
  drv_net_results(x, b, e, v);
}

const drv_kind_t drv_kind_network = {
    .name = "network",
    .n_cols = DRV_NET_N_COLS,
    .cols = net_cols,
    .open = net_open,
    .close = net_close,
    .canon = net_canon,
    .build = net_build,
    .results = net_results,
    .canon_describe = net_canon_describe,
    .release = net_release,
};
