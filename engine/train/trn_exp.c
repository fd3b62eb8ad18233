/* trn: one training experiment (its spec, jobs/job_train.h) built into what the
 * engine runs: memory (oom experiments stop here), the topology, the task graph
 * (generated, or imported), and the engine's validation. */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/base_err.h"
#include "train/trn_et.h"
#include "train/trn_exp_int.h"

static int invalid(trn_exp_t *x, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static int invalid(trn_exp_t *x, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  base_verrf(x->message, sizeof x->message, fmt, ap);
  va_end(ap);
  x->status = BASE_INVALID;
  return 0;
}

void trn_exp_problems(trn_exp_t *x, const trn_problems_t *pr) {
  size_t n = 0;
  x->message[0] = '\0';
  for (int i = 0; i < pr->n && i < TRN_PROBLEMS_MAX && n + 1 < sizeof x->message; i++)
    n += (size_t)snprintf(x->message + n, sizeof x->message - n, "%s%s", i ? "\n" : "", pr->msg[i]);
  if (pr->n > TRN_PROBLEMS_MAX && n + 1 < sizeof x->message)
    snprintf(x->message + n, sizeof x->message - n, "\n(%d more)", pr->n - TRN_PROBLEMS_MAX);
  x->status = BASE_INVALID;
}

/* A file named in the job, relative to its folder unless absolute. */
static void job_path(const trn_exp_env_t *env, const char *file, char *buf, size_t len) {
  if (file[0] == '/' || !env->base_dir)
    snprintf(buf, len, "%s", file);
  else
    snprintf(buf, len, "%s/%s", env->base_dir, file);
}

/* A Chakra trace set (rank files prefix.N.et) on the cluster. */
static int chakra(const trn_exp_env_t *env, const trn_exp_spec_t *s, const char *where,
                  const char *prefix, int32_t n_ranks, trn_exp_t *x) {
  char gpath[4200], e[TRN_ERR_LEN];
  if (s->comm_groups[0]) job_path(env, s->comm_groups, gpath, sizeof gpath);
  trn_et_t et;
  if (trn_et_read(prefix, n_ranks, s->comm_groups[0] ? gpath : NULL, &et, e, sizeof e))
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

/* A SimAI topology file describes the cluster: each GPU a host of its own (its NIC), as
 * many per server as its gpus_per_server, and its gpu_type (one SimAI knows: A100, A800,
 * H100, H800; it ignores others) the cluster's. */
static int simai_check(const topo_t *t, const trn_cluster_t *c, const char *at, char *err,
                       size_t errlen) {
  static const char *const known[] = {"A100", "A800", "H100", "H800"};
  if (c->gpus_per_server != t->gpus_per_server || c->nics_per_server != c->gpus_per_server) {
    snprintf(err, errlen,
             "%s: a SimAI topology of %d GPUs per server, each its own NIC: give "
             "cluster.gpus_per_server and nics_per_server %d (got %lld and %lld)",
             at, t->gpus_per_server, t->gpus_per_server, (long long)c->gpus_per_server,
             (long long)c->nics_per_server);
    return -1;
  }
  for (int i = 0; i < 4; i++) {
    if (strcmp(t->gpu_type, known[i]) != 0) continue;
    char low[8];
    for (int k = 0; k < 5; k++)
      low[k] =
          (char)(known[i][k] >= 'A' && known[i][k] <= 'Z' ? known[i][k] - 'A' + 'a' : known[i][k]);
    if (strncmp(c->gpu.name, low, 4) != 0) {
      snprintf(err, errlen, "%s: the SimAI topology is for %s GPUs, cluster.gpu is %s", at,
               t->gpu_type, c->gpu.name);
      return -1;
    }
  }
  return 0;
}

/* The topology, before the task graph: with a SimAI topology's NVSwitches the
 * collectives among GPUs of a server are flows over NVLink. It must reach every NIC
 * of the cluster. Sets x->topo_built, or makes x invalid; 0. */
static int topology(const trn_exp_env_t *env, const trn_exp_spec_t *s, const char *where,
                    trn_exp_t *x) {
  char at[TRN_ERR_LEN], e[2 * TRN_ERR_LEN];
  const trn_cluster_t *c = &x->setup.cluster;
  int64_t hosts = c->servers * c->nics_per_server;
  snprintf(at, sizeof at, "%s.network.topology", where);
  if (topo_spec_build(&s->topology, at, env->base_dir, &x->topo, e, sizeof e))
    return invalid(x, "%s", e);
  int32_t have = x->topo.n_hosts;
  if (x->topo.gpus_per_server && simai_check(&x->topo, c, at, e, sizeof e)) {
    topo_free(&x->topo);
    return invalid(x, "%s", e);
  }
  if (have < hosts) {
    topo_free(&x->topo);
    return invalid(x,
                   "%s: has %d hosts, the cluster needs %lld (servers x nics_per_server = %lld "
                   "x %lld)",
                   at, have, (long long)hosts, (long long)c->servers,
                   (long long)c->nics_per_server);
  }
  x->topo_built = 1;
  return 0;
}

/* workload.file: the imported workload on the cluster: a Chakra trace set, else a
 * SimAI / ASTRA-sim 1.0 text workload. */
static int imported(const trn_exp_env_t *env, const trn_exp_spec_t *s, const char *where,
                    trn_exp_t *x) {
  char path[4200], prefix[4096], e[TRN_ERR_LEN];
  if (topology(env, s, where, x) || x->status != BASE_OK) return 0;
  job_path(env, s->workload, path, sizeof path);
  if (s->chakra) {
    int n_ranks = trn_et_find(path, prefix, sizeof prefix, e, sizeof e);
    if (n_ranks <= 0)
      return invalid(x, "%s.workload.file: %s", where, n_ranks < 0 ? e : "not a Chakra trace set");
    return chakra(env, s, where, prefix, n_ranks, x);
  }
  trn_wl_t wl;
  if (trn_wl_read(path, s->unit_ps, &wl, e, sizeof e)) return invalid(x, "%s", e);
  const trn_cluster_t *c = &x->setup.cluster;
  int rc = 0;
  if (wl.all_gpus && wl.all_gpus != c->gpus)
    rc = invalid(x, "%s.cluster: %lld GPUs, the workload %s is for all_gpus %lld", where,
                 (long long)c->gpus, s->workload, (long long)wl.all_gpus);
  else {
    trn_gen_wl_desc_t d = {.wl = &wl,
                           .gpus = c->gpus,
                           .gpus_per_server = c->gpus_per_server,
                           .nics_per_server = c->nics_per_server,
                           .gpu = c->gpu.name,
                           .model = env->coll,
                           .sync_ps = x->params.sync,
                           .flavor = s->flavor,
                           .n_dims = s->n_dims,
                           .nvlink = x->topo.nvswitch != NULL};
    memcpy(d.dims, s->dims, sizeof d.dims);
    if (trn_gen_wl(&d, &x->graph, e, sizeof e)) rc = invalid(x, "%s: %s", path, e);
  }
  trn_wl_free(&wl);
  return rc;
}

/* The generated iteration of the set-up (memory first: an oom experiment needs no
 * topology). */
static int generated(const trn_exp_env_t *env, const trn_exp_spec_t *s, const char *where,
                     trn_exp_t *x) {
  trn_costs(&x->setup, &x->costs);
  trn_memory(&x->setup, &x->memory);
  if (x->memory.oom) {
    snprintf(x->message, sizeof x->message,
             "stage %lld needs %.2f GB of the GPU's %.2f GB (weights %.2f, gradients %.2f, "
             "optimizer %.2f, activations %.2f + %.2f, reserve %.2f)",
             (long long)x->memory.stage, x->memory.total / 1e9, x->memory.capacity / 1e9,
             x->memory.weights / 1e9, x->memory.grads / 1e9, x->memory.optimizer / 1e9,
             x->memory.activations / 1e9, x->memory.act_extra / 1e9, x->memory.reserve / 1e9);
    x->status = BASE_OOM;
    return 0;
  }
  /* The topology first: a cluster past its limits (ports, nodes, links) is refused
   * before its task graph, which grows with the square of the GPUs, is generated. */
  if (topology(env, s, where, x) || x->status != BASE_OK) return 0;
  trn_gen_desc_t d = {.setup = &x->setup,
                      .costs = &x->costs,
                      .model = env->coll,
                      .sync_ps = x->params.sync,
                      .max_tasks = env->max_tasks};
  char e[TRN_ERR_LEN];
  int rc = trn_gen(&d, &x->graph, e, sizeof e);
  if (rc == -2) { /* too large to build here: as for memory, not a mistake of the job */
    snprintf(x->message, sizeof x->message, "%s", e);
    x->status = BASE_OOM;
    return 0;
  }
  if (rc) return invalid(x, "%s: %s", where, e);
  return 0;
}

int trn_exp_build(const trn_exp_env_t *env, const trn_exp_spec_t *s, const char *where,
                  uint64_t seed, trn_exp_t *x) {
  char e[TRN_ERR_LEN];
  memset(x, 0, sizeof *x);
  x->seed = seed;
  x->status = BASE_OK;
  x->imported = s->imported;
  x->setup = s->setup;
  x->params = s->params;
  if (x->imported ? imported(env, s, where, x) : generated(env, s, where, x)) {
    if (x->topo_built) topo_free(&x->topo);
    return -1;
  }
  if (x->status != BASE_OK) {
    if (x->topo_built) topo_free(&x->topo);
    x->topo_built = 0;
    return 0;
  }
  x->gpus = x->graph.n_gpus;
  /* With traffic classes (the ns3_hpcc preset), the iteration's flows travel in class
   * 3, the priority of ns-3 HPCC's flow files. */
  for (int32_t i = 0; x->params.classes && i < x->graph.g.n; i++)
    if (x->graph.g.t[i].kind == TG_FLOW && x->graph.g.t[i].prio == 0) x->graph.g.t[i].prio = 3;
  /* Compute that overlaps communication on its GPU slows by the cluster's factor
   * (cluster.overlap_slowdown, default its GPU's) unless the network sets one; an
   * imported workload's compute times are measured: not slowed unless the cluster
   * says so (or the roofline timed some of a Chakra trace's compute nodes). */
  if (s->imported && !s->overlap_cluster && x->graph.roofline_tasks == 0)
    x->setup.cluster.overlap_slowdown = 1;
  if (!s->overlap_net) x->params.overlap_q16 = llround(x->setup.cluster.overlap_slowdown * 65536);
  eng_exp_desc_t d = trn_exp_desc(x);
  if (eng_exp_check(&d, e, sizeof e, &x->world_bytes, &x->size)) {
    trn_graph_free(&x->graph);
    topo_free(&x->topo);
    return invalid(x, "%s: %s", where, e);
  }
  return 0;
}

int64_t trn_exp_overlap_q16(const trn_exp_spec_t *s) {
  return s->overlap_net ? s->params.overlap_q16
                        : llround(s->setup.cluster.overlap_slowdown * 65536);
}

eng_exp_desc_t trn_exp_desc(const trn_exp_t *x) {
  return (eng_exp_desc_t){
      .topo = &x->topo, .tasks = &x->graph.g, .params = &x->params, .seed = x->seed};
}

void trn_exp_free(trn_exp_t *x) {
  if (x->status == BASE_OK) {
    trn_graph_free(&x->graph);
    topo_free(&x->topo);
  }
  memset(x, 0, sizeof *x);
}
