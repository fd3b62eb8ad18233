/* trn: parameter counts of a model, and the parameters one GPU of a pipeline stage
 * holds under tensor, pipeline and expert parallelism (docs/training.md). */
#include "train/trn_int.h"

/* One expert's (or the dense) MLP: 2 GEMMs (GeLU) or 3 (SwiGLU) and their biases;
 * `tp` splits the inner width, the output bias is replicated. */
static int64_t mlp_params(const trn_model_t *m, int64_t tp) {
  int64_t h = m->hidden, f = m->ffn_hidden / tp;
  int64_t mats = m->activation == TRN_SWIGLU ? 3 : 2;
  return mats * h * f + (m->bias ? (mats - 1) * f + h : 0);
}

/* Attention of one layer on one of `tp` ranks: Q (h x h), K and V (h x kv_heads*d
 * each) split by heads, the output projection split by rows; biases of QKV split,
 * the projection's replicated. */
static int64_t attention_params(const trn_model_t *m, int64_t tp) {
  int64_t h = m->hidden, d = m->hidden / m->heads;
  int64_t qkv = (h + 2 * m->kv_heads * d) / tp;
  return h * qkv + h / tp * h + (m->bias ? qkv + h : 0);
}

static int64_t norm_params(const trn_model_t *m) {
  return m->norm == TRN_LAYERNORM ? 2 * m->hidden : m->hidden;
}

void trn_params(const trn_model_t *m, trn_params_t *out) {
  int64_t h = m->hidden;
  out->embedding = m->vocab * h;
  out->positions = m->positions == TRN_POS_LEARNED ? m->seq_len * h : 0;
  out->attention = attention_params(m, 1);
  out->mlp = m->experts * mlp_params(m, 1);
  out->mlp_active = m->top_k * mlp_params(m, 1);
  out->router = m->experts > 1 ? h * m->experts : 0;
  out->norms = 2 * norm_params(m);
  out->final_norm = norm_params(m);
  out->output = m->tied_embeddings ? 0 : m->vocab * h;
  out->per_layer = out->attention + out->mlp + out->router + out->norms;
  out->total =
      out->embedding + out->positions + m->layers * out->per_layer + out->final_norm + out->output;
  out->active = out->total - m->layers * (out->mlp - out->mlp_active);
}

trn_part_params_t trn_part_params(const trn_setup_t *s) {
  const trn_model_t *m = &s->model;
  const trn_plan_t *pl = &s->plan;
  int64_t tp = pl->tp, h = m->hidden;
  int64_t vocab_rows = trn_ceil_div(m->vocab, tp) * h; /* vocabulary-parallel, padded to tp */
  trn_part_params_t p = {0, 0, 0, 0};
  p.layer_dense = attention_params(m, tp) + 2 * norm_params(m);
  if (m->experts > 1) {
    p.layer_dense += h * m->experts; /* router, replicated */
    p.layer_expert = (m->experts / pl->ep) * mlp_params(m, tp);
  } else {
    p.layer_dense += mlp_params(m, tp);
  }
  p.first_extra = vocab_rows + (m->positions == TRN_POS_LEARNED ? m->seq_len * h : 0);
  /* Untied: the output matrix. Tied across stages: the last stage keeps a copy of the
   * embedding (Megatron-LM), summed with the first's gradient. */
  p.last_extra = norm_params(m) + (!m->tied_embeddings || pl->pp > 1 ? vocab_rows : 0);
  return p;
}

trn_stage_params_t trn_stage_params(const trn_setup_t *s, int64_t stage) {
  trn_part_params_t q = trn_part_params(s);
  int64_t layers = s->model.layers / s->plan.pp;
  trn_stage_params_t p = {layers * q.layer_dense, layers * q.layer_expert};
  if (stage == 0) p.dense += q.first_extra;
  if (stage == s->plan.pp - 1) p.dense += q.last_extra;
  return p;
}
