/* trn: whether a model, a plan and a cluster fit together (every problem in one
 * pass), and where Megatron places each rank. */
#include <stdio.h>
#include <string.h>

#include "train/trn_int.h"

/* The plan's own cross-key rules and those against the model. Values 0 are unknown
 * (they had a problem of their own) and skip the rules that read them. */
static void check_plan(trn_setup_t *s, const char *tr, const char *mo, trn_problems_t *pr) {
  const trn_model_t *m = &s->model;
  trn_plan_t *pl = &s->plan;
  int64_t tp = pl->tp, pp = pl->pp, v = pl->virtual_stages;
  if (tp && m->heads && m->heads % tp)
    trn_jproblem(pr, tr, "tp", "must divide %s.heads (%lld), got %lld", mo, (long long)m->heads,
                 (long long)tp);
  if (tp && m->kv_heads && m->kv_heads % tp)
    trn_jproblem(pr, tr, "tp", "must divide %s.kv_heads (%lld), got %lld", mo,
                 (long long)m->kv_heads, (long long)tp);
  if (tp && m->ffn_hidden && m->ffn_hidden % tp)
    trn_jproblem(pr, tr, "tp", "must divide %s.ffn_hidden (%lld), got %lld", mo,
                 (long long)m->ffn_hidden, (long long)tp);
  if (pp && v && m->layers && m->layers % (pp * v))
    trn_jproblem(pr, tr, "pp", "pp*virtual_stages = %lld must divide %s.layers (%lld)",
                 (long long)(pp * v), mo, (long long)m->layers);
  if (v > 1 && pp == 1)
    trn_jproblem(pr, tr, "virtual_stages", "interleaving needs pp > 1, got virtual_stages %lld",
                 (long long)v);
  if (pl->zero >= 2 && pp > 1)
    trn_jproblem(pr, tr, "zero",
                 "stages 2 and 3 do not combine with pipeline parallelism (pp = %lld), as in "
                 "DeepSpeed; use zero 0 or 1",
                 (long long)pp);
  if (pl->ep > 1 && m->experts == 1)
    trn_jproblem(pr, tr, "ep", "expert parallelism needs %s.experts > 1", mo);
  else if (pl->ep && m->experts && m->experts % pl->ep)
    trn_jproblem(pr, tr, "ep", "must divide %s.experts (%lld), got %lld", mo, (long long)m->experts,
                 (long long)pl->ep);
}

/* Rules against the cluster; fills dp when absent and the derived counts. */
static void check_cluster(trn_setup_t *s, const char *tr, const char *cl, trn_problems_t *pr,
                          int dp_given) {
  trn_plan_t *pl = &s->plan;
  trn_cluster_t *c = &s->cluster;
  int64_t tp = pl->tp, pp = pl->pp, gps = c->gpus_per_server;
  c->gpus = gps * c->servers;
  if (tp && gps && (tp > gps || gps % tp))
    trn_jproblem(pr, tr, "tp",
                 "must divide %s.gpus_per_server (%lld): a TP group stays inside one server, "
                 "got %lld",
                 cl, (long long)gps, (long long)tp);
  if (!c->gpus || !tp || !pp) return;
  if (!dp_given) {
    if (c->gpus % (tp * pp))
      trn_jproblem(pr, tr, "pp", "tp*pp = %lld must divide the cluster's %lld GPUs",
                   (long long)(tp * pp), (long long)c->gpus);
    else
      pl->dp = c->gpus / (tp * pp);
  } else if (pl->dp && tp * pp * pl->dp != c->gpus) {
    trn_jproblem(pr, tr, "dp",
                 "tp*pp*dp = %lld*%lld*%lld = %lld must equal the cluster's GPUs "
                 "(gpus_per_server*servers = %lld*%lld = %lld)",
                 (long long)tp, (long long)pp, (long long)pl->dp, (long long)(tp * pp * pl->dp),
                 (long long)gps, (long long)c->servers, (long long)c->gpus);
  }
}

