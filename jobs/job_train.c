/* A `training` experiment as a job file writes it ({"model", "training",
 * "cluster", "network"} or {"workload", "cluster", "network"}) read into typed
 * values (trn_exp_spec_t: every problem by its JSON path, defaults and derived
 * values filled, the topology sized to the cluster), and its canonical JSON,
 * which reads back to the same spec. */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/base_units.h"
#include "jobs/job_param_int.h"
#include "jobs/job_train.h"
#include "train/trn_et.h"

static const char *const exp_keys[] = {"kind",    "model",    "training", "cluster",
                                       "network", "workload", NULL};
static const char *const wl_keys[] = {"file", "unit_ps", "comm_groups", "flavor", "dims", NULL};
/* Members of `network` read here rather than as parameters. */
static const char *const net_own[] = {"topology", "link_gbps", "link_delay_ns", "ns3_config",
                                      NULL};

#define TRAIN_MAX_TIME_PS ((int64_t)3600 * BASE_PS_PER_S) /* an hour of simulated time */

/* The network parameters: the presets' defaults, then the experiment's keys. */
static void network(const job_train_env_t *env, const json_t *net, const char *at,
                    trn_exp_spec_t *s, trn_problems_t *pr) {
  char e[TRN_ERR_LEN];
  s->params = env->network->defaults;
  if (net && !json_is_object(net))
    trn_jproblem(pr, at, NULL, "must be an object");
  else if (net && (env->apply ? env->apply(env->apply_ctx, &s->params, net, net_own, at, e,
                                           sizeof e)
                              : job_params_apply(env->network, &s->params, net, net_own, at, e,
                                                 sizeof e)))
    trn_problem(pr, "%s", e);
  else if (eng_params_check(&s->params, e, sizeof e))
    trn_jproblem(pr, at, NULL, "%s", e);
  if (!json_object_get(net, "max_time_s")) s->params.max_time = TRAIN_MAX_TIME_PS;
}

/* A file named in the job, relative to its folder unless absolute. */
static void job_path(const job_train_env_t *env, const char *file, char *buf, size_t len) {
  if (file[0] == '/' || !env->base_dir)
    snprintf(buf, len, "%s", file);
  else
    snprintf(buf, len, "%s/%s", env->base_dir, file);
}

/* A text workload's ASTRA-sim 1.0 dimensions: workload.dims, else a torus
 * topology's dims, else the cluster's [gpus_per_server, servers]. */
static void wl_dims(const json_t *exp, const json_t *w, trn_exp_spec_t *s) {
  const json_t *topo = json_object_get(json_object_get(exp, "network"), "topology");
  const char *kind = json_string_value(json_object_get(topo, "kind"));
  const json_t *dm = json_object_get(w, "dims");
  if (!dm && kind && strcmp(kind, "torus") == 0) dm = json_object_get(topo, "dims");
  s->n_dims = 0;
  for (size_t i = 0; json_is_array(dm) && i < json_array_size(dm) && i < TRN_WL_MAX_DIMS; i++)
    s->dims[s->n_dims++] = json_integer_value(json_array_get(dm, i));
  if (s->n_dims == 0) {
    s->dims[s->n_dims++] = s->setup.cluster.gpus_per_server;
    s->dims[s->n_dims++] = s->setup.cluster.servers;
  }
}

/* workload: {"file": ..., and for a text workload "unit_ps", "flavor", "dims",
 * for a Chakra trace set "comm_groups"}, and the cluster it runs on. */
