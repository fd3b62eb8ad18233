/* trn: memory per GPU: model states under ZeRO (Rajbhandari et al. 2020), activations
 * (Korthikanti et al. 2022) of the micro-batches a pipeline stage holds, and a
 * framework reserve (docs/training.md). */
#include <math.h>

#include "train/trn_int.h"

void trn_model_states(double params, int64_t dp, int zero, double *weights, double *grads,
                      double *optimizer) {
  double n = (double)dp;
  *weights = 2 * params;
  *grads = 2 * params;
  *optimizer = 12 * params;
  if (zero >= 1) *optimizer /= n;
  if (zero >= 2) *grads /= n;
  if (zero >= 3) *weights /= n;
}

double trn_act_layer_bytes(const trn_model_t *m, const trn_plan_t *pl) {
  double t = (double)pl->tp, s = (double)m->seq_len, b = (double)pl->micro_batch;
  double h = (double)m->hidden, a = (double)m->heads;
  double sbh = s * b * h;
  int sp = pl->sequence_parallel && pl->tp > 1;
  if (pl->recompute == TRN_RECOMPUTE_FULL) return sp ? 2 * sbh / t : 2 * sbh;
  /* Not split by TP: the inputs of QKV (2) and of the MLP (2), two dropout masks
   * (1 + 1), the two norms' inputs (4): 10 sbh. MoE adds the top_k copies of each
   * token sent to experts (2 k sbh). */
  double whole = 10 * sbh;
  if (m->experts > 1) whole += 2 * (double)m->top_k * sbh;
  /* Split by TP: Q (2), K and V (4 kv_heads/heads), the projection's input (2), and
   * the MLP's inner activations: GeLU input and output (4 f/h), SwiGLU's gate and up
   * halves and product (6 f/h), per expert a token visits. */
  double inner = (m->activation == TRN_SWIGLU ? 6.0 : 4.0) * (double)m->ffn_hidden / h;
  double split = sbh * (4 + 4 * (double)m->kv_heads / a + inner * (double)m->top_k);
  /* Attention scores: softmax output (2), its dropout mask (1), the dropout output
   * (2) per head and query-key pair; gone with selective recompute. */
  double scores = pl->recompute == TRN_RECOMPUTE_SELECTIVE ? 0 : 5 * a * s * s * b;
  return (sp ? (whole + split) / t : whole + split / t) + scores / t;
}

void trn_memory_stage(const trn_setup_t *s, int64_t stage, trn_memory_t *out) {
  const trn_model_t *m = &s->model;
  const trn_plan_t *pl = &s->plan;
  const trn_gpu_t *g = &s->cluster.gpu;
  double w, gr, o, sbh = (double)m->seq_len * pl->micro_batch * m->hidden;
  double t = (double)pl->tp, p = (double)pl->pp, v = (double)pl->virtual_stages;
  int sp = pl->sequence_parallel && pl->tp > 1;
  trn_stage_params_t sp_params = trn_stage_params(s, stage);

  out->stage = stage;
  trn_model_states((double)sp_params.dense, pl->dp, pl->zero, &out->weights, &out->grads,
                   &out->optimizer);
  trn_model_states((double)sp_params.expert, pl->dp / pl->ep, pl->zero, &w, &gr, &o);
  out->weights += w;
  out->grads += gr;
  out->optimizer += o;

  /* 1F1B: stage i holds pp - i micro-batches (at most all of them); interleaving
   * multiplies by 1 + (pp - 1) / (pp * v) (Korthikanti et al., for the first stage;
   * applied to every stage, which only over-estimates the later ones). */
  double in_flight = fmin(p - (double)stage, (double)pl->micro_batches);
  if (pl->virtual_stages > 1) in_flight *= 1 + (p - 1) / (p * v);
  out->in_flight = in_flight;
  out->activations = trn_act_layer_bytes(m, pl) * (double)(m->layers / pl->pp) * in_flight;

  /* First stage: the input embedding's dropout mask per micro-batch in flight. Last
   * stage: final norm, output layer and loss of one micro-batch, 4 sbh/t (1 + v/h). */
  out->act_extra = 0;
  if (stage == 0) out->act_extra += sbh * in_flight / (sp ? t : 1);
  if (stage == pl->pp - 1)
    out->act_extra += 4 * sbh / t * (1 + (double)m->vocab / (double)m->hidden);

  double reserve_gb = pl->memory_reserve_gb >= 0 ? pl->memory_reserve_gb : g->memory_reserve_gb;
  out->reserve = reserve_gb * 1e9;
  out->total =
      out->weights + out->grads + out->optimizer + out->activations + out->act_extra + out->reserve;
  out->capacity = g->hbm_bytes;
  out->oom = out->total > out->capacity;
}

void trn_memory(const trn_setup_t *s, trn_memory_t *out) {
  trn_memory_stage(s, 0, out);
  for (int64_t i = 1; i < s->plan.pp; i++) {
    trn_memory_t m;
    trn_memory_stage(s, i, &m);
    if (m.total > out->total) *out = m;
  }
}
