/* Imported workloads run by the engine: a two-layer SimAI workload on four GPUs of
 * one server, with collectives of a hand-made intra-server model, ends at the
 * hand-computed time; a malformed file is an invalid experiment whose message names
 * the file and line; our SimAI and ASTRA-sim examples run.
 * The toy workload ends at 85.74304 us, and at 85.932036 us with the A100's
 * overlap slowdown; the malformed file is named as wl_toy_bad.txt:4. */
#include "trnexp.h"

/* An all-reduce of 2 GPUs takes 10 us + bytes / (100 GB/s). */
static const char *const toy_model =
    "{\"models\": [{\"gpu\": \"a100-80gb\", \"collective\": \"allreduce\", \"gpus\": 2,"
    " \"ranges\": [{\"max_bytes\": null, \"alpha_us\": 10, \"beta_GBps\": 100}]}],"
    " \"gpus\": {\"a100-80gb\": {\"busbw_GBps\": {\"allreduce\": 200, \"other\": 200}}},"
    " \"reference\": {\"gpu\": \"a100-80gb\", \"collective\": \"allreduce\", \"gpus\": 2}}";

static void test_toy(void) {
  const char *text[6] = {
      "{\"workload\": {\"file\": \"wl_toy.txt\"}, \"cluster\": {\"gpu\": \"a100-80gb\","
      " \"servers\": 1, \"gpus_per_server\": 4, \"nics_per_server\": 4, \"overlap_slowdown\": 1}}",
      "{\"workload\": {\"file\": \"wl_toy_bad.txt\"}, \"cluster\": {\"gpu\": \"a100-80gb\","
      " \"servers\": 1, \"gpus_per_server\": 4, \"nics_per_server\": 4}}",
      "{\"workload\": {\"file\": \"wl_simai.txt\"}, \"cluster\": {\"gpu\": \"a100-80gb\","
      " \"servers\": 4}}",
      "{\"workload\": {\"file\": \"wl_astra.txt\"}, \"cluster\": {\"gpu\": \"a100-80gb\","
      " \"servers\": 2}}",
      "{\"workload\": {\"file\": \"wl_toy.txt\"}, \"cluster\": {\"gpu\": \"a100-80gb\","
      " \"servers\": 1, \"gpus_per_server\": 4, \"nics_per_server\": 4,"
      " \"overlap_slowdown\": 1.189}}",
      "{\"workload\": {\"file\": \"wl_toy.txt\"}, \"cluster\": {\"gpu\": \"a100-80gb\","
      " \"servers\": 1, \"gpus_per_server\": 4, \"nics_per_server\": 4}}"};
  trn_exp_t x[6];
  int32_t slot[6];
  eng_batch_t *b = trnexp_run(6, text, x, slot, ENG_BACKEND_CPU, 1);
  CHECK(b != NULL);
  if (!b) return;
  /* Compute never slowed by communication. Every GPU alike (TP pairs {0,1}, {2,3};
   * DP pairs {0,2}, {1,3}; sync 1 us):
   *   F0 0-1 us; TP all-reduce of 1 MiB: 10 + 10.48576 us, ends 21.48576; update 0.1
   *   F1 21.58576-23.08576; IG1 -25.58576; WG1 -29.08576, its DP all-reduce (1 MiB)
   *   ends 49.57152 and its update 49.77152 (the iteration's end waits, IG0 does not)
   *   IG0 29.08576-31.08576; TP all-reduce ends 51.57152; update: WG0 51.67152-54.67152
   *   DP all-reduce of 2 MiB: 10 + 20.97152 us, ends 85.64304; update: 85.74304 us */
  eng_result_t er;
  eng_exp_result(b, slot[0], &er);
  CHECK_EQ_I64(er.status, ENG_OK);
  CHECK_EQ_I64(er.end_ps, 85743040);
  trn_result_t r = trnexp_result(x, b, slot, 0);
  CHECK_EQ_I64(r.status, BASE_OK);
  CHECK(r.v[TRN_R_iteration_time_s] == 85743040e-12);
  /* compute on GPU 0: 1 + 1.5 + 2.5 + 3.5 + 2 + 3 us */
  CHECK_REL(r.v[TRN_R_compute_s], 13.5e-6, 1e-12);
  /* TP exposed: its two all-reduces; DP: the last one after WG0 and the update delay
   * before the end, minus nothing else running */
  CHECK_REL(r.v[TRN_R_exposed_tp_s], 2 * 20.48576e-6, 1e-9);
  /* An imported workload's compute times are measured: without cluster.overlap_slowdown
   * they are not slowed (the A100 preset's 1.189 does not apply) */
  eng_exp_result(b, slot[5], &er);
  CHECK_EQ_I64(er.end_ps, 85743040);
  CHECK_EQ_I64(x[5].params.overlap_q16, 65536);
  /* With the A100's overlap slowdown given, 1.189 (77922 / 2^16): WG1's DP all-reduce (its step
   * from 30.08576 us, sync after WG1) overlaps IG0 (from 29.08576): 1 us at full speed,
   * the other 1 us of work at 1/s: ceil(1e6 x 77922 / 65536) = 1188996 ps, IG0 ends
   * 31.274756; TP all-reduce ends 51.760516; WG0 51.860516-54.860516; DP all-reduce
   * ends 85.832036, and its update 85.932036 us */
  eng_exp_result(b, slot[4], &er);
  CHECK_EQ_I64(er.end_ps, 85932036);
  r = trnexp_result(x, b, slot, 4);
  CHECK_REL(r.v[TRN_R_compute_s], 13.688996e-6, 1e-12);
  /* the malformed file: one line naming the file and the line */
  CHECK_EQ_I64(x[1].status, BASE_INVALID);
  CHECK_STR_CONTAINS(x[1].message, "wl_toy_bad.txt:4: ");
  CHECK(strchr(x[1].message, '\n') == NULL);
  /* our SimAI (32 GPUs: TP 4, EP 2, PP 2) and ASTRA-sim DLRM examples run */
  for (int i = 2; i < 4; i++) {
    trn_result_t q = trnexp_result(x, b, slot, i);
    CHECK_EQ_I64(q.status, BASE_OK);
    CHECK(q.v[TRN_R_iteration_time_s] > 0);
  }
  eng_batch_destroy(b);
  for (int i = 0; i < 6; i++)
    trn_exp_free(&x[i]);
}

int main(void) {
  if (trnexp_init(toy_model)) return 1;
  test_toy();
  trn_presets_free(&trntest_presets);
  coll_model_free(&trnexp.cm);
  return mvtest_end();
}
