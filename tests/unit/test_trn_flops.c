/* Training models: FLOPs per op and per iteration against Megatron-LM's closed forms
 * (Narayanan et al. SC21; Korthikanti et al. 2022).
 * Iteration FLOPs of the four Korthikanti et al. models equal 72 B s l h^2 (1 +
 * s/(6h) + V/(12 l h)) (96 ... with full recomputation); their 175B run's MFU
 * is 0.514 within 1 %. */
#include <math.h>

#include "trntest.h"

/* The four configurations of Korthikanti et al. Table 3 (A100, seq 2048, vocab 51200). */
static const struct {
  const char *model;
  int64_t tp, pp, gpus, global, micro, v;
} korth[] = {
    {"korthikanti-22b", 8, 1, 8, 4, 4, 1},
    {"korthikanti-175b", 8, 8, 64, 64, 1, 3},
    {"korthikanti-530b", 8, 35, 280, 280, 1, 3},
    {"korthikanti-1t", 8, 64, 512, 512, 1, 1},
};

static trn_setup_t korth_setup(int i, int recompute) {
  trn_plan_t pl =
      trntest_plan(korth[i].tp, korth[i].pp, korth[i].global, korth[i].micro, korth[i].v);
  pl.recompute = recompute;
  return trntest_setup(korth[i].model, "a100-80gb", korth[i].gpus / 8, pl);
}

/* Summed FLOPs of one iteration: 72 B s l h^2 (1 + s/(6h) + V/(12 l h)) without
 * recomputation, 96 B s l h^2 (1 + s/(6h) + V/(16 l h)) with full recomputation; with
 * selective recomputation (attention scores and values again) the s/(6h) term
 * becomes s/(4.5 h). */
static void test_megatron_formulas(void) {
  for (int i = 0; i < 4; i++) {
    for (int r = 0; r < 3; r++) {
      trn_setup_t s = korth_setup(i, r);
      trn_costs_t c;
      trn_costs(&s, &c);
      double B = (double)korth[i].global, sq = 2048, l = (double)s.model.layers;
      double h = (double)s.model.hidden, V = 51200;
      double base = B * sq * l * h * h;
      double want = r == TRN_RECOMPUTE_FULL ? 96 * base * (1 + sq / (6 * h) + V / (16 * l * h))
                    : r == TRN_RECOMPUTE_SELECTIVE
                        ? 72 * base * (1 + sq / (4.5 * h) + V / (12 * l * h))
                        : 72 * base * (1 + sq / (6 * h) + V / (12 * l * h));
      CHECK_REL(c.iteration_flops, want, 1e-12);
      CHECK_REL(c.model_flops, 72 * base * (1 + sq / (6 * h) + V / (12 * l * h)), 1e-12);
    }
  }
  /* validation_korthikanti.json: 175B, full recompute, 18.13 s per iteration on 64
   * A100s, and the model FLOPs utilisation (without recomputation) it states */
  trn_setup_t s = korth_setup(1, TRN_RECOMPUTE_SELECTIVE);
  trn_costs_t c;
  trn_costs(&s, &c);
  CHECK_REL(c.model_flops / (13.75 * 64 * 312e12), 0.514, 0.01);
}

