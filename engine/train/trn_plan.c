/* trn: the job file's training object (the parallelism plan) and cluster object
 * (GPU type and server shape), every key checked, defaults filled. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "base/base_units.h"
#include "train/trn_int.h"

static const char *const recompute_names[] = {"none", "selective", "full", NULL};
static const char *const dtype_names[] = {"bf16", "fp16", NULL};
static const char *const grad_dtype_names[] = {"fp32", "bf16", "fp16", NULL};
static const char *const grain_names[] = {"block", "layer", NULL};

static const char *const plan_keys[] = {"global_batch",
                                        "micro_batch",
                                        "tp",
                                        "pp",
                                        "dp",
                                        "ep",
                                        "virtual_stages",
                                        "sequence_parallel",
                                        "recompute",
                                        "zero",
                                        "dtype",
                                        "memory_reserve_gb",
                                        "op_time_us",
                                        "overlap_grad_reduce",
                                        "bucket_params",
                                        "grad_reduce_dtype",
                                        "task_grain",
                                        NULL};
static const char *const cluster_keys[] = {
    "gpu", "gpus_per_server", "servers", "nics_per_server", "nic_gbps", "overlap_slowdown", NULL};

trn_plan_t trn_plan_default(void) {
  trn_plan_t pl = {.micro_batch = 1,
                   .tp = 1,
                   .pp = 1,
                   .ep = 1,
                   .virtual_stages = 1,
                   .recompute = TRN_RECOMPUTE_NONE,
                   .dtype = TRN_BF16,
                   .memory_reserve_gb = -1,
                   .overlap_grad_reduce = 1,
                   .grad_reduce_dtype = TRN_GRAD_FP32,
                   .task_grain = TRN_GRAIN_BLOCK};
  for (int i = 0; i < TRN_OP_COUNT; i++)
    pl.op_time[i] = (trn_op_time_t){-1, -1};
  return pl;
}

/* Microseconds (0..1e9) to ps; -1 with a problem when bad. */
static int64_t read_us(const json_t *o, const char *key, const char *where, trn_problems_t *pr) {
  double us = -1;
  if (trn_jnum(o, key, 0, 1e9, &us, where, pr) <= 0) return -1;
  return llround(us * BASE_PS_PER_US);
}

/* op_time_us: {"qkv": US, "fc1": {"fwd": US, "bwd": US}, ...}: forward time of one
 * micro-batch on one GPU; backward 2x forward unless given. */
static void read_op_times(const json_t *o, const char *where, trn_plan_t *pl, trn_problems_t *pr) {
  char path[TRN_ERR_LEN];
  static const char *const time_keys[] = {"fwd", "bwd", NULL};
  const char *key;
  json_t *v;
  trn_path(path, sizeof path, where, "op_time_us");
  if (!json_is_object(o)) {
    trn_jproblem(pr, path, NULL, "must be an object of op name: microseconds");
    return;
  }
  json_object_foreach((json_t *)o, key, v) {
    int op = trn_op_find(key);
    if (op < 0) {
      char list[TRN_ERR_LEN / 2] = "";
      for (int i = 0; i < TRN_OP_COUNT; i++) {
        size_t n = strlen(list);
        snprintf(list + n, sizeof list - n, "%s%s", i ? ", " : "", trn_op_name(i));
      }
      trn_jproblem(pr, path, key, "unknown op (ops: %s)", list);
      continue;
    }
    if (json_is_number(v)) {
      int64_t fwd = read_us(o, key, path, pr);
      if (fwd >= 0) pl->op_time[op] = (trn_op_time_t){fwd, 2 * fwd};
      continue;
    }
    char opath[TRN_ERR_LEN];
    trn_path(opath, sizeof opath, path, key);
    if (!json_is_object(v) || !json_object_get(v, "fwd")) {
      trn_jproblem(pr, opath, NULL, "must be microseconds or {\"fwd\": US, \"bwd\": US}");
      continue;
    }
    trn_jkeys(v, time_keys, opath, pr);
    int64_t fwd = read_us(v, "fwd", opath, pr);
    int64_t bwd = json_object_get(v, "bwd") ? read_us(v, "bwd", opath, pr) : 2 * fwd;
    if (fwd >= 0 && bwd >= 0) pl->op_time[op] = (trn_op_time_t){fwd, bwd};
  }
}

