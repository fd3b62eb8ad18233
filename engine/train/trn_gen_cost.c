/* trn: the pieces of a pass and what each costs: compute from the ops' times, and the
 * tensor-parallel collectives Megatron-LM issues around them, blocking or overlapped
 * (docs/training.md, The task graph), timed by the intra-server model. */
#include <stdio.h>
#include <string.h>

#include "train/trn_gen_int.h"

int trn_gb_tp_time(trn_gb_t *b, coll_kind_t kind, uint64_t bytes, int64_t *ps) {
  char e[TRN_ERR_LEN];
  *ps = 0;
  if (b->t <= 1 || bytes == 0) return 0;
  if (coll_model_time(b->d->model, b->s->cluster.gpu.name, kind, (int32_t)b->t, bytes, ps, e,
                      sizeof e)) {
    snprintf(b->err, b->errlen, "tensor-parallel %s: %s", coll_name(kind), e);
    return -1;
  }
  return 0;
}

/* Sum of op times over [lo, hi] (inclusive ids): forward, backward, or the forward
 * of the ops the plan recomputes. */
typedef enum { SUM_FWD, SUM_BWD, SUM_RECOMP } sum_t;

static int64_t ops(const trn_costs_t *c, int lo, int hi, sum_t k) {
  int64_t ps = 0;
  for (int i = lo; i <= hi; i++) {
    const trn_op_t *o = &c->op[i];
    ps += k == SUM_FWD ? o->fwd_ps : k == SUM_BWD ? o->bwd_ps : (o->recomputed ? o->fwd_ps : 0);
  }
  return ps;
}

/* TP collectives of one part of a layer whose activations are x bytes: forward
 * (blocking), and backward blocking and overlapped (Megatron-LM's column- and
 * row-parallel linears; docs/training.md). */
typedef struct tp_part_t {
  int64_t fwd, bwd, bwd_async;
} tp_part_t;

static int tp_part(trn_gb_t *b, uint64_t x, tp_part_t *out) {
  int64_t ag, rs, ar;
  memset(out, 0, sizeof *out);
  if (trn_gb_tp_time(b, COLL_ALLGATHER, x, &ag) || trn_gb_tp_time(b, COLL_REDUCESCATTER, x, &rs) ||
      trn_gb_tp_time(b, COLL_ALLREDUCE, x, &ar))
    return -1;
  if (b->s->plan.sequence_parallel && b->t > 1) {
    /* forward: gather the input, reduce-scatter the output; backward: gather the
     * output gradient (blocking), gather the input again for the weight gradient
     * (over the data-gradient GEMM) and reduce-scatter the input gradient (over the
     * weight-gradient GEMM). */
    out->fwd = ag + rs;
    out->bwd = ag;
    out->bwd_async = ag + rs;
  } else {
    /* forward: all-reduce the output; backward: all-reduce the input gradient over
     * the weight-gradient GEMM. */
    out->fwd = ar;
    out->bwd_async = ar;
  }
  return 0;
}

static trn_piece_t piece(int64_t compute, int64_t tp, int64_t async, int64_t dense, int64_t expert,
                         int end) {
  return (trn_piece_t){.compute_ps = compute,
                       .tp_ps = tp,
                       .async_ps = async,
                       .dense = dense,
                       .expert = expert,
                       .end_layer = (uint8_t)end};
}

static trn_piece_t a2a(void) {
  trn_piece_t p;
  memset(&p, 0, sizeof p);
  p.a2a = 1;
  return p;
}