/* Forward FLOPs of each op of one micro-batch on one TP rank. */
static void test_per_op(void) {
  trn_setup_t s = trntest_setup("gpt3-175b", "h100-sxm", 8, trntest_plan(8, 8, 64, 1, 1));
  trn_costs_t c;
  trn_costs(&s, &c);
  double T = 2048, h = 12288, sq = 2048;
  CHECK(c.op[TRN_OP_QKV].flops == 2 * T * h * 3 * h / 8);
  CHECK(c.op[TRN_OP_SCORE].flops == 2 * sq * sq * h / 8);
  CHECK(c.op[TRN_OP_AV].flops == 2 * sq * sq * h / 8);
  CHECK(c.op[TRN_OP_PROJ].flops == 2 * T * h * h / 8);
  CHECK(c.op[TRN_OP_FC1].flops == 2 * T * h * 4 * h / 8);
  CHECK(c.op[TRN_OP_FC2].flops == 2 * T * h * 4 * h / 8);
  CHECK(c.op[TRN_OP_ROUTER].flops == 0);
  CHECK(c.op[TRN_OP_LOGITS].flops == 2 * T * h * 51200 / 8);
  CHECK(c.op[TRN_OP_SOFTMAX].flops == 0);
  CHECK(c.layer_flops == (24 * T * h * h + 4 * T * sq * h) / 8);
  /* GEMM shapes: score is 12 heads of (2048 x 128)(128 x 2048) */
  CHECK_EQ_I64(c.op[TRN_OP_SCORE].batch, 12);
  CHECK_EQ_I64(c.op[TRN_OP_SCORE].m, 2048);
  CHECK_EQ_I64(c.op[TRN_OP_SCORE].n, 2048);
  CHECK_EQ_I64(c.op[TRN_OP_SCORE].k, 128);
  CHECK_EQ_I64(c.op[TRN_OP_QKV].n, 3 * 12288 / 8);
  /* bytes: a GEMM reads both inputs and writes its output, 2 bytes each */
  CHECK(c.op[TRN_OP_PROJ].bytes == 2 * (T * h / 8 + h / 8 * h + T * h));

  /* GQA and SwiGLU: Llama 2 70B, tp 8, micro-batch 2 of 4096 tokens */
  s = trntest_setup("llama2-70b", "h100-sxm", 1, trntest_plan(8, 1, 2, 2, 1));
  trn_costs(&s, &c);
  T = 2 * 4096;
  h = 8192;
  CHECK(c.op[TRN_OP_QKV].flops == 2 * T * h * (h + 2 * 8 * 128) / 8);
  CHECK(c.op[TRN_OP_FC1].flops == 2 * T * h * 2 * 28672 / 8);
  CHECK(c.op[TRN_OP_FC2].flops == 2 * T * 28672 * h / 8);
  CHECK(c.op[TRN_OP_SCORE].flops == 2 * 2 * 4096.0 * 4096 * h / 8);

  /* MoE: Mixtral, tp 2, ep 4: every token through 2 experts; the router is h x 8 */
  s = trntest_setup("mixtral-8x7b", "h100-sxm", 1, trntest_plan(2, 1, 4, 1, 1));
  s.plan.ep = 4;
  trn_costs(&s, &c);
  T = 32768;
  h = 4096;
  CHECK(c.op[TRN_OP_ROUTER].flops == 2 * T * h * 8);
  CHECK(c.op[TRN_OP_FC1].flops == 2 * T * 2 * h * 2 * 14336 / 2);
  CHECK(c.op[TRN_OP_FC2].flops == 2 * T * 2 * 14336 / 2 * h);
  CHECK_EQ_I64(c.op[TRN_OP_FC1].batch, 2); /* local experts */
  CHECK_EQ_I64(c.op[TRN_OP_FC1].m, 32768); /* tokens per expert: T k ep / experts */
}

/* Recomputation: full reruns every layer op's forward in backward, selective the
 * attention core; backward is twice forward. */
static void test_recompute_times(void) {
  trn_costs_t none, sel, full;
  trn_setup_t s = korth_setup(0, TRN_RECOMPUTE_NONE);
  trn_costs(&s, &none);
  s.plan.recompute = TRN_RECOMPUTE_SELECTIVE;
  trn_costs(&s, &sel);
  s.plan.recompute = TRN_RECOMPUTE_FULL;
  trn_costs(&s, &full);
  CHECK_EQ_I64(none.layer_bwd_ps, 2 * none.layer_fwd_ps);
  CHECK_EQ_I64(full.layer_bwd_ps, 3 * none.layer_fwd_ps);
  CHECK_EQ_I64(sel.layer_bwd_ps, 2 * none.layer_fwd_ps + none.op[TRN_OP_SCORE].fwd_ps +
                                     none.op[TRN_OP_SOFTMAX].fwd_ps + none.op[TRN_OP_AV].fwd_ps);
  CHECK(full.op[TRN_OP_QKV].recomputed && !full.op[TRN_OP_LOGITS].recomputed);
  CHECK(sel.op[TRN_OP_SCORE].recomputed && !sel.op[TRN_OP_QKV].recomputed);
}

int main(void) {
  if (trntest_init() < 0) return 1;
  test_megatron_formulas();
  test_per_op();
  test_recompute_times();
  trn_presets_free(&trntest_presets);
  return mvtest_end();
}
