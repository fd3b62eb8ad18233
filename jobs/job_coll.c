/* A `collective` experiment of a job file read into typed values (defaults
 * filled: the server shape from the GPU preset, the default fabric), and its
 * canonical JSON (job_coll.h). */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "jobs/job_coll.h"
#include "jobs/job_param_int.h"

static const char *const exp_keys[] = {"kind", "collective", "cluster", "network", "calibration",
                                       NULL};
static const char *const coll_keys[] = {"op",       "bytes",       "gpus", "algo",
                                        "channels", "chunk_bytes", NULL};
static const char *const cluster_keys[] = {"gpu", "gpus_per_server", "nics_per_server", "nic_gbps",
                                           NULL};

/* Keys of obj not among `known`: the first, as a problem. */
static int unknown(const json_t *obj, const char *const *known, const char *where, char *err,
                   size_t errlen) {
  const char *key;
  json_t *v;
  json_object_foreach((json_t *)obj, key, v) {
    int ok = 0;
    for (int i = 0; known[i] && !ok; i++)
      ok = strcmp(key, known[i]) == 0;
    if (!ok) {
      snprintf(err, errlen, "%s.%s: unknown key", where, key);
      return -1;
    }
  }
  return 0;
}

/* An integer key in [lo, hi] (an integral real too); def when absent. */
static int get_int(const json_t *o, const char *key, int64_t lo, int64_t hi, int64_t def,
                   int64_t *out, const char *where, char *err, size_t errlen) {
  const json_t *v = json_object_get(o, key);
  double x = v && json_is_number(v) ? json_number_value(v) : NAN;
  if (!v) {
    *out = def;
    return 0;
  }
  if (!(x == floor(x) && x >= (double)lo && x <= (double)hi)) {
    snprintf(err, errlen, "%s.%s: expected an integer from %lld to %lld", where, key,
             (long long)lo, (long long)hi);
    return -1;
  }
  *out = json_is_integer(v) ? json_integer_value(v) : (int64_t)x;
  return 0;
}

static int get_str(const json_t *o, const char *key, const char **out, const char *where,
                   char *err, size_t errlen) {
  const json_t *v = json_object_get(o, key);
  if (v && (!json_is_string(v) || !*json_string_value(v))) {
    snprintf(err, errlen, "%s.%s: expected a string", where, key);
    return -1;
  }
  *out = v ? json_string_value(v) : NULL;
  return 0;
}

static int collective(const json_t *o, const char *where, job_coll_t *c, char *err,
                      size_t errlen) {
  const char *op = NULL, *algo = NULL;
  int64_t x[4];
  if (!json_is_object(o)) {
    snprintf(err, errlen, "%s: expected an object {\"op\": ..., \"bytes\": ..., \"gpus\": ...}",
             where);
    return -1;
  }
  if (unknown(o, coll_keys, where, err, errlen) || get_str(o, "op", &op, where, err, errlen) ||
      get_str(o, "algo", &algo, where, err, errlen))
    return -1;
  if (!op || (c->op = coll_kind_parse(op)) < 0) {
    snprintf(err, errlen,
             "%s.op: expected allreduce, allgather, reducescatter, alltoall, broadcast, reduce "
             "or sendrecv",
             where);
    return -1;
  }
  if (!json_object_get(o, "bytes") || !json_object_get(o, "gpus")) {
    snprintf(err, errlen, "%s.%s: required", where, json_object_get(o, "bytes") ? "gpus" : "bytes");
    return -1;
  }
  if (get_int(o, "bytes", 1, TG_MAX_BYTES, 0, &x[0], where, err, errlen) ||
      get_int(o, "gpus", 2, 1 << 24, 0, &x[1], where, err, errlen) ||
      get_int(o, "channels", 0, 1024, 0, &x[2], where, err, errlen) ||
      get_int(o, "chunk_bytes", 0, TG_MAX_BYTES, 0, &x[3], where, err, errlen))
    return -1;
  c->bytes = (uint64_t)x[0];
  c->gpus = (int32_t)x[1];
  c->channels = (int32_t)x[2];
  c->chunk_bytes = (uint64_t)x[3];
  if (algo && strcmp(algo, "ring") && strcmp(algo, "tree")) {
    snprintf(err, errlen, "%s.algo: expected ring or tree", where);
    return -1;
  }
  c->algo = algo && strcmp(algo, "tree") == 0 ? COLL_TREE : COLL_RING;
  if (c->algo == COLL_TREE && c->op != COLL_ALLREDUCE) {
    snprintf(err, errlen, "%s.algo: tree only for allreduce", where);
    return -1;
  }
  if (c->op == COLL_SENDRECV && c->gpus != 2) {
    snprintf(err, errlen, "%s.gpus: sendrecv needs 2", where);
    return -1;
  }
  return 0;
}