static void imported(const job_train_env_t *env, const json_t *exp, const char *where,
                     trn_exp_spec_t *s, trn_problems_t *pr) {
  const json_t *w = json_object_get(exp, "workload");
  char at[TRN_ERR_LEN];
  snprintf(at, sizeof at, "%s.workload", where);
  s->unit_ps = 1000; /* ns, as ASTRA-sim and SimAI write their times */
  if (!json_is_object(w)) {
    trn_jproblem(pr, at, NULL, "must be an object {\"file\": ...}");
  } else {
    trn_jkeys(w, wl_keys, at, pr);
    const char *file = json_string_value(json_object_get(w, "file"));
    if (!file || !*file)
      trn_jproblem(pr, at, "file", "missing (a SimAI or ASTRA-sim workload, or a Chakra trace)");
    else if (strlen(file) >= sizeof s->workload)
      trn_jproblem(pr, at, "file", "longer than %zu characters", sizeof s->workload - 1);
    else
      snprintf(s->workload, sizeof s->workload, "%s", file);
    trn_jint(w, "unit_ps", 1, (int64_t)1 << 40, &s->unit_ps, at, pr);
    const json_t *g = json_object_get(w, "comm_groups");
    if (g && (!json_is_string(g) || !*json_string_value(g) ||
              strlen(json_string_value(g)) >= sizeof s->comm_groups))
      trn_jproblem(pr, at, "comm_groups", "must be a file name (ASTRA-sim's communicator groups)");
    else if (g)
      snprintf(s->comm_groups, sizeof s->comm_groups, "%s", json_string_value(g));
    const char *fl = json_string_value(json_object_get(w, "flavor"));
    if (json_object_get(w, "flavor") &&
        (!fl || (strcmp(fl, "simai") != 0 && strcmp(fl, "astra-sim-1.0") != 0)))
      trn_jproblem(pr, at, "flavor", "must be \"simai\" or \"astra-sim-1.0\"");
    s->flavor = !fl                       ? TRN_WL_FLAVOR_AUTO
                : strcmp(fl, "simai") == 0 ? TRN_WL_FLAVOR_SIMAI
                                           : TRN_WL_FLAVOR_ASTRA;
    const json_t *dm = json_object_get(w, "dims");
    size_t nd = json_array_size(dm);
    int dims_ok = !dm || (json_is_array(dm) && nd >= 1 && nd <= TRN_WL_MAX_DIMS);
    for (size_t i = 0; dims_ok && dm && i < nd; i++)
      dims_ok = json_is_integer(json_array_get(dm, i)) &&
                json_integer_value(json_array_get(dm, i)) >= 1 &&
                json_integer_value(json_array_get(dm, i)) <= (json_int_t)1 << 20;
    if (!dims_ok)
      trn_jproblem(pr, at, "dims", "must be a list of 1 to %d sizes (ASTRA-sim 1.0's units-count)",
                   TRN_WL_MAX_DIMS);
  }
  const char *extra = json_object_get(exp, "model") ? "model"
                      : json_object_get(exp, "training") ? "training"
                                                          : NULL;
  if (extra)
    trn_jproblem(pr, where, extra,
                 "not used with workload.file (the workload gives the parallelism and times)");
  snprintf(at, sizeof at, "%s.cluster", where);
  trn_cluster_parse(json_object_get(exp, "cluster"), env->presets, at, &s->setup.cluster, pr);
  s->setup.cluster.gpus = s->setup.cluster.gpus_per_server * s->setup.cluster.servers;
  if (pr->n || !s->workload[0]) return;
  /* A Chakra trace set (a prefix, one of its files or its folder), else a text file. */
  char path[4200], prefix[4096], e[TRN_ERR_LEN];
  job_path(env, s->workload, path, sizeof path);
  int n_ranks = trn_et_find(path, prefix, sizeof prefix, e, sizeof e);
  s->chakra = n_ranks > 0;
  if (n_ranks < 0) {
    trn_problem(pr, "%s.workload.file: %s", where, e);
  } else if (s->chakra) {
    const char *no = json_object_get(w, "unit_ps")  ? "unit_ps: its times are microseconds"
                     : json_object_get(w, "flavor") ? "flavor: for text workloads"
                     : json_object_get(w, "dims")   ? "dims: for ASTRA-sim 1.0 text workloads"
                                                    : NULL;
    if (no) trn_problem(pr, "%s.workload.%s, not a Chakra trace", where, no);
  } else if (s->comm_groups[0]) {
    trn_problem(pr,
                "%s.workload.comm_groups: only for a Chakra trace set (%s is a text workload)",
                where, s->workload);
  } else {
    wl_dims(exp, w, s);
  }
}