static void read_int(const json_t *o, const char *key, int64_t min, int64_t max, int64_t *out,
                     const char *where, trn_problems_t *pr) {
  if (trn_jint(o, key, min, max, out, where, pr) < 0) *out = 0;
}

int trn_plan_parse(const json_t *o, const char *where, trn_plan_t *pl, trn_problems_t *pr) {
  int before = pr->n;
  int64_t zero = 0;
  *pl = trn_plan_default();
  if (!o) {
    trn_jproblem(pr, where, NULL, "missing (needs at least global_batch)");
    return pr->n - before;
  }
  if (!json_is_object(o)) {
    trn_jproblem(pr, where, NULL, "must be an object");
    return pr->n - before;
  }
  trn_jkeys(o, plan_keys, where, pr);
  if (!json_object_get(o, "global_batch"))
    trn_jproblem(pr, where, "global_batch", "missing (sequences per iteration)");
  read_int(o, "global_batch", 1, TRN_MAX_DIM, &pl->global_batch, where, pr);
  read_int(o, "micro_batch", 1, TRN_MAX_DIM, &pl->micro_batch, where, pr);
  read_int(o, "tp", 1, TRN_MAX_COUNT, &pl->tp, where, pr);
  read_int(o, "pp", 1, TRN_MAX_COUNT, &pl->pp, where, pr);
  read_int(o, "dp", 1, TRN_MAX_COUNT, &pl->dp, where, pr);
  read_int(o, "ep", 1, TRN_MAX_COUNT, &pl->ep, where, pr);
  read_int(o, "virtual_stages", 1, TRN_MAX_COUNT, &pl->virtual_stages, where, pr);
  trn_jbool(o, "sequence_parallel", &pl->sequence_parallel, where, pr);
  trn_jenum(o, "recompute", recompute_names, &pl->recompute, where, pr);
  if (trn_jint(o, "zero", 0, 3, &zero, where, pr) > 0) pl->zero = (int32_t)zero;
  trn_jenum(o, "dtype", dtype_names, &pl->dtype, where, pr);
  trn_jnum(o, "memory_reserve_gb", 0, 1e6, &pl->memory_reserve_gb, where, pr);
  trn_jbool(o, "overlap_grad_reduce", &pl->overlap_grad_reduce, where, pr);
  read_int(o, "bucket_params", 0, (int64_t)1 << 50, &pl->bucket_params, where, pr);
  trn_jenum(o, "grad_reduce_dtype", grad_dtype_names, &pl->grad_reduce_dtype, where, pr);
  trn_jenum(o, "task_grain", grain_names, &pl->task_grain, where, pr);
  if (json_object_get(o, "op_time_us"))
    read_op_times(json_object_get(o, "op_time_us"), where, pl, pr);
  return pr->n - before;
}