/* The server shape: the keys given, else the GPU preset's server (its NICs in
 * the preset's ratio to GPUs when gpus_per_server differs from it). */
static int cluster(const trn_presets_t *tp, const json_t *o, const char *where, job_coll_t *c,
                   char *err, size_t errlen) {
  const char *gpu = NULL;
  int64_t gps, nics;
  double gbps = 0;
  if (o && !json_is_object(o)) {
    snprintf(err, errlen, "%s: expected an object", where);
    return -1;
  }
  if (o && (unknown(o, cluster_keys, where, err, errlen) ||
            get_str(o, "gpu", &gpu, where, err, errlen)))
    return -1;
  const trn_gpu_t *g = tp ? trn_preset_gpu(tp, gpu ? gpu : "h200") : NULL;
  snprintf(c->gpu, sizeof c->gpu, "%s", g ? g->name : gpu ? gpu : "h200");
  if (get_int(o, "gpus_per_server", 1, COLL_MAX_SERVER_GPUS, g ? g->gpus_per_server : 0, &gps,
              where, err, errlen) ||
      get_int(o, "nics_per_server", 1, 1024, 0, &nics, where, err, errlen))
    return -1;
  const json_t *r = json_object_get(o, "nic_gbps");
  if (r && !(json_is_number(r) && json_number_value(r) >= 1 && json_number_value(r) <= 1e6)) {
    snprintf(err, errlen, "%s.nic_gbps: expected a number from 1 to 1e6", where);
    return -1;
  }
  gbps = r ? json_number_value(r) : g ? g->nic_gbps : 0;
  if (!nics && g && gps) {
    int64_t k = gps * g->nics_per_server / g->gpus_per_server;
    nics = k > 0 ? k : 1;
  }
  if (!gps || !nics || !(gbps > 0)) {
    snprintf(err, errlen,
             "%s.gpu: %s is not a GPU of the presets (gpus.json): give gpus_per_server, "
             "nics_per_server and nic_gbps",
             where, c->gpu);
    return -1;
  }
  c->gpus_per_server = (int32_t)gps;
  c->nics_per_server = (int32_t)nics;
  c->nic_gbps = gbps;
  return 0;
}

/* The network: parameters and the topology (a file, an object, or the
 * default: rail-optimized, one group of every server, as many spines as
 * servers, every link at the NIC rate). */
static int network(const job_presets_t *ps, const json_t *net, const char *where, job_coll_t *c,
                   char *err, size_t errlen) {
  static const char *const own[] = {"topology", NULL};
  char at[1200];
  c->params = ps->defaults;
  if (net && !json_is_object(net)) {
    snprintf(err, errlen, "%s: expected an object", where);
    return -1;
  }
  if (net && job_params_apply(ps, &c->params, net, own, where, err, errlen)) return -1;
  const json_t *t = json_object_get(net, "topology");
  snprintf(at, sizeof at, "%s.topology", where);
  if (json_is_string(t) && *json_string_value(t))
    return (c->topology_file = strdup(json_string_value(t))) ? 0
                                                             : (snprintf(err, errlen, "%s: out of memory", at), -1);
  if (t && !json_is_object(t)) {
    snprintf(err, errlen, "%s: expected a file name or a topology object", at);
    return -1;
  }
  json_t *def = t ? NULL
                  : json_pack("{s:s,s:i,s:i,s:i,s:f,s:f}", "kind", "rail_optimized", "servers",
                              c->servers, "nics_per_server", c->nics_per_server, "spines",
                              c->servers, "link_gbps", c->nic_gbps, "host_gbps", c->nic_gbps);
  int rc = topo_spec_parse(t ? t : def, at, &c->topology, err, errlen);
  json_decref(def);
  return rc;
}

