/* Training models: memory per GPU. ZeRO Table 1 (tests/data/zero_memory.json) to its
 * printed precision, the activation formulas of Korthikanti et al. exactly, which of
 * their configurations fit in 80 GB, and the breakdown of one out of memory.
 * The 1T model with TP alone is oom; ZeRO stages shard weights, gradients and
 * optimizer states. */
#include <math.h>

#include "trntest.h"

/* Decimals of a number as printed in JSON (its shortest representation). */
static int decimals(double x) {
  char buf[64];
  snprintf(buf, sizeof buf, "%.15g", x);
  const char *dot = strchr(buf, '.');
  return dot ? (int)strlen(dot + 1) : 0;
}

static void test_zero_table(void) {
  json_error_t je;
  json_t *root = json_load_file(mvtest_data("zero_memory.json"), 0, &je);
  CHECK(root != NULL);
  const json_t *rows = json_object_get(root, "rows");
  CHECK_EQ_I64(json_array_size(rows), 18);
  for (size_t i = 0; i < json_array_size(rows); i++) {
    const json_t *r = json_array_get(rows, i);
    int64_t dp = json_integer_value(json_array_get(r, 0));
    double params = json_number_value(json_array_get(r, 1)) * 1e9;
    for (int stage = 1; stage <= 3; stage++) {
      double printed = json_number_value(json_array_get(r, (size_t)stage + 1));
      double w, g, o;
      trn_model_states(params, dp, stage, &w, &g, &o);
      double gb = (w + g + o) / 1e9;
      /* the table rounds or truncates to the digits it prints */
      double unit = pow(10, -decimals(printed));
      if (!(fabs(gb - printed) < unit)) {
        fprintf(stderr, "ZeRO dp %lld, %g B, stage %d: %.4f GB, table %g\n", (long long)dp,
                params / 1e9, stage, gb, printed);
        mvtest_failures++;
      }
    }
  }
  json_decref(root);
  /* exact: 7.5B on 64 GPUs, stage 2: 2P + 14P/64 */
  double w, g, o;
  trn_model_states(7.5e9, 64, 2, &w, &g, &o);
  CHECK(w == 15e9 && g == 15e9 / 64 && o == 90e9 / 64);
  trn_model_states(7.5e9, 64, 0, &w, &g, &o);
  CHECK(w + g + o == 120e9);
}

static const struct {
  const char *model;
  int64_t tp, pp, gpus, global, micro, v;
} korth[] = {
    {"korthikanti-22b", 8, 1, 8, 4, 4, 1},
    {"korthikanti-175b", 8, 8, 64, 64, 1, 3},
    {"korthikanti-530b", 8, 35, 280, 280, 1, 3},
    {"korthikanti-1t", 8, 64, 512, 512, 1, 1},
};

/* validation_korthikanti.json activation_bytes_per_layer, for each configuration,
 * in integers: s b h (34 + 5 a s / h) and so on. */
static void test_activation_formulas(void) {
  for (int i = 0; i < 4; i++) {
    trn_plan_t pl =
        trntest_plan(korth[i].tp, korth[i].pp, korth[i].global, korth[i].micro, korth[i].v);
    trn_setup_t s = trntest_setup(korth[i].model, "a100-80gb", korth[i].gpus / 8, pl);
    int64_t sq = 2048, b = korth[i].micro, h = s.model.hidden, a = s.model.heads, t = 8;
    int64_t sbh = sq * b * h, sbht = sq * b * (h / t), scores = 5 * a * sq * sq * b;
    trn_plan_t *p = &s.plan;

    p->tp = 1; /* none: no parallelism */
    CHECK((int64_t)trn_act_layer_bytes(&s.model, p) == 34 * sbh + scores);
    CHECK(trn_act_layer_bytes(&s.model, p) == (double)(34 * sbh + scores));
    p->tp = t; /* tp */
    CHECK(trn_act_layer_bytes(&s.model, p) == (double)(10 * sbh + 24 * sbht + scores / t));
    p->sequence_parallel = 1; /* tp_sp */
    CHECK(trn_act_layer_bytes(&s.model, p) == (double)(34 * sbht + scores / t));
    p->recompute = TRN_RECOMPUTE_SELECTIVE; /* tp_sp_selective */
    CHECK(trn_act_layer_bytes(&s.model, p) == (double)(34 * sbht));
    p->sequence_parallel = 0; /* tp_selective */
    CHECK(trn_act_layer_bytes(&s.model, p) == (double)(10 * sbh + 24 * sbht));
    p->recompute = TRN_RECOMPUTE_FULL; /* full_recompute */
    CHECK(trn_act_layer_bytes(&s.model, p) == (double)(2 * sbh));
    p->sequence_parallel = 1; /* the stored layer inputs are split by SP too */
    CHECK(trn_act_layer_bytes(&s.model, p) == (double)(2 * sbht));
    p->tp = 1; /* sequence parallelism without TP changes nothing */
    p->recompute = TRN_RECOMPUTE_NONE;
    CHECK(trn_act_layer_bytes(&s.model, p) == (double)(34 * sbh + scores));
  }
}

