/* trn: data-parallel collectives in launch order on each GPU's communication stream
 * (each waits for its trigger on the compute stream and for the GPU's previous one),
 * then the iteration's end as Megatron-LM finalizes gradients: wait for the
 * reductions, all-reduce the norms' gradients over the TP group (sequence
 * parallelism) and the tied embedding's between the first and last stage, the
 * optimizer step, and ZeRO's parameter all-gathers. */
#include <stdio.h>
#include <stdlib.h>

#include "train/trn_gen_int.h"

/* Bytes the optimizer step moves per parameter it updates, as Megatron-LM's mixed-
 * precision optimizer runs it: the gradients' norm reads the fp32 gradient (4); Adam
 * reads the gradient, master weight, momentum and variance and writes the last three
 * (28); the master weight is copied into the bf16 weight (read 4, write 2); the
 * gradient buffer is zeroed (4). Our estimate (clipping, which rescales gradients
 * only when the norm exceeds its limit, left out). */
#define TRN_ADAM_BYTES 42.0

/* The collectives of launch k of rank r: the dense parameters over the data-
 * parallel group of each TP rank, the experts' over their expert-data-parallel
 * group (experts of one EP rank: data-parallel indices equal modulo ep). */
static int launch_colls(trn_gb_t *b, int64_t r, int32_t k) {
  const trn_launch_t *l = &b->launch[r][k];
  const trn_plan_t *pl = &b->s->plan;
  int gath = l->what == TRN_W_GATH;
  coll_kind_t kind = gath ? COLL_ALLGATHER : pl->zero >= 1 ? COLL_REDUCESCATTER : COLL_ALLREDUCE;
  uint64_t elem =
      gath || pl->grad_reduce_dtype != TRN_GRAD_FP32 ? (uint64_t)trn_dtype_bytes(pl->dtype) : 4;
  int64_t dense = l->dense, expert = l->expert, ep = b->ep;
  if (ep == 1) { /* experts replicated over the whole data-parallel group */
    dense += expert;
    expert = 0;
  }
  trn_meta_t m = {TRN_CAT_DP, l->what, (int16_t)l->chunk, -1, l->bucket};
  int32_t *mem = malloc(3 * (size_t)b->dp * sizeof *mem);
  if (!mem) {
    snprintf(b->err, b->errlen, "out of memory");
    return -1;
  }
  int32_t *after = mem + b->dp, *done = after + b->dp;
  int rc = 0;
  for (int pass = 0; pass < 2 && !rc; pass++) {
    int64_t params = pass ? expert : dense, groups = pass ? ep : 1, size = b->dp / groups;
    if (params <= 0 || size < 2) continue;
    for (int64_t t = 0; t < b->t && !rc; t++)
      for (int64_t e = 0; e < groups && !rc; e++) {
        for (int64_t i = 0; i < size && !rc; i++) {
          int32_t g = trn_gb_gpu(b, t, e + i * groups, r);
          mem[i] = g;
          rc = trn_gb_join2(b, g, b->gb[g].trig[k], b->gb[g].dp_done, &after[i]);
        }
        if (!rc)
          rc = trn_gb_coll(b, kind, (uint64_t)params * elem, (int32_t)size, mem, after, done,
                           TRN_CAT_DP, m);
        for (int64_t i = 0; i < size && !rc; i++) {
          trn_gpu_b_t *g = &b->gb[mem[i]];
          g->dp_done = done[i];
          if (g->waiter[k] >= 0) rc = trn_gb_edge(b, g->waiter[k], done[i], TG_ON_END);
        }
      }
  }
  free(mem);
  return rc;
}

static int all_launches(trn_gb_t *b, int32_t *from) {
  for (int64_t r = 0; r < b->p; r++) {
    for (int32_t k = from[r]; k < b->n_launch[r]; k++)
      if (launch_colls(b, r, k)) return -1;
    from[r] = b->n_launch[r];
  }
  return 0;
}

/* A join on each GPU's stream after its last data-parallel collective. */
static int wait_dp(trn_gb_t *b) {
  trn_meta_t m = {TRN_CAT_SYNC, TRN_W_RED, -1, -1, -1};
  for (int32_t g = 0; g < b->gpus; g++) {
    trn_gpu_b_t *x = &b->gb[g];
    if (x->dp_done < 0) continue;
    int32_t j = trn_gb_task(b, TG_JOIN, g, 0, 1, m);
    if (j < 0 || trn_gb_edge(b, j, x->dp_done, TG_ON_END)) return -1;
    x->last = j;
  }
  return 0;
}