int job_coll_parse(const trn_presets_t *tp, const job_presets_t *ps, const json_t *exp,
                   const char *where, job_coll_t *c, char *err, size_t errlen) {
  char at[1100];
  if (strlen(where) > 1000) where = "experiment";
  const char *cal = NULL;
  memset(c, 0, sizeof *c);
  if (!json_is_object(exp)) {
    snprintf(err, errlen, "%s: expected an object {\"kind\": \"collective\", ...}", where);
    return -1;
  }
  const char *kind = json_string_value(json_object_get(exp, "kind"));
  if (unknown(exp, exp_keys, where, err, errlen)) return -1;
  if (!kind || strcmp(kind, "collective") != 0) {
    snprintf(err, errlen, "%s.kind: expected \"collective\"", where);
    return -1;
  }
  snprintf(at, sizeof at, "%s.collective", where);
  if (collective(json_object_get(exp, "collective"), at, c, err, errlen)) return -1;
  snprintf(at, sizeof at, "%s.cluster", where);
  if (cluster(tp, json_object_get(exp, "cluster"), at, c, err, errlen)) return -1;
  if (c->gpus > c->gpus_per_server && c->gpus % c->gpus_per_server) {
    snprintf(err, errlen, "%s.collective.gpus: %d spans servers of %d GPUs: it must be a multiple "
             "of %d", where, c->gpus, c->gpus_per_server, c->gpus_per_server);
    return -1;
  }
  c->servers = (c->gpus + c->gpus_per_server - 1) / c->gpus_per_server;
  c->per = c->gpus < c->gpus_per_server ? c->gpus : c->gpus_per_server;
  if (get_str(exp, "calibration", &cal, where, err, errlen)) return -1;
  if (cal) snprintf(c->calibration, sizeof c->calibration, "%s", cal);
  snprintf(at, sizeof at, "%s.network", where);
  if (network(ps, json_object_get(exp, "network"), at, c, err, errlen)) {
    job_coll_free(c);
    return -1;
  }
  return 0;
}

char *job_coll_canonical(const job_coll_t *c) {
  job_member_t top[5], *net = malloc(((size_t)job_n_keys + 1) * sizeof *net);
  int n = 0, k = net ? job_params_members(&c->params, net) : -1, bad = k < 0;
  bad = bad || job_member_json(net, &k, "topology",
                      c->topology_file ? json_string(c->topology_file)
                                       : topo_spec_json(&c->topology));
  char *net_text = bad ? NULL : job_members_object(net, k);
  if (bad)
    for (int i = 0; i < k; i++)
      free(net[i].value);
  free(net);
  if (!net_text) return NULL;
  top[n++] = (job_member_t){"network", net_text};
  bad = job_member_json(top, &n, "kind", json_string("collective")) ||
        job_member_json(top, &n, "collective",
               json_pack("{s:s,s:I,s:i,s:s,s:i,s:I}", "op", coll_name((coll_kind_t)c->op),
                         "bytes", (json_int_t)c->bytes, "gpus", c->gpus, "algo",
                         c->algo == COLL_TREE ? "tree" : "ring", "channels", c->channels,
                         "chunk_bytes", (json_int_t)c->chunk_bytes)) ||
        job_member_json(top, &n, "cluster",
               json_pack("{s:s,s:i,s:i,s:f}", "gpu", c->gpu, "gpus_per_server",
                         c->gpus_per_server, "nics_per_server", c->nics_per_server, "nic_gbps",
                         c->nic_gbps)) ||
        (c->calibration[0] && job_member_json(top, &n, "calibration", json_string(c->calibration)));
  if (bad) {
    for (int i = 0; i < n; i++)
      free(top[i].value);
    return NULL;
  }
  return job_members_object(top, n);
}

int job_coll_files(const job_coll_t *c, const char **files) {
  int n = 0;
  if (c->topology_file) files[n++] = c->topology_file;
  if (c->topology.shape == TOPO_SHAPE_FILE && !c->topology_file) files[n++] = c->topology.path;
  if (c->calibration[0]) files[n++] = c->calibration;
  return n;
}

void job_coll_free(job_coll_t *c) {
  free(c->topology_file);
  c->topology_file = NULL;
}