int trn_gen_costs(trn_gb_t *b) {
  const trn_setup_t *s = b->s;
  const trn_costs_t *c = b->d->costs;
  trn_tmpl_t *tm = &b->tm;
  trn_part_params_t pp = trn_part_params(s);
  uint64_t e = (uint64_t)trn_dtype_bytes(s->plan.dtype);
  uint64_t tokens = (uint64_t)(s->plan.micro_batch * s->model.seq_len);
  uint64_t S = tokens * (uint64_t)s->model.hidden * e, k = (uint64_t)s->model.top_k;
  int sp = s->plan.sequence_parallel && b->t > 1, full = s->plan.recompute == TRN_RECOMPUTE_FULL;
  int split = s->model.experts > 1 && b->ep > 1; /* expert all-to-alls cut the layer */
  tp_part_t attn, mlp;
  int64_t ag, rs, ar, ce;
  memset(tm, 0, sizeof *tm);
  if (tp_part(b, S, &attn) || tp_part(b, s->model.experts > 1 ? k * S : S, &mlp) ||
      trn_gb_tp_time(b, COLL_ALLGATHER, S, &ag) || trn_gb_tp_time(b, COLL_REDUCESCATTER, S, &rs) ||
      trn_gb_tp_time(b, COLL_ALLREDUCE, S, &ar) ||
      trn_gb_tp_time(b, COLL_ALLREDUCE, tokens * 4, &ce))
    return -1;

  /* ops of the attention half (through the router) and of the expert half */
  const int a_lo = TRN_OP_LN1, a_hi = TRN_OP_ROUTER, x_lo = TRN_OP_FC1, x_hi = TRN_OP_FC2;
  const int r2 = TRN_OP_RESID2;
  if (!split) {
    int64_t f = ops(c, a_lo, r2, SUM_FWD);
    tm->fwd[0] = piece(f, attn.fwd + mlp.fwd, 0, 0, 0, 1);
    tm->n_fwd = 1;
    tm->bwd[0] = piece(ops(c, a_lo, r2, SUM_BWD) + ops(c, a_lo, r2, SUM_RECOMP),
                       attn.bwd + mlp.bwd + (full ? attn.fwd + mlp.fwd : 0),
                       attn.bwd_async + mlp.bwd_async, pp.layer_dense, pp.layer_expert, 1);
    tm->n_bwd = 1;
  } else {
    /* forward: attention half, all-to-all (dispatch), experts, all-to-all (combine),
     * residual; backward the other way round, after the forward again under full
     * recomputation. */
    trn_piece_t *f = tm->fwd, *w = tm->bwd;
    int n = 0;
    f[0] = piece(ops(c, a_lo, a_hi, SUM_FWD), attn.fwd, 0, 0, 0, 0);
    f[1] = a2a();
    f[2] = piece(ops(c, x_lo, x_hi, SUM_FWD), mlp.fwd, 0, 0, 0, 0);
    f[3] = a2a();
    f[4] = piece(ops(c, r2, r2, SUM_FWD), 0, 0, 0, 0, 1);
    tm->n_fwd = 5;
    if (full) {
      for (int i = 0; i < 4; i++)
        w[n++] = f[i];
      w[n++] = piece(ops(c, r2, r2, SUM_FWD) + ops(c, r2, r2, SUM_BWD), 0, 0, 0, 0, 0);
    } else {
      w[n++] = piece(ops(c, r2, r2, SUM_BWD), 0, 0, 0, 0, 0);
    }
    w[n++] = a2a();
    w[n++] = piece(ops(c, x_lo, x_hi, SUM_BWD), mlp.bwd, mlp.bwd_async, 0, pp.layer_expert, 0);
    w[n++] = a2a();
    w[n++] = piece(ops(c, a_lo, a_hi, SUM_BWD) + (full ? 0 : ops(c, a_lo, a_hi, SUM_RECOMP)),
                   attn.bwd, attn.bwd_async, pp.layer_dense, 0, 1);
    tm->n_bwd = n;
  }

  /* The embedding: a vocabulary-parallel lookup whose output is all-reduced (or
   * reduce-scattered into the sequence-parallel region). */
  tm->embed_f = piece(c->op[TRN_OP_EMBED].fwd_ps, sp ? rs : ar, 0, 0, 0, 1);
  tm->embed_b = piece(c->op[TRN_OP_EMBED].bwd_ps, sp ? ag : 0, 0, pp.first_extra, 0, 1);
  /* The head: final norm, output layer (its input gathered under SP), and the
   * vocabulary-parallel cross entropy's three all-reduces of one fp32 per token. */
  int64_t hf = ops(c, TRN_OP_FINAL_LN, TRN_OP_LOSS, SUM_FWD);
  int64_t hb = ops(c, TRN_OP_FINAL_LN, TRN_OP_LOSS, SUM_BWD);
  tm->head_f = piece(hf, (sp ? ag : 0) + 3 * ce, 0, 0, 0, 1);
  tm->head_b = piece(hb, 0, sp ? rs + ag : ar, pp.last_extra, 0, 1);
  /* A received tensor is split over the TP ranks (each sends 1/t) and gathered again
   * unless it lives in the sequence-parallel region (Narayanan et al. SC21, 4.1). */
  tm->recv_gather_ps = sp ? 0 : ag;
  tm->p2p_bytes = S / (uint64_t)b->t;
  tm->a2a_bytes = tokens * k * (uint64_t)s->model.hidden * e / (uint64_t)b->t;
  if (sp) {
    int64_t norm = s->model.norm == TRN_LAYERNORM ? 2 * s->model.hidden : s->model.hidden;
    uint64_t bytes = (uint64_t)(2 * norm * (s->model.layers / b->p)) * 4;
    if (trn_gb_tp_time(b, COLL_ALLREDUCE, bytes, &tm->norm_ar_ps)) return -1;
  }
  return 0;
}
