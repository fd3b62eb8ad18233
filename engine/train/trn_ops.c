/* trn: the operations of one micro-batch on one GPU (one TP rank): GEMM shapes,
 * FLOPs and HBM bytes of the forward pass, their times, recomputation, and the FLOPs
 * of a whole iteration (docs/training.md). */
#include <string.h>

#include "train/trn_int.h"

static const struct {
  const char *name;
  int gemm, layer;
} op_info[TRN_OP_COUNT] = {
#define TRN_OP_INFO(id, name, gemm, layer) {name, gemm, layer},
    TRN_OPS(TRN_OP_INFO)
#undef TRN_OP_INFO
};

const char *trn_op_name(int op) {
  return op >= 0 && op < TRN_OP_COUNT ? op_info[op].name : "?";
}
int trn_op_is_gemm(int op) {
  return op >= 0 && op < TRN_OP_COUNT && op_info[op].gemm;
}
int trn_op_in_layer(int op) {
  return op >= 0 && op < TRN_OP_COUNT && op_info[op].layer;
}
int trn_op_find(const char *s) {
  for (int i = 0; i < TRN_OP_COUNT; i++)
    if (strcmp(s, op_info[i].name) == 0) return i;
  return -1;
}

/* batch products of (m x k)(k x n); `tokens` (may be fractional: tokens per expert)
 * stands for m in the FLOPs. */
static void gemm(trn_op_t *o, double batch, double tokens, int64_t n, int64_t k, int64_t esize) {
  o->batch = (int64_t)batch;
  o->m = (int64_t)(tokens + 0.5);
  o->n = n;
  o->k = k;
  o->flops = 2 * batch * tokens * (double)n * (double)k;
  o->bytes = (double)esize * batch * (tokens * k + (double)k * n + tokens * n);
}

/* FLOPs and bytes of every op; times and recomputation are filled by trn_costs. */
static void shapes(const trn_setup_t *s, trn_op_t *op) {
  const trn_model_t *m = &s->model;
  const trn_plan_t *pl = &s->plan;
  int64_t t = pl->tp, b = pl->micro_batch, sq = m->seq_len, h = m->hidden;
  int64_t a = m->heads / t, d = m->hidden / m->heads, f = m->ffn_hidden / t;
  int64_t e = trn_dtype_bytes(pl->dtype);
  double tokens = (double)b * sq;
  double sp = pl->sequence_parallel && t > 1 ? (double)t : 1; /* SP splits norms, dropouts */
  int64_t vocab = trn_ceil_div(m->vocab, t);
  int swiglu = m->activation == TRN_SWIGLU;
  /* MoE: each local expert gets top_k * ep / experts of the tokens on average. */
  double experts = m->experts > 1 ? (double)(m->experts / pl->ep) : 1;
  double expert_tokens = tokens * m->top_k / experts;
  memset(op, 0, TRN_OP_COUNT * sizeof *op);

  op[TRN_OP_EMBED].bytes = 2.0 * e * tokens * h; /* gather rows, write them */
  op[TRN_OP_LN1].bytes = 2.0 * e * tokens * h / sp;
  gemm(&op[TRN_OP_QKV], 1, tokens, (h + 2 * m->kv_heads * d) / t, h, e);
  gemm(&op[TRN_OP_SCORE], (double)b * a, (double)sq, sq, d, e);
  /* scale, mask, softmax and dropout fused: read scores, write probabilities and a
   * one-byte mask. */
  op[TRN_OP_SOFTMAX].bytes = (2.0 * e + 1) * b * a * (double)sq * sq;
  gemm(&op[TRN_OP_AV], (double)b * a, (double)sq, d, sq, e);
  gemm(&op[TRN_OP_PROJ], 1, tokens, h, h / t, e);
  /* dropout and residual add: read two tensors, write one and a one-byte mask. */
  op[TRN_OP_RESID1].bytes = (3.0 * e + 1) * tokens * h / sp;
  op[TRN_OP_LN2].bytes = op[TRN_OP_LN1].bytes;
  if (m->experts > 1) gemm(&op[TRN_OP_ROUTER], 1, tokens, m->experts, h, e);
  gemm(&op[TRN_OP_FC1], experts, expert_tokens, swiglu ? 2 * f : f, h, e);
  /* GeLU reads and writes f; SwiGLU reads 2f and writes f. */
  op[TRN_OP_ACT].bytes = (swiglu ? 3.0 : 2.0) * e * tokens * m->top_k * f;
  gemm(&op[TRN_OP_FC2], experts, expert_tokens, h, f, e);
  op[TRN_OP_RESID2].bytes = op[TRN_OP_RESID1].bytes;
  op[TRN_OP_FINAL_LN].bytes = op[TRN_OP_LN1].bytes;
  gemm(&op[TRN_OP_LOGITS], 1, tokens, vocab, h, e);
  /* cross-entropy: read the logits, write fp32 probabilities */
  op[TRN_OP_LOSS].bytes = (double)(e + 4) * tokens * vocab;
}

void trn_costs(const trn_setup_t *s, trn_costs_t *c) {
  const trn_plan_t *pl = &s->plan;
  const trn_gpu_t *g = &s->cluster.gpu;
  double recomputed_flops = 0, logits_flops;
  memset(c, 0, sizeof *c);
  shapes(s, c->op);
  for (int i = 0; i < TRN_OP_COUNT; i++) {
    trn_op_t *o = &c->op[i];
    o->fwd_ps = pl->op_time[i].fwd_ps >= 0 ? pl->op_time[i].fwd_ps
                                           : trn_op_time_ps(g, o->flops, o->bytes, op_info[i].gemm);
    o->bwd_ps = pl->op_time[i].bwd_ps >= 0 ? pl->op_time[i].bwd_ps : 2 * o->fwd_ps;
    if (pl->recompute == TRN_RECOMPUTE_FULL)
      o->recomputed = op_info[i].layer;
    else if (pl->recompute == TRN_RECOMPUTE_SELECTIVE)
      o->recomputed = i == TRN_OP_SCORE || i == TRN_OP_SOFTMAX || i == TRN_OP_AV;
    if (!op_info[i].layer) continue;
    c->layer_flops += o->flops;
    c->layer_fwd_ps += o->fwd_ps;
    c->layer_bwd_ps += o->bwd_ps + (o->recomputed ? o->fwd_ps : 0);
    if (o->recomputed) recomputed_flops += o->flops;
  }
  logits_flops = c->op[TRN_OP_LOGITS].flops;
  /* Every micro-batch of every data-parallel replica runs every layer on tp ranks:
   * forward + backward (2x) + recomputation. */
  double runs = (double)pl->micro_batches * pl->dp * pl->tp;
  double layers = (double)s->model.layers;
  c->model_flops = runs * (layers * 3 * c->layer_flops + 3 * logits_flops);
  c->iteration_flops = c->model_flops + runs * layers * recomputed_flops;
}
