/* SimAI's own files in training jobs (tests/data/peers/simai): its example
 * microAllReduce.txt (two TP all-reduces of 16 and 64 MiB among 8 GPUs) over a
 * topology its gen_Topo_Template.py wrote (Spectrum-X, 8 H100 on one NVSwitch at
 * 2880 Gb/s, 25 ns): the all-reduces are rings of flows over NVLink, ending at the
 * closed form of a ring on a star; the cluster must be the file's; without the file
 * the intra-server model times them (no flow). */
#define _POSIX_C_SOURCE 200809L /* strdup */
#include "trnexp.h"

static char *text_of(const char *topo, const char *gpu, int gps) {
  char *s = malloc(1024);
  snprintf(s, 1024,
           "{\"workload\": {\"file\": \"peers/simai/microAllReduce.txt\"}, \"cluster\": {\"gpu\": "
           "\"%s\", \"servers\": %d, \"gpus_per_server\": %d, \"nics_per_server\": %d}, "
           "\"network\": {%s%s%s\"ack_every\": 1073741824}}",
           gpu, 8 / gps, gps, gps, topo ? "\"topology\": {\"kind\": \"file\", \"path\": \"" : "",
           topo ? topo : "", topo ? "\"}, " : "");
  return s;
}

static int64_t ser(int64_t bytes, int64_t rate) {
  return (bytes * 8 * 1000000000000LL + rate - 1) / rate;
}

static void microallreduce(void) {
  const char *topo = "peers/simai/Spectrum-X_8g_8gps_400Gbps_H100";
  char *text[4] = {text_of(topo, "h100-sxm", 8), text_of(NULL, "h100-sxm", 8),
                   text_of(topo, "h100-sxm", 4), text_of(topo, "a100-80gb", 8)};
  trn_exp_t x[4];
  int32_t slot[4];
  eng_batch_t *b = trnexp_run(4, (const char *const *)text, x, slot, ENG_BACKEND_CPU, 1);
  CHECK(b != NULL);
  /* A ring step of b bytes on the NVSwitch star: P + 1 packets serialised at 2880 Gb/s,
   * two links of 25 ns; 14 steps, the ACK first on each link after the first; the
   * last ACK back over two links (test_coll_closed.c). */
  const eng_params_t *p = &x[0].params;
  const int64_t r = 2880000000000LL, d = 25000;
  int64_t D = ser(p->mtu + p->header, r), A = ser(p->ctrl_bytes, r);
#define RING(bytes) (14 * (((bytes) / p->mtu + 1) * D + 2 * d) + 13 * A + 2 * (A + d))
  /* forward: 556 us, all-reduce of 16 MiB, 1 ns update, 556 us, 64 MiB, 1 ns; backward
   * four 1 ns computes */
  int64_t want = 2 * 556000000LL + RING(2097152) + RING(8388608) + 6000;
#undef RING
  eng_result_t er;
  eng_exp_result(b, slot[0], &er);
  CHECK_EQ_I64(er.status, ENG_OK);
  CHECK_EQ_I64(er.end_ps, want);
  CHECK_EQ_I64(x[0].graph.n_flows, 2 * 8 * 14);
  CHECK(x[0].topo.nvswitch != NULL);
  /* without the SimAI file the intra-server model times them */
  CHECK_EQ_I64(x[1].status, BASE_OK);
  CHECK_EQ_I64(x[1].graph.n_flows, 0);
  CHECK_EQ_I64(x[2].status, BASE_INVALID);
  CHECK_STR_CONTAINS(x[2].message, "a SimAI topology of 8 GPUs per server, each its own NIC");
  CHECK_EQ_I64(x[3].status, BASE_INVALID);
  CHECK_STR_CONTAINS(x[3].message, "the SimAI topology is for H100 GPUs, cluster.gpu is a100-80gb");
  eng_batch_destroy(b);
  for (int i = 0; i < 4; i++) {
    trn_exp_free(&x[i]);
    free(text[i]);
  }
}

/* An all-reduce of 2 GPUs takes 10 us + bytes / (100 GB/s) (as test_trn_import.c). */
static const char *const toy_model =
    "{\"models\": [{\"gpu\": \"a100-80gb\", \"collective\": \"allreduce\", \"gpus\": 2,"
    " \"ranges\": [{\"max_bytes\": null, \"alpha_us\": 10, \"beta_GBps\": 100}]}],"
    " \"gpus\": {\"a100-80gb\": {\"busbw_GBps\": {\"allreduce\": 200, \"other\": 200}}},"
    " \"reference\": {\"gpu\": \"a100-80gb\", \"collective\": \"allreduce\", \"gpus\": 2}}";

/* SimAI's pipeline (pp, vpp, ga): its analytical bubble after the pass, (pp - 1) /
 * (ga vpp) of GPU 0's pass outside the embedding layer (compute and waits for its
 * blocking collectives; Layer::report). wl_toy_pp.txt is wl_toy.txt (85.74304 us,
 * test_trn_import.c) with pp 2, vpp 2, ga 4 on 8 GPUs (stages in their servers, so
 * every GPU runs as there): GPU 0 computes 13.5 us and waits 2 x 20.58576 us for its
 * TP all-reduces (forward of layer 0, input gradient of layer 0; the update delay
 * included): 54.67152 us, whose 1/8 is 6.83394 us. */
static void bubble(void) {
  char *text[2] = {
      strdup("{\"workload\": {\"file\": \"wl_toy_pp.txt\"}, \"cluster\": {\"gpu\": \"a100-80gb\", "
             "\"servers\": 2, \"gpus_per_server\": 4, \"nics_per_server\": 4}}"),
      strdup("{\"workload\": {\"file\": \"wl_toy.txt\"}, \"cluster\": {\"gpu\": \"a100-80gb\", "
             "\"servers\": 1, \"gpus_per_server\": 4, \"nics_per_server\": 4}}")};
  trn_exp_t x[2];
  int32_t slot[2];
  eng_batch_t *b = trnexp_run(2, (const char *const *)text, x, slot, ENG_BACKEND_CPU, 1);
  CHECK(b != NULL);
  eng_result_t er;
  eng_exp_result(b, slot[0], &er);
  CHECK_EQ_I64(er.end_ps, 85743040); /* the pass itself */
  trn_result_t r = trnexp_result(x, b, slot, 0), r1 = trnexp_result(x, b, slot, 1);
  CHECK_EQ_I64(llround(r.v[TRN_R_iteration_time_s] * 1e12), 85743040 + 6833940);
  CHECK_EQ_I64(llround(r.v[TRN_R_bubble_s] * 1e12) - llround(r1.v[TRN_R_bubble_s] * 1e12), 6833940);
  CHECK_EQ_I64(llround(r1.v[TRN_R_iteration_time_s] * 1e12), 85743040); /* pp 1: none */
  eng_batch_destroy(b);
  for (int i = 0; i < 2; i++) {
    trn_exp_free(&x[i]);
    free(text[i]);
  }
}

int main(void) {
  if (trnexp_init(NULL)) return 1;
  microallreduce();
  coll_model_free(&trnexp.cm);
  trn_presets_free(&trntest_presets);
  if (trnexp_init(toy_model)) return 1;
  bubble();
  trn_presets_free(&trntest_presets);
  coll_model_free(&trnexp.cm);
  return mvtest_end();
}