int job_train_parse(const job_train_env_t *env, const json_t *exp, const char *where,
                    trn_exp_spec_t *s, trn_problems_t *pr) {
  char at[TRN_ERR_LEN];
  int before = pr->n;
  memset(s, 0, sizeof *s);
  if (!json_is_object(exp)) {
    trn_jproblem(pr, where, NULL, "must be an object");
    return pr->n - before;
  }
  trn_jkeys(exp, exp_keys, where, pr);
  const char *kind = json_string_value(json_object_get(exp, "kind"));
  if (json_object_get(exp, "kind") && (!kind || strcmp(kind, "training") != 0))
    trn_jproblem(pr, where, "kind", "must be \"training\"");
  /* Network parameters first: their problem (the first) leads the set-up's. */
  const json_t *net = json_object_get(exp, "network");
  snprintf(at, sizeof at, "%s.network", where);
  network(env, net, at, s, pr);
  s->imported = json_object_get(exp, "workload") != NULL;
  if (s->imported)
    imported(env, exp, where, s, pr);
  else
    trn_setup_parse(json_object_get(exp, "model"), json_object_get(exp, "training"),
                    json_object_get(exp, "cluster"), env->presets, where, &s->setup, pr);
  if (pr->n > before) return pr->n - before;
  /* Who sets overlap_slowdown: the build applies it (the cluster's factor unless
   * the network sets one; an imported workload's measured times unslowed). */
  s->overlap_net = json_object_get(net, "overlap_slowdown") != NULL;
  s->overlap_cluster = json_object_get(json_object_get(exp, "cluster"), "overlap_slowdown") != NULL;
  char e[TRN_ERR_LEN];
  if (job_train_topology(net, &s->setup.cluster, at, &s->topology, e, sizeof e))
    trn_problem(pr, "%s", e);
  return pr->n - before;
}

/* The imported workload: a Chakra trace set's file and groups, or a text
 * workload's file, time unit, dimensions and (when given) flavour. */
static json_t *workload_json(const trn_exp_spec_t *s) {
  json_t *w = json_pack("{s:s}", "file", s->workload);
  if (!w) return NULL;
  if (s->chakra) {
    if (s->comm_groups[0]) json_object_set_new(w, "comm_groups", json_string(s->comm_groups));
    return w;
  }
  json_t *dims = json_array();
  for (int i = 0; dims && i < s->n_dims; i++)
    json_array_append_new(dims, json_integer(s->dims[i]));
  json_object_set_new(w, "unit_ps", json_integer(s->unit_ps));
  json_object_set_new(w, "dims", dims);
  if (s->flavor != TRN_WL_FLAVOR_AUTO)
    json_object_set_new(w, "flavor",
                        json_string(s->flavor == TRN_WL_FLAVOR_SIMAI ? "simai" : "astra-sim-1.0"));
  return w;
}

/* The network object: every parameter (overlap_slowdown when the network gave
 * it) and the topology. */
static char *network_text(const trn_exp_spec_t *s) {
  job_member_t *m = malloc(((size_t)job_n_keys + 1) * sizeof *m);
  int n = m ? job_params_members(&s->params, m) : -1;
  char *text = NULL;
  for (int i = 0; !s->overlap_net && i < n; i++)
    if (strcmp(m[i].key, "overlap_slowdown") == 0) {
      free(m[i].value);
      m[i--] = m[--n];
    }
  if (n >= 0 && job_member_json(m, &n, "topology", topo_spec_json(&s->topology)) == 0)
    return text = job_members_object(m, n), free(m), text;
  for (int i = 0; i < n; i++)
    free(m[i].value);
  free(m);
  return NULL;
}

char *job_train_canonical(const trn_exp_spec_t *s) {
  job_member_t m[6];
  int n = 0, bad = 0;
  json_t *cl = trn_cluster_json(&s->setup.cluster);
  if (cl && s->imported && !s->overlap_cluster) json_object_del(cl, "overlap_slowdown");
  bad = bad || job_member_json(m, &n, "cluster", cl);
  bad = bad || job_member_json(m, &n, "kind", json_string("training"));
  if (s->imported) {
    bad = bad || job_member_json(m, &n, "workload", workload_json(s));
  } else {
    bad = bad || job_member_json(m, &n, "model", trn_model_json(&s->setup.model));
    bad = bad || job_member_json(m, &n, "training", trn_plan_json(&s->setup.plan));
  }
  char *net = bad ? NULL : network_text(s);
  if (!net) {
    for (int i = 0; i < n; i++)
      free(m[i].value);
    return NULL;
  }
  m[n++] = (job_member_t){"network", net};
  return job_members_object(m, n);
}

