/* Training models: parameter counts of the presets against published counts, and
 * the parameters one GPU of each pipeline stage holds.
 * GPT-3 175B against Megatron's 12 l h^2 (1 + 13/(12h) + (V+s)/(12 l h)) plus
 * the final norm; LLaMA-7B, -13B, -65B, Llama-2-70B and Mixtral 8x7B (total and
 * active) against the released checkpoints' counts; per-stage parameters sum to
 * the model. */
#include <math.h>

#include "mvtest.h"
#include "train/trn.h"

static trn_presets_t presets;

static trn_params_t params_of(const char *name) {
  trn_params_t q = {0};
  const trn_model_t *m = trn_preset_model(&presets, name);
  CHECK(m != NULL);
  if (m) trn_params(m, &q);
  return q;
}

/* |got / want - 1| <= tol */
static void check_rel(double got, double want, double tol, const char *what) {
  if (!(fabs(got / want - 1) <= tol)) {
    fprintf(stderr, "%s: %.6g, expected %.6g within %.2g%%\n", what, got, want, tol * 100);
    mvtest_failures++;
  }
}

static void test_gpt3(void) {
  trn_params_t q = params_of("gpt3-175b");
  double l = 96, h = 12288, v = 51200, s = 2048;
  /* Narayanan et al. SC21: 12 l h^2 (1 + 13/(12h) + (V+s)/(12 l h)) = 174.6B; we also
   * count the final layer norm (2h). */
  CHECK_EQ_I64(q.total, 12 * (int64_t)(l * h * h) + 13 * (int64_t)(l * h) + (int64_t)((v + s) * h) +
                            2 * (int64_t)h);
  check_rel((double)q.total, 174.6e9, 0.005, "gpt3-175b");
  CHECK_EQ_I64(q.per_layer, 12 * 12288LL * 12288 + 13 * 12288);
  CHECK_EQ_I64(q.output, 0); /* tied */
  check_rel((double)params_of("gpt3-13b").total, 12.85e9, 0.01, "gpt3-13b");
  check_rel((double)params_of("gpt3-1.3b").total, 1.3e9, 0.02, "gpt3-1.3b");
  /* Korthikanti et al. name their models by these counts */
  check_rel((double)params_of("korthikanti-22b").total, 22e9, 0.01, "22b");
  check_rel((double)params_of("korthikanti-530b").total, 530e9, 0.01, "530b");
  check_rel((double)params_of("korthikanti-1t").total, 1e12, 0.01, "1t");
}

static void test_llama(void) {
  /* The released checkpoints' parameter counts (Hugging Face model cards). */
  CHECK_EQ_I64(params_of("llama-7b").total, 6738415616LL);
  CHECK_EQ_I64(params_of("llama-13b").total, 13015864320LL);
  CHECK_EQ_I64(params_of("llama-65b").total, 65285660672LL);
  trn_params_t q = params_of("llama2-70b");
  CHECK_EQ_I64(q.total, 68976648192LL);
  check_rel((double)q.total, 69e9, 0.01, "llama2-70b");
  /* GQA: Q and O are h x h, K and V h x 1024 (8 heads of 128) */
  CHECK_EQ_I64(q.attention, 2 * 8192LL * 8192 + 2 * 8192LL * 1024);
  CHECK_EQ_I64(q.mlp, 3 * 8192LL * 28672);
  CHECK_EQ_I64(q.norms, 2 * 8192);
  CHECK_EQ_I64(q.output, 32000LL * 8192);
  CHECK_EQ_I64(q.positions, 0);
}

static void test_mixtral(void) {
  trn_params_t q = params_of("mixtral-8x7b");
  CHECK_EQ_I64(q.total, 46702792704LL);
  CHECK_EQ_I64(q.active, 12879925248LL);
  check_rel((double)q.total, 46.7e9, 0.002, "mixtral total");
  check_rel((double)q.active, 12.9e9, 0.002, "mixtral active");
  CHECK_EQ_I64(q.router, 4096 * 8);
  CHECK_EQ_I64(q.mlp, 8 * 3 * 4096LL * 14336);
  CHECK_EQ_I64(q.mlp_active, 2 * 3 * 4096LL * 14336);
}

/* Per-GPU parameters: the sum over a pipeline's stages, times tp, is the model plus
 * the last stage's copy of the tied embedding; TP-replicated tensors count tp times. */
static void test_stage_params(void) {
  trn_setup_t s = {0};
  s.model = *trn_preset_model(&presets, "gpt3-175b");
  s.plan = trn_plan_default();
  s.plan.tp = 8;
  s.plan.pp = 8;
  s.plan.dp = 1;
  int64_t h = 12288, sum = 0;
  for (int64_t i = 0; i < 8; i++)
    sum += trn_stage_params(&s, i).dense;
  /* replicated per layer: the projection bias h, fc2 bias h, two layer norms 4h */
  int64_t replicated = 96 * 6 * h + 2048 * h + 2 * h;
  trn_params_t q;
  trn_params(&s.model, &q);
  CHECK_EQ_I64(8 * sum - 7 * replicated, q.total + 51200 * h);
  /* first stage: 12 layers + embedding + positions */
  int64_t layer = (12 * h * h + 7 * h) / 8 + 6 * h;
  CHECK_EQ_I64(trn_stage_params(&s, 0).dense, 12 * layer + 51200 / 8 * h + 2048 * h);
  CHECK_EQ_I64(trn_stage_params(&s, 3).dense, 12 * layer);
  CHECK_EQ_I64(trn_stage_params(&s, 7).dense, 12 * layer + 51200 / 8 * h + 2 * h);

  /* Mixtral, tp 2, ep 4, pp 1: 2 of 8 experts per GPU */
  s.model = *trn_preset_model(&presets, "mixtral-8x7b");
  s.plan = trn_plan_default();
  s.plan.tp = 2;
  s.plan.ep = 4;
  s.plan.dp = 4;
  trn_stage_params_t p = trn_stage_params(&s, 0);
  CHECK_EQ_I64(p.expert, 32 * 2 * 3 * 4096LL * 7168);
  CHECK_EQ_I64(p.dense,
               32 * ((4096LL * (4096 + 2048)) / 2 + 4096LL * 4096 / 2 + 4096 * 8 + 2 * 4096) +
                   2 * (16000LL * 4096) + 4096);
}

int main(void) {
  char err[512];
  if (trn_presets_load(&presets, getenv("MV_PRESETS"), err, sizeof err) < 0) {
    fprintf(stderr, "%s\n", err);
    return 1;
  }
  test_gpt3();
  test_llama();
  test_mixtral();
  test_stage_params();
  trn_presets_free(&presets);
  return mvtest_end();
}