/* Rules on batches and data-parallel groups (needs dp). */
static void check_batch(trn_setup_t *s, const char *tr, trn_problems_t *pr) {
  trn_plan_t *pl = &s->plan;
  int64_t dp = pl->dp;
  if (!dp) return;
  if (pl->ep && dp % pl->ep)
    trn_jproblem(pr, tr, "ep", "must divide dp (%lld), got %lld", (long long)dp, (long long)pl->ep);
  if (!pl->global_batch || !pl->micro_batch) return;
  if (pl->global_batch % (pl->micro_batch * dp)) {
    trn_jproblem(pr, tr, "global_batch", "must be a multiple of micro_batch*dp = %lld, got %lld",
                 (long long)(pl->micro_batch * dp), (long long)pl->global_batch);
    return;
  }
  pl->micro_batches = pl->global_batch / (pl->micro_batch * dp);
  if (pl->virtual_stages > 1 && pl->pp && pl->micro_batches % pl->pp)
    trn_jproblem(pr, tr, "virtual_stages",
                 "the interleaved schedule needs a multiple of pp (%lld) micro-batches per "
                 "iteration, got %lld",
                 (long long)pl->pp, (long long)pl->micro_batches);
}

/* Values the plan leaves to be derived, written out: one set-up, one spelling. */
static void derive(trn_setup_t *s) {
  trn_plan_t *pl = &s->plan;
  if (pl->bucket_params == 0 && pl->dp > 0) /* Megatron-Core's DDP */
    pl->bucket_params = 40000000 > 1000000 * pl->dp ? 40000000 : 1000000 * pl->dp;
  if (pl->memory_reserve_gb < 0 && s->cluster.gpu.name[0])
    pl->memory_reserve_gb = s->cluster.gpu.memory_reserve_gb;
}

static void check_all(trn_setup_t *s, const char *where, trn_problems_t *pr, int derive_dp) {
  char tr[TRN_ERR_LEN];
  trn_path(tr, sizeof tr, where, "training");
  check_plan(s, tr, "model", pr);
  check_cluster(s, tr, "cluster", pr, !derive_dp);
  check_batch(s, tr, pr);
  derive(s);
}

int trn_setup_check(trn_setup_t *s, const char *where, trn_problems_t *pr) {
  int before = pr->n;
  check_all(s, where, pr, s->plan.dp == 0);
  return pr->n - before;
}

int trn_setup_parse(const json_t *model, const json_t *training, const json_t *cluster,
                    const trn_presets_t *p, const char *where, trn_setup_t *s, trn_problems_t *pr) {
  int before = pr->n;
  char path[TRN_ERR_LEN];
  trn_model_parse(model, p, trn_path(path, sizeof path, where, "model"), &s->model, pr);
  trn_plan_parse(training, trn_path(path, sizeof path, where, "training"), &s->plan, pr);
  trn_cluster_parse(cluster, p, trn_path(path, sizeof path, where, "cluster"), &s->cluster, pr);
  /* dp is derived only when absent, not when it was given and bad. */
  check_all(s, where, pr, json_object_get(training, "dp") == NULL);
  return pr->n - before;
}

/* ---- placement ---- */

int64_t trn_rank(const trn_plan_t *pl, trn_coord_t c) {
  return c.tp + pl->tp * (c.dp + pl->dp * c.pp);
}

trn_coord_t trn_coord(const trn_plan_t *pl, int64_t rank) {
  trn_coord_t c;
  c.tp = rank % pl->tp;
  c.dp = rank / pl->tp % pl->dp;
  c.pp = rank / (pl->tp * pl->dp);
  c.ep = c.dp % pl->ep;
  return c;
}

int64_t trn_group_ranks(const trn_plan_t *pl, trn_group_t g, int64_t rank, int64_t *members) {
  trn_coord_t c = trn_coord(pl, rank);
  int64_t n = 0;
  switch (g) {
  case TRN_GROUP_TP:
    for (c.tp = 0; c.tp < pl->tp; c.tp++)
      members[n++] = trn_rank(pl, c);
    break;
  case TRN_GROUP_DP:
    for (c.dp = 0; c.dp < pl->dp; c.dp++)
      members[n++] = trn_rank(pl, c);
    break;
  case TRN_GROUP_PP:
    for (c.pp = 0; c.pp < pl->pp; c.pp++)
      members[n++] = trn_rank(pl, c);
    break;
  case TRN_GROUP_EP: {
    /* Consecutive data-parallel indices form an expert-parallel group. */
    int64_t first = c.dp - c.dp % pl->ep;
    for (c.dp = first; c.dp < first + pl->ep; c.dp++)
      members[n++] = trn_rank(pl, c);
    break;
  }
  }
  return n;
}