static void free_files(char **files, int n) {
  for (int i = 0; files && i < n; i++)
    free(files[i]);
  free(files);
}

/* The files a spec reads, as paths to open, in order: its topology file, then
 * its workload (a text file; or every rank file of a Chakra trace set and its
 * communicator groups). 0; 1 when a trace set cannot be found (err says why);
 * -1 out of memory. */
static int train_files(const job_train_env_t *env, const trn_exp_spec_t *s, char ***files,
                       int *n, char *err, size_t errlen) {
  char path[4200], prefix[4096], f[4200];
  int ranks = 0;
  if (s->imported && s->chakra) {
    job_path(env, s->workload, path, sizeof path);
    if ((ranks = trn_et_find(path, prefix, sizeof prefix, err, errlen)) < 0) return 1;
  }
  *n = 0;
  if (!(*files = calloc((size_t)ranks + 4, sizeof **files))) return -1;
  if (s->topology.shape == TOPO_SHAPE_FILE) {
    job_path(env, s->topology.path, path, sizeof path);
    if (!((*files)[(*n)++] = strdup(path))) return -1;
  }
  if (!s->imported) return 0;
  for (int r = 0; r < ranks; r++) {
    snprintf(f, sizeof f, "%s.%d.et", prefix, r);
    if (!((*files)[(*n)++] = strdup(f))) return -1;
  }
  job_path(env, s->chakra ? s->comm_groups : s->workload, path, sizeof path);
  if ((!s->chakra || s->comm_groups[0]) && !((*files)[(*n)++] = strdup(path))) return -1;
  return 0;
}

int job_train_ident(const job_train_env_t *env, const json_t *exp, const char *base_dir,
                    job_digests_t *cache, char **canon, uint64_t *id, char *err, size_t errlen) {
  trn_exp_spec_t *s = malloc(sizeof *s);
  trn_problems_t *pr = calloc(1, sizeof *pr);
  char **files = NULL;
  int n = 0, rc = -1, bad = 0;
  *canon = NULL;
  if (!s || !pr) goto oom;
  if (job_train_parse(env, exp, "experiment", s, pr) == 0) {
    *canon = job_train_canonical(s);
    bad = train_files(env, s, &files, &n, err, errlen);
    if (bad < 0) goto oom;
  } else { /* its build reports the problems: the text as given, in canonical form */
    json_t *c = json_copy((json_t *)exp);
    if (c && !json_object_get(c, "kind")) json_object_set_new(c, "kind", json_string("training"));
    *canon = c ? job_json_canonical(c) : NULL;
    json_decref(c);
  }
  if (!*canon) goto oom;
  rc = 0;
  (void)base_dir; /* the paths are joined to env->base_dir already */
  if (bad || job_id_files(*canon, (const char *const *)files, n, NULL, cache, id, err, errlen)) {
    *id = job_id_hash(*canon, NULL, 0); /* the experiment fails: a file it names cannot be read */
    rc = 1;
  }
  free_files(files, n);
  free(s);
  free(pr);
  return rc;
oom:
  snprintf(err, errlen, "out of memory");
  free_files(files, n);
  free(s);
  free(pr);
  return -1;
}

int job_train_build(const job_train_env_t *env, const trn_exp_env_t *tenv, const json_t *exp,
                    const char *where, uint64_t seed, trn_exp_t *x) {
  trn_exp_spec_t *s = malloc(sizeof *s);
  trn_problems_t *pr = calloc(1, sizeof *pr);
  int rc = -1;
  if (s && pr) {
    job_train_parse(env, exp, where, s, pr);
    rc = job_train_build_spec(tenv, s, pr, where, seed, x);
  }
  free(s);
  free(pr);
  return rc;
}

int job_train_build_spec(const trn_exp_env_t *tenv, const trn_exp_spec_t *s,
                         const trn_problems_t *pr, const char *where, uint64_t seed, trn_exp_t *x) {
  memset(x, 0, sizeof *x);
  if (pr->n) {
    trn_exp_problems(x, pr);
    return 0;
  }
  return trn_exp_build(tenv, s, where, seed, x);
}