/* With sequence parallelism and selective recomputation all four fit on A100-80GB
 * (as Korthikanti et al. ran them); the 1T model with TP alone does not. */
static void test_fit(void) {
  for (int i = 0; i < 4; i++) {
    trn_plan_t pl =
        trntest_plan(korth[i].tp, korth[i].pp, korth[i].global, korth[i].micro, korth[i].v);
    pl.sequence_parallel = 1;
    pl.recompute = TRN_RECOMPUTE_SELECTIVE;
    trn_setup_t s = trntest_setup(korth[i].model, "a100-80gb", korth[i].gpus / 8, pl);
    trn_memory_t m;
    trn_memory(&s, &m);
    CHECK_EQ_I64(m.oom, 0);
    CHECK_EQ_I64(m.stage, 0); /* the first stage holds the most micro-batches */
    CHECK(m.total < 80e9);
    /* first stage: l/p layers of p micro-batches (Eq. 6: 34 s b h L / t), times the
     * interleaving factor */
    double layer = 34.0 * 2048 * korth[i].micro * s.model.hidden / 8;
    double in_flight = korth[i].pp == 1 ? 1 : (double)korth[i].pp;
    if (korth[i].v > 1)
      in_flight *= 1 + (double)(korth[i].pp - 1) / (double)(korth[i].pp * korth[i].v);
    CHECK_REL(m.activations, layer * (double)(s.model.layers / korth[i].pp) * in_flight, 1e-12);
    CHECK(m.in_flight == in_flight);
    /* no data parallelism: no ZeRO saving, 16 bytes per parameter */
    trn_stage_params_t sp = trn_stage_params(&s, 0);
    CHECK(m.weights + m.grads + m.optimizer == 16.0 * (double)sp.dense);
    CHECK(m.reserve == 2e9);
    CHECK(m.capacity == 81920.0 * 1024 * 1024);
  }
  /* 1T: 128 layers, 2 per stage, 64 micro-batches in flight on the first stage */
  trn_setup_t s = trntest_setup("korthikanti-1t", "a100-80gb", 64, trntest_plan(8, 64, 512, 1, 1));
  trn_memory_t m;
  trn_memory(&s, &m);
  CHECK_EQ_I64(m.oom, 1);
  CHECK_EQ_I64(m.stage, 0);
  double sbh = 2048.0 * 25600, scores = 5.0 * 160 * 2048 * 2048;
  CHECK(m.activations == (10 * sbh + 24 * sbh / 8 + scores / 8) * 2 * 64);
  CHECK(m.act_extra == sbh * 64);
  CHECK(m.total > m.capacity);
  CHECK(m.total == m.weights + m.grads + m.optimizer + m.activations + m.act_extra + m.reserve);
  /* the last stage holds one micro-batch and the output layer */
  trn_memory_t last;
  trn_memory_stage(&s, 63, &last);
  CHECK(last.in_flight == 1);
  CHECK(last.act_extra == 4 * sbh / 8 * (1 + 51200.0 / 25600));
  CHECK_EQ_I64(last.oom, 0);
}

/* ZeRO stages on a data-parallel Llama 2 70B: weights, gradients, optimizer shrink
 * one by one; experts shard over dp / ep. */
static void test_zero_stages(void) {
  trn_plan_t pl = trntest_plan(8, 1, 1024, 1, 1);
  pl.recompute = TRN_RECOMPUTE_FULL;
  pl.memory_reserve_gb = 0;
  trn_setup_t s = trntest_setup("llama2-70b", "h200", 16, pl);
  double P = (double)trn_stage_params(&s, 0).dense;
  for (int z = 0; z <= 3; z++) {
    s.plan.zero = z;
    trn_memory_t m;
    trn_memory(&s, &m);
    CHECK(m.weights == (z >= 3 ? 2 * P / 16 : 2 * P));
    CHECK(m.grads == (z >= 2 ? 2 * P / 16 : 2 * P));
    CHECK(m.optimizer == (z >= 1 ? 12 * P / 16 : 12 * P));
    CHECK(m.reserve == 0);
  }
  s = trntest_setup("mixtral-8x7b", "h200", 2, trntest_plan(2, 1, 8, 1, 1));
  s.plan.ep = 4;
  s.plan.zero = 1;
  trn_memory_t m;
  trn_memory(&s, &m);
  trn_stage_params_t sp = trn_stage_params(&s, 0);
  CHECK(m.optimizer == 12.0 * (double)sp.dense / 8 + 12.0 * (double)sp.expert / 2);
}

int main(void) {
  if (trntest_init() < 0) return 1;
  test_zero_table();
  test_activation_formulas();
  test_fit();
  test_zero_stages();
  trn_presets_free(&trntest_presets);
  return mvtest_end();
}