/* Gradients of the norms (sequence parallelism), then of the tied embedding. */
static int finalize(trn_gb_t *b, int32_t *emb_done) {
  const trn_setup_t *s = b->s;
  int32_t per = (int32_t)(b->t * b->dp);
  int32_t *last = malloc((size_t)b->gpus * sizeof *last);
  if (!last) {
    snprintf(b->err, b->errlen, "out of memory");
    return -1;
  }
  for (int32_t g = 0; g < b->gpus; g++) {
    last[g] = b->gb[g].last;
    emb_done[g] = -1;
  }
  trn_meta_t m = {TRN_CAT_TP, TRN_W_NORM, -1, -1, -1};
  int rc = 0;
  if (b->tm.norm_ar_ps > 0)
    for (int64_t r = 0; r < b->p && !rc; r++)
      rc = trn_gen_tp_step(b, (int32_t)r * per, per, last + r * per, NULL, b->tm.norm_ar_ps, m);
  if (!rc && s->model.tied_embeddings && b->p > 1) {
    uint64_t elem = s->plan.grad_reduce_dtype == TRN_GRAD_FP32 ? 4 : 2;
    uint64_t bytes = (uint64_t)(trn_ceil_div(s->model.vocab, b->t) * s->model.hidden) * elem;
    trn_meta_t e = {TRN_CAT_DP, TRN_W_EMB, -1, -1, -1};
    for (int64_t d = 0; d < b->dp && !rc; d++)
      for (int64_t t = 0; t < b->t && !rc; t++) {
        int32_t gpus[2] = {trn_gb_gpu(b, t, d, 0), trn_gb_gpu(b, t, d, b->p - 1)}, done[2];
        int32_t after[2] = {b->gb[gpus[0]].last, b->gb[gpus[1]].last};
        rc = trn_gb_coll(b, COLL_ALLREDUCE, bytes, 2, gpus, after, done, TRN_CAT_DP, e);
        if (!rc) {
          emb_done[gpus[0]] = done[0];
          emb_done[gpus[1]] = done[1];
        }
      }
  }
  free(last);
  return rc;
}

/* The optimizer step of each GPU, and the gathers of ZeRO stages 1 and 2 after it
 * (bucket by bucket, chunk by chunk). */
static int optimizer(trn_gb_t *b, const int32_t *emb_done, int32_t *from) {
  const trn_plan_t *pl = &b->s->plan;
  int32_t per = (int32_t)(b->t * b->dp), lc = (int32_t)(b->s->model.layers / (b->p * b->v));
  int32_t *bucket_of = malloc(((size_t)lc + 2) * sizeof *bucket_of);
  int64_t *dense = malloc(2 * ((size_t)lc + 3) * sizeof *dense);
  int rc = -1;
  if (!bucket_of || !dense) {
    snprintf(b->err, b->errlen, "out of memory");
    goto done;
  }
  int64_t *expert = dense + lc + 3;
  for (int64_t r = 0; r < b->p; r++) {
    trn_stage_params_t sp = trn_stage_params(b->s, r);
    double local = (double)sp.dense / (pl->zero >= 1 ? (double)b->dp : 1) +
                   (double)sp.expert / (pl->zero >= 1 ? (double)(b->dp / b->ep) : 1);
    int64_t ps = trn_op_time_ps(&b->s->cluster.gpu, 0, local * TRN_ADAM_BYTES, 0);
    trn_meta_t m = {TRN_CAT_COMPUTE, TRN_W_OPT, -1, -1, -1};
    for (int32_t i = 0; i < per; i++) {
      int32_t g = (int32_t)r * per + i;
      int32_t k = trn_gb_task(b, TG_COMPUTE, g, ps, 1, m);
      if (k < 0 || trn_gb_edge(b, k, emb_done[g], TG_ON_END)) goto done;
      b->gb[g].last = k;
    }
    if (pl->zero < 1 || pl->zero > 2) continue;
    for (int64_t c = 0; c < b->v; c++) {
      int64_t vs = c * b->p + r;
      int32_t nb = trn_gen_buckets(b, vs == 0, vs == b->p * b->v - 1, lc, bucket_of, dense, expert);
      if (!pl->overlap_grad_reduce) { /* one gather of the whole chunk */
        for (int32_t k = 1; k < nb; k++)
          dense[0] += dense[k], expert[0] += expert[k];
        nb = 1;
      }
      for (int32_t k = 0; k < nb; k++) {
        int32_t l =
            trn_gb_launch(b, r, (trn_launch_t){TRN_W_GATH, k, (int32_t)c, dense[k], expert[k]});
        if (l < 0) goto done;
        for (int32_t i = 0; i < per; i++)
          if (trn_gb_trigger(b, (int32_t)r * per + i, l, b->gb[r * per + i].last)) goto done;
      }
    }
  }
  rc = all_launches(b, from);
done:
  free(bucket_of);
  free(dense);
  return rc;
}

int trn_gen_dp(trn_gb_t *b) {
  int32_t *from = calloc((size_t)b->p, sizeof *from);
  int32_t *emb_done = malloc((size_t)b->gpus * sizeof *emb_done);
  int rc = -1;
  if (!from || !emb_done) {
    snprintf(b->err, b->errlen, "out of memory");
    goto done;
  }
  if (all_launches(b, from) || wait_dp(b) || finalize(b, emb_done) || optimizer(b, emb_done, from))
    goto done;
  rc = 0;
done:
  free(from);
  free(emb_done);
  return rc;
}