int trn_cluster_parse(const json_t *o, const trn_presets_t *p, const char *where, trn_cluster_t *c,
                      trn_problems_t *pr) {
  int before = pr->n;
  char name[TRN_NAME_LEN] = "";
  memset(c, 0, sizeof *c);
  if (!o) {
    trn_jproblem(pr, where, NULL, "missing (needs gpu and servers)");
    return pr->n - before;
  }
  if (!json_is_object(o)) {
    trn_jproblem(pr, where, NULL, "must be an object");
    return pr->n - before;
  }
  trn_jkeys(o, cluster_keys, where, pr);
  if (!json_object_get(o, "gpu")) trn_jproblem(pr, where, "gpu", "missing (a GPU preset)");
  if (trn_jstr(o, "gpu", name, sizeof name, where, pr) > 0) {
    const trn_gpu_t *g = p ? trn_preset_gpu(p, name) : NULL;
    if (g) {
      c->gpu = *g;
      c->gpus_per_server = g->gpus_per_server;
      c->nics_per_server = g->nics_per_server;
      c->nic_gbps = g->nic_gbps;
      c->overlap_slowdown = g->overlap_slowdown;
    } else {
      char list[TRN_ERR_LEN / 2] = "";
      for (int32_t i = 0; p && i < p->n_gpus; i++) {
        size_t n = strlen(list);
        snprintf(list + n, sizeof list - n, "%s%s", i ? ", " : "", p->gpus[i].name);
      }
      trn_jproblem(pr, where, "gpu", "unknown GPU \"%s\" (presets: %s)", name, list);
    }
  }
  if (!json_object_get(o, "servers")) trn_jproblem(pr, where, "servers", "missing");
  read_int(o, "servers", 1, TRN_MAX_COUNT, &c->servers, where, pr);
  read_int(o, "gpus_per_server", 1, 1024, &c->gpus_per_server, where, pr);
  read_int(o, "nics_per_server", 1, 1024, &c->nics_per_server, where, pr);
  if (trn_jnum(o, "nic_gbps", 1, 1e6, &c->nic_gbps, where, pr) < 0) c->nic_gbps = 0;
  if (trn_jnum(o, "overlap_slowdown", 1, 10, &c->overlap_slowdown, where, pr) < 0)
    c->overlap_slowdown = 0;
  return pr->n - before;
}

/* op_time_us of the ops the job timed: {"qkv": {"fwd": US, "bwd": US}, ...}. */
static json_t *op_times_json(const trn_plan_t *pl) {
  json_t *o = json_object();
  for (int i = 0; o && i < TRN_OP_COUNT; i++) {
    const trn_op_time_t *t = &pl->op_time[i];
    if (t->fwd_ps < 0) continue;
    json_t *v = json_pack("{s:f,s:f}", "fwd", (double)t->fwd_ps / BASE_PS_PER_US, "bwd",
                          (double)t->bwd_ps / BASE_PS_PER_US);
    if (!v || json_object_set_new(o, trn_op_name(i), v)) {
      json_decref(o);
      return NULL;
    }
  }
  return o;
}

json_t *trn_plan_json(const trn_plan_t *pl) {
  json_t *ops = op_times_json(pl);
  if (!ops) return NULL;
  return json_pack("{s:I,s:I,s:I,s:I,s:I,s:I,s:I,s:b,s:s,s:i,s:s,s:f,s:b,s:I,s:s,s:s,s:o}",
                   "global_batch", (json_int_t)pl->global_batch, "micro_batch",
                   (json_int_t)pl->micro_batch, "tp", (json_int_t)pl->tp, "pp", (json_int_t)pl->pp,
                   "dp", (json_int_t)pl->dp, "ep", (json_int_t)pl->ep, "virtual_stages",
                   (json_int_t)pl->virtual_stages, "sequence_parallel", pl->sequence_parallel,
                   "recompute", recompute_names[pl->recompute], "zero", pl->zero, "dtype",
                   dtype_names[pl->dtype], "memory_reserve_gb", pl->memory_reserve_gb,
                   "overlap_grad_reduce", pl->overlap_grad_reduce, "bucket_params",
                   (json_int_t)pl->bucket_params, "grad_reduce_dtype",
                   grad_dtype_names[pl->grad_reduce_dtype], "task_grain",
                   grain_names[pl->task_grain], "op_time_us", ops);
}

json_t *trn_cluster_json(const trn_cluster_t *c) {
  return json_pack("{s:s,s:I,s:I,s:I,s:f,s:f}", "gpu", c->gpu.name, "servers",
                   (json_int_t)c->servers, "gpus_per_server", (json_int_t)c->gpus_per_server,
                   "nics_per_server", (json_int_t)c->nics_per_server, "nic_gbps", c->nic_gbps,
                   "overlap_slowdown", c->overlap_slowdown);
}
