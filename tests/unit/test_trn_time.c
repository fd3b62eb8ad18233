/* Training models: the GEMM efficiency curve (gpus.json, from measured cuBLASLt
 * throughput) at its data points and between them, the roofline time of an op, and
 * the job's per-op override.
 * The A100 curve at 2^35 FLOPs: 223.8667 TFLOP/s. */
#include <math.h>

#include "trntest.h"

static void test_curve(void) {
  const trn_gpu_t *a100 = trn_preset_gpu(&trntest_presets, "a100-80gb");
  /* 7 of the 8 rows: 802816 x 192 x 768 is past curve_max_aspect 8 */
  CHECK_EQ_I64(a100->n_curve, 7);
  /* at data points: the measured TFLOP/s */
  CHECK(trn_gemm_tflops(a100, 2.0 * 1024 * 1024 * 1024) == 119.4);
  CHECK(trn_gemm_tflops(a100, 2.0 * 1024 * 2145 * 1024) == 132.8);
  CHECK(trn_gemm_tflops(a100, 2.0 * 8192 * 8192 * 8192) == 253.7);
  CHECK(trn_gemm_tflops(a100, 2.0 * 6144 * 12288 * 12288) == 250.8);
  /* between 2048^3 (2^34 FLOPs, 221.8) and 4096^3 (2^37, 228.0), linear in log FLOPs:
   * 2^35 is a third of the way */
  CHECK_REL(trn_gemm_tflops(a100, 0x1p35), 221.8 + (228.0 - 221.8) / 3, 1e-14);
  /* beyond the ends: the end points */
  CHECK(trn_gemm_tflops(a100, 1e6) == 119.4);
  CHECK(trn_gemm_tflops(a100, 1e15) == 256.5);

  /* roofline times in ps: FLOPs / (TFLOP/s), bytes / (TB/s) */
  double b1024 = 3 * 2.0 * 1024 * 1024; /* A, B, C of a 1024^3 GEMM in bf16 */
  CHECK_EQ_I64(trn_op_time_ps(a100, 0x1p31, b1024, 1), 17985625); /* 2^31 / 119.4 */
  CHECK_EQ_I64(trn_op_time_ps(a100, 0x1p35, 0, 1), 153483048);    /* 2^35 / 223.8667 */
  CHECK_EQ_I64(trn_op_time_ps(a100, 2.0 * 8192 * 8192 * 8192, 0, 1), 4333904721);
  /* memory-bound: 1.61 MB at the measured 1.61 TB/s is 1 us */
  CHECK_EQ_I64(trn_op_time_ps(a100, 0, 1.61e6, 0), 1000000);
  CHECK_EQ_I64(trn_op_time_ps(a100, 2.0, 1.61e6, 1), 1000000);  /* a tiny GEMM */
  CHECK_EQ_I64(trn_op_time_ps(a100, 1e12, 1.61e6, 0), 1000000); /* FLOPs of a memory op */

  /* H200 BF16: our measured rows; 802816 x 192 x 768 is past the aspect limit, and two
   * pairs of shapes with equal FLOPs are averaged: 9 points of 12 rows */
  const trn_gpu_t *h200 = trn_preset_gpu(&trntest_presets, "h200");
  CHECK_EQ_I64(h200->n_curve, 9);
  CHECK(trn_gemm_tflops(h200, 2.0 * 8192 * 8192 * 8192) == 791.1);
  CHECK(trn_gemm_tflops(h200, 2.0 * 512 * 512 * 512) == 11.0);
  CHECK(trn_gemm_tflops(h200, 1e15) == 696.9);
  CHECK_REL(trn_gemm_tflops(h200, 0x1p34), (434.7 + 383.9) / 2, 1e-14); /* 2048^3, 2048x4096x1024 */
  CHECK_REL(trn_gemm_tflops(h200, 0x1p37), (722.8 + 632.7) / 2, 1e-14); /* 4096^3, 8192x1024x8192 */
  /* between 2^37 and 4096 x 16384 x 4096 (2^39): half way in log FLOPs at 2^38 */
  CHECK_REL(trn_gemm_tflops(h200, 0x1p38), (677.75 + 699.4) / 2, 1e-14);
  CHECK_EQ_I64(trn_op_time_ps(h200, 0x1p31, 0, 1), llround(0x1p31 / 89.6));
  /* the H100 keeps the A100 curve scaled through 790 TFLOP/s at 8192^3 */
  const trn_gpu_t *h100 = trn_preset_gpu(&trntest_presets, "h100-sxm");
  CHECK_REL(trn_gemm_tflops(h100, 2.0 * 8192 * 8192 * 8192), 790, 1e-14);
  CHECK_REL(trn_gemm_tflops(h100, 0x1p31), 119.4 * 790 / 253.7, 1e-14);
  CHECK(h200->hbm_TBps_achieved == 4.01);
}

/* An op's time in a set-up, and the job's override. */
static void test_costs(void) {
  trn_plan_t pl = trntest_plan(8, 8, 64, 1, 1);
  trn_setup_t s = trntest_setup("gpt3-175b", "a100-80gb", 8, pl);
  trn_costs_t c;
  trn_costs(&s, &c);
  /* QKV: 2 x 2048 x 4608 x 12288 = 231928233984 FLOPs, between 4096^3 and 8192^3:
   * 228.0 + 25.7 ln(F / 2^37) / ln(8) = 234.4669 TFLOP/s */
  CHECK(c.op[TRN_OP_QKV].flops == 231928233984.0);
  CHECK_EQ_I64(c.op[TRN_OP_QKV].fwd_ps, 989172732);
  CHECK_EQ_I64(c.op[TRN_OP_QKV].bwd_ps, 2 * 989172732);
  /* layer norm: read and write 2048 x 12288 bf16 values at 1.61 TB/s */
  CHECK_EQ_I64(c.op[TRN_OP_LN1].fwd_ps, llround(4.0 * 2048 * 12288 / 1.61));
  int64_t sum = 0;
  for (int i = 0; i < TRN_OP_COUNT; i++)
    if (trn_op_in_layer(i)) sum += c.op[i].fwd_ps;
  CHECK_EQ_I64(c.layer_fwd_ps, sum);
  CHECK_EQ_I64(c.layer_bwd_ps, 2 * sum);

  s.plan.op_time[TRN_OP_QKV] = (trn_op_time_t){5000000, 7000000};
  s.plan.op_time[TRN_OP_LOGITS] = (trn_op_time_t){1000, 2000};
  trn_costs_t o;
  trn_costs(&s, &o);
  CHECK_EQ_I64(o.op[TRN_OP_QKV].fwd_ps, 5000000);
  CHECK_EQ_I64(o.op[TRN_OP_QKV].bwd_ps, 7000000);
  CHECK_EQ_I64(o.op[TRN_OP_LOGITS].fwd_ps, 1000);
  CHECK_EQ_I64(o.layer_fwd_ps, sum - 989172732 + 5000000);
  CHECK_EQ_I64(o.layer_bwd_ps, 2 * sum - 2 * 989172732 + 7000000);
  CHECK(o.op[TRN_OP_QKV].flops == c.op[TRN_OP_QKV].flops); /* FLOPs are the model's */
}

int main(void) {
  if (trntest_init() < 0) return 1;
  test_curve();
  test_costs();
  trn_presets_free(&trntest_presets);
  return mvtest_end();
}
