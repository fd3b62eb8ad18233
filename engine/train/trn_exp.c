/* trn: one training experiment of a job file built into what the engine runs: the
 * set-up (every problem with its JSON path), memory (oom experiments stop here),
 * network parameters, the topology, and the task graph (generated, or imported). */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "train/trn_exp_int.h"

const char *const trn_exp_network_keys[] = {"topology", "link_gbps", "link_delay_ns", NULL};

static const char *const exp_keys[] = {"kind",    "model",    "training", "cluster",
                                       "network", "workload", NULL};
static const char *const wl_keys[] = {"file", "unit_ps", "comm_groups", "flavor", "dims", NULL};

static int invalid(trn_exp_t *x, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static int invalid(trn_exp_t *x, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(x->message, sizeof x->message, fmt, ap);
  va_end(ap);
  x->status = TRN_EXP_INVALID;
  return 0;
}

/* The problems, one per line. */
static int problems(trn_exp_t *x, const trn_problems_t *pr) {
  size_t n = 0;
  x->message[0] = '\0';
  for (int i = 0; i < pr->n && i < TRN_PROBLEMS_MAX && n + 1 < sizeof x->message; i++)
    n += (size_t)snprintf(x->message + n, sizeof x->message - n, "%s%s", i ? "\n" : "", pr->msg[i]);
  if (pr->n > TRN_PROBLEMS_MAX && n + 1 < sizeof x->message)
    snprintf(x->message + n, sizeof x->message - n, "\n(%d more)", pr->n - TRN_PROBLEMS_MAX);
  x->status = TRN_EXP_INVALID;
  return 0;
}

/* A path relative to the job file's folder. */
static void rel(const trn_exp_env_t *env, const char *file, char *path, size_t len) {
  if (file[0] == '/' || !env->base_dir)
    snprintf(path, len, "%s", file);
  else
    snprintf(path, len, "%s/%s", env->base_dir, file);
}

/* A Chakra trace set (rank files prefix.N.et) on the cluster. */
static int chakra(const trn_exp_env_t *env, const json_t *w, const char *where, const char *prefix,
                  int32_t n_ranks, trn_exp_t *x) {
  const char *groups = json_string_value(json_object_get(w, "comm_groups"));
  char gpath[4096], e[TRN_ERR_LEN];
  if (groups) rel(env, groups, gpath, sizeof gpath);
  trn_et_t et;
  if (trn_et_read(prefix, n_ranks, groups ? gpath : NULL, &et, e, sizeof e))
    return invalid(x, "%s.workload: %s", where, e);
  const trn_cluster_t *c = &x->setup.cluster;
  trn_gen_et_desc_t d = {.et = &et,
                         .gpus = c->gpus,
                         .gpus_per_server = c->gpus_per_server,
                         .nics_per_server = c->nics_per_server,
                         .gpu = c->gpu.name,
                         .gpu_spec = &c->gpu,
                         .model = env->coll,
                         .sync_ps = x->params.sync,
                         .nvlink = x->topo.nvswitch != NULL};
  int rc = trn_gen_et(&d, &x->graph, e, sizeof e) ? invalid(x, "%s.workload: %s", where, e) : 0;
  trn_et_free(&et);
  return rc;
}

/* workload.flavor and ASTRA-sim 1.0's dimensions: workload.dims, else a torus
 * topology's dims, else the cluster's [gpus_per_server, servers]. */
static void wl_dims(const json_t *exp, const trn_cluster_t *c, trn_gen_wl_desc_t *d) {
  const json_t *w = json_object_get(exp, "workload");
  const char *fl = json_string_value(json_object_get(w, "flavor"));
  d->flavor = !fl                        ? TRN_WL_FLAVOR_AUTO
              : strcmp(fl, "simai") == 0 ? TRN_WL_FLAVOR_SIMAI
                                         : TRN_WL_FLAVOR_ASTRA;
  const json_t *topo = json_object_get(json_object_get(exp, "network"), "topology");
  const char *kind = json_string_value(json_object_get(topo, "kind"));
  const json_t *dm = json_object_get(w, "dims");
  if (!dm && kind && strcmp(kind, "torus") == 0) dm = json_object_get(topo, "dims");
  d->n_dims = 0;
  for (size_t i = 0; json_is_array(dm) && i < json_array_size(dm) && i < TRN_WL_MAX_DIMS; i++)
    d->dims[d->n_dims++] = json_integer_value(json_array_get(dm, i));
  if (d->n_dims == 0) {
    d->dims[d->n_dims++] = c->gpus_per_server;
    d->dims[d->n_dims++] = c->servers;
  }
}

/* workload.file: the imported workload on the cluster: a Chakra trace set (a prefix,
 * one of its files or its folder), else a SimAI / ASTRA-sim 1.0 text workload. */
static int imported(const trn_exp_env_t *env, const json_t *exp, const char *where, trn_exp_t *x,
                    trn_problems_t *problems_so_far) {
  const json_t *w = json_object_get(exp, "workload");
  char at[TRN_ERR_LEN], path[4096], e[TRN_ERR_LEN], prefix[4096];
  trn_problems_t pr = *problems_so_far;
  int64_t unit = 0;
  snprintf(at, sizeof at, "%s.workload", where);
  const char *file = json_string_value(json_object_get(w, "file"));
  const json_t *cl = json_object_get(exp, "cluster");
  if (!json_is_object(w)) {
    trn_jproblem(&pr, at, NULL, "must be an object {\"file\": ...}");
  } else {
    trn_jkeys(w, wl_keys, at, &pr);
    if (!file || !*file)
      trn_jproblem(&pr, at, "file", "missing (a SimAI or ASTRA-sim workload, or a Chakra trace)");
    trn_jint(w, "unit_ps", 1, (int64_t)1 << 40, &unit, at, &pr);
    const json_t *g = json_object_get(w, "comm_groups");
    if (g && (!json_is_string(g) || !*json_string_value(g)))
      trn_jproblem(&pr, at, "comm_groups", "must be a file name (ASTRA-sim's communicator groups)");
    const char *fl = json_string_value(json_object_get(w, "flavor"));
    if (json_object_get(w, "flavor") &&
        (!fl || (strcmp(fl, "simai") != 0 && strcmp(fl, "astra-sim-1.0") != 0)))
      trn_jproblem(&pr, at, "flavor", "must be \"simai\" or \"astra-sim-1.0\"");
    const json_t *dm = json_object_get(w, "dims");
    size_t nd = json_array_size(dm);
    int dims_ok = !dm || (json_is_array(dm) && nd >= 1 && nd <= TRN_WL_MAX_DIMS);
    for (size_t i = 0; dims_ok && dm && i < nd; i++)
      dims_ok = json_is_integer(json_array_get(dm, i)) &&
                json_integer_value(json_array_get(dm, i)) >= 1 &&
                json_integer_value(json_array_get(dm, i)) <= TRN_MAX_COUNT;
    if (!dims_ok)
      trn_jproblem(&pr, at, "dims", "must be a list of 1 to %d sizes (ASTRA-sim 1.0's units-count)",
                   TRN_WL_MAX_DIMS);
  }
  if (json_object_get(exp, "model") || json_object_get(exp, "training"))
    trn_jproblem(&pr, where, json_object_get(exp, "model") ? "model" : "training",
                 "not used with workload.file (the workload gives the parallelism and times)");
  snprintf(at, sizeof at, "%s.cluster", where);
  trn_cluster_parse(cl, env->presets, at, &x->setup.cluster, &pr);
  if (pr.n) return problems(x, &pr);
  x->setup.cluster.gpus = x->setup.cluster.gpus_per_server * x->setup.cluster.servers;
  /* The topology first: with a SimAI topology's NVSwitches, the collectives among GPUs
   * of a server are flows over NVLink. */
  snprintf(at, sizeof at, "%s.network", where);
  if (trn_exp_topology(json_object_get(exp, "network"), &x->setup.cluster, at, env->base_dir,
                       &x->topo, e, sizeof e))
    return invalid(x, "%s", e);
  x->topo_built = 1;
  rel(env, file, path, sizeof path);
  int n_ranks = trn_et_find(path, prefix, sizeof prefix, e, sizeof e);
  if (n_ranks < 0) return invalid(x, "%s.workload.file: %s", where, e);
  int rc = 0;
  if (n_ranks > 0) {
    const char *no = json_object_get(w, "unit_ps")  ? "unit_ps: its times are microseconds"
                     : json_object_get(w, "flavor") ? "flavor: for text workloads"
                     : json_object_get(w, "dims")   ? "dims: for ASTRA-sim 1.0 text workloads"
                                                    : NULL;
    if (no) return invalid(x, "%s.workload.%s, not a Chakra trace", where, no);
    rc = chakra(env, w, where, prefix, n_ranks, x);
  } else {
    if (json_object_get(w, "comm_groups"))
      return invalid(x,
                     "%s.workload.comm_groups: only for a Chakra trace set (%s is a text "
                     "workload)",
                     where, file);
    trn_gen_wl_desc_t d = {0};
    wl_dims(exp, &x->setup.cluster, &d);
    trn_wl_t wl;
    if (trn_wl_read(path, unit, &wl, e, sizeof e)) return invalid(x, "%s", e);
    const trn_cluster_t *c = &x->setup.cluster;
    if (wl.all_gpus && wl.all_gpus != c->gpus)
      rc = invalid(x, "%s.cluster: %lld GPUs, the workload %s is for all_gpus %lld", where,
                   (long long)c->gpus, file, (long long)wl.all_gpus);
    else {
      d.wl = &wl;
      d.gpus = c->gpus;
      d.gpus_per_server = c->gpus_per_server;
      d.nics_per_server = c->nics_per_server;
      d.gpu = c->gpu.name;
      d.model = env->coll;
      d.sync_ps = x->params.sync;
      d.nvlink = x->topo.nvswitch != NULL;
      if (trn_gen_wl(&d, &x->graph, e, sizeof e)) rc = invalid(x, "%s: %s", path, e);
    }
    trn_wl_free(&wl);
  }
  /* The workload's compute times are measured: not slowed by overlapping
   * communication unless cluster.overlap_slowdown says so (or the roofline timed some
   * of a Chakra trace's compute nodes). */
  if (rc == 0 && x->status == TRN_EXP_RUN && !json_object_get(cl, "overlap_slowdown") &&
      x->graph.roofline_tasks == 0)
    x->setup.cluster.overlap_slowdown = 1;
  return rc;
}

/* The generated iteration of the model, training and cluster objects. */
static int generated(const trn_exp_env_t *env, const json_t *exp, const char *where, trn_exp_t *x,
                     trn_problems_t *pr) {
  trn_setup_parse(json_object_get(exp, "model"), json_object_get(exp, "training"),
                  json_object_get(exp, "cluster"), env->presets, where, &x->setup, pr);
  if (pr->n) return problems(x, pr);
  trn_costs(&x->setup, &x->costs);
  trn_memory(&x->setup, &x->memory);
  if (x->memory.oom) {
    snprintf(x->message, sizeof x->message,
             "stage %lld needs %.2f GB of the GPU's %.2f GB (weights %.2f, gradients %.2f, "
             "optimizer %.2f, activations %.2f + %.2f, reserve %.2f)",
             (long long)x->memory.stage, x->memory.total / 1e9, x->memory.capacity / 1e9,
             x->memory.weights / 1e9, x->memory.grads / 1e9, x->memory.optimizer / 1e9,
             x->memory.activations / 1e9, x->memory.act_extra / 1e9, x->memory.reserve / 1e9);
    x->status = TRN_EXP_OOM;
    return 0;
  }
  /* The topology first: a cluster past its limits (ports, nodes, links) is refused
   * before its task graph, which grows with the square of the GPUs, is generated. */
  char e[TRN_ERR_LEN], at[TRN_ERR_LEN];
  snprintf(at, sizeof at, "%s.network", where);
  if (trn_exp_topology(json_object_get(exp, "network"), &x->setup.cluster, at, env->base_dir,
                       &x->topo, e, sizeof e))
    return invalid(x, "%s", e);
  x->topo_built = 1;
  trn_gen_desc_t d = {.setup = &x->setup,
                      .costs = &x->costs,
                      .model = env->coll,
                      .sync_ps = x->params.sync,
                      .max_tasks = env->max_tasks};
  int rc = trn_gen(&d, &x->graph, e, sizeof e);
  if (rc == -2) { /* too large to build here: as for memory, not a mistake of the job */
    snprintf(x->message, sizeof x->message, "%s", e);
    x->status = TRN_EXP_OOM;
    return 0;
  }
  if (rc) return invalid(x, "%s: %s", where, e);
  return 0;
}

int trn_exp_build(const trn_exp_env_t *env, const json_t *exp, const char *where, uint64_t seed,
                  trn_exp_t *x) {
  char at[TRN_ERR_LEN], e[TRN_ERR_LEN];
  trn_problems_t pr = {0};
  memset(x, 0, sizeof *x);
  x->seed = seed;
  x->status = TRN_EXP_RUN;
  if (!json_is_object(exp)) return invalid(x, "%s: must be an object", where);
  trn_jkeys(exp, exp_keys, where, &pr);
  const char *kind = json_string_value(json_object_get(exp, "kind"));
  if (json_object_get(exp, "kind") && (!kind || strcmp(kind, "training") != 0))
    trn_jproblem(&pr, where, "kind", "must be \"training\"");

  /* Network parameters first: the task graph needs sync. Their problem (the first)
   * is reported with the set-up's. */
  const json_t *net = json_object_get(exp, "network");
  snprintf(at, sizeof at, "%s.network", where);
  x->params = *env->defaults;
  if (net && !json_is_object(net))
    trn_jproblem(&pr, at, NULL, "must be an object");
  else if (net &&
           env->apply(env->apply_ctx, &x->params, net, trn_exp_network_keys, at, e, sizeof e))
    trn_problem(&pr, "%s", e);
  else if (eng_params_check(&x->params, e, sizeof e))
    trn_jproblem(&pr, at, NULL, "%s", e);
  if (!net || !json_object_get(net, "max_time_s"))
    x->params.max_time = (int64_t)3600 * 1000000000000; /* an hour of simulated time */

  x->imported = json_object_get(exp, "workload") != NULL;
  if (x->imported ? imported(env, exp, where, x, &pr) : generated(env, exp, where, x, &pr))
    return -1;
  if (x->status != TRN_EXP_RUN) {
    if (x->topo_built) topo_free(&x->topo);
    return 0;
  }
  x->gpus = x->graph.n_gpus;
  /* With traffic classes (the ns3_hpcc preset), the iteration's flows travel in class
   * 3, the priority of ns-3 HPCC's flow files. */
  for (int32_t i = 0; x->params.classes && i < x->graph.g.n; i++)
    if (x->graph.g.t[i].kind == TG_FLOW && x->graph.g.t[i].prio == 0) x->graph.g.t[i].prio = 3;
  /* Compute that overlaps communication on its GPU slows by the cluster's factor
   * (cluster.overlap_slowdown, default its GPU's) unless the network sets one. */
  if (!net || !json_object_get(net, "overlap_slowdown"))
    x->params.overlap_q16 = llround(x->setup.cluster.overlap_slowdown * 65536);
  if (!x->topo_built &&
      trn_exp_topology(net, &x->setup.cluster, at, env->base_dir, &x->topo, e, sizeof e)) {
    trn_graph_free(&x->graph);
    return invalid(x, "%s", e);
  }
  eng_exp_desc_t d = trn_exp_desc(x);
  if (eng_exp_validate(&d, e, sizeof e)) {
    trn_graph_free(&x->graph);
    topo_free(&x->topo);
    return invalid(x, "%s: %s", where, e);
  }
  return 0;
}

eng_exp_desc_t trn_exp_desc(const trn_exp_t *x) {
  return (eng_exp_desc_t){
      .topo = &x->topo, .tasks = &x->graph.g, .params = &x->params, .seed = x->seed};
}

void trn_exp_free(trn_exp_t *x) {
  if (x->status == TRN_EXP_RUN) {
    trn_graph_free(&x->graph);
    topo_free(&x->topo);
  }
  memset(x, 0, sizeof *x);
}
