/* ASTRA-sim 1.0's workloads as ASTRA-sim 1.0 runs them: its ten example files
 * (tests/data/peers/astra-sim-1.0, unchanged) on 8 servers of 8 H100 (dimensions
 * [8, 8]): the groups each policy decodes from the dimensions (flows and bytes by
 * hand), DLRM's embedding all-to-alls, the loops' compute (layer 0's input gradient
 * skipped where ASTRA-sim skips it); the transformer loop of each flavour timed by
 * hand; and the refusals of what ASTRA-sim 1.0 does not run. */
#include "trnexp.h"

/* An all-reduce of 2 GPUs takes 10 us + bytes / (100 GB/s) (as test_trn_import.c). */
static const char *const toy_model =
    "{\"models\": [{\"gpu\": \"a100-80gb\", \"collective\": \"allreduce\", \"gpus\": 2,"
    " \"ranges\": [{\"max_bytes\": null, \"alpha_us\": 10, \"beta_GBps\": 100}]}],"
    " \"gpus\": {\"a100-80gb\": {\"busbw_GBps\": {\"allreduce\": 200, \"other\": 200}},"
    " \"h100-sxm\": {\"busbw_GBps\": {\"allreduce\": 400, \"other\": 400}}},"
    " \"reference\": {\"gpu\": \"a100-80gb\", \"collective\": \"allreduce\", \"gpus\": 2}}";

static char *text_of(const char *file, const char *wl, const char *cluster) {
  char *s = malloc(2048);
  snprintf(s, 2048, "{\"workload\": {\"file\": \"%s\"%s}, \"cluster\": {%s}}", file, wl, cluster);
  return s;
}

/* Compute of the loop of `policy` on one GPU: forward, weight gradient and input
 * gradient of every layer, without layer 0's input gradient under DATA and DLRM. */
static int64_t loop_compute(const char *file, int skip_ig0) {
  trn_wl_t wl;
  char err[512], path[512];
  snprintf(path, sizeof path, "%s/%s", getenv("MV_TEST_DATA"), file);
  CHECK_EQ_I64(trn_wl_read(path, 0, &wl, err, sizeof err), 0);
  int64_t t = 0;
  for (int32_t l = 0; l < wl.n_layers; l++)
    t += wl.layers[l].fwd.compute_ps + wl.layers[l].wg.compute_ps +
         (l == 0 && skip_ig0 ? 0 : wl.layers[l].ig.compute_ps);
  trn_wl_free(&wl);
  return t;
}

static void examples(void) {
  static const char *const f[] = {
      "peers/astra-sim-1.0/MLP_HybridParallel_Data_Model.txt",
      "peers/astra-sim-1.0/MLP_HybridParallel_Model_Data.txt",
      "peers/astra-sim-1.0/sample_per_layer_parallel_HybridCustomized.txt",
      "peers/astra-sim-1.0/DLRM_HybridParallel.txt",
      "peers/astra-sim-1.0/microAllReduce.txt",
      "peers/astra-sim-1.0/microAllToAll.txt",
      "peers/astra-sim-1.0/Resnet50_DataParallel.txt",
      "peers/astra-sim-1.0/MLP_ModelParallel.txt",
  };
  enum { N = 8 };
  char *text[N];
  for (int i = 0; i < N; i++)
    text[i] = text_of(f[i], "", "\"gpu\": \"h100-sxm\", \"servers\": 8");
  trn_exp_t x[N];
  int32_t slot[N];
  eng_batch_t *b = trnexp_run(N, (const char *const *)text, x, slot, ENG_BACKEND_CPU, 1);
  CHECK(b != NULL);
  trn_result_t r[N];
  for (int i = 0; i < N; i++) {
    r[i] = trnexp_result(x, b, slot, i);
    CHECK_EQ_I64(r[i].status, BASE_OK);
  }
  /* A ring all-reduce among 8 servers moves 14 S in 112 flows, an all-gather of
   * 8 x S (each member's S) 56 S in 56 flows, a reduce-scatter 7 S in 56 flows; 8
   * such groups side by side. HYBRID_DATA_MODEL: model = dimension 0 (a server's 8
   * GPUs: the intra-server model, no flow), data = dimension 1: each layer's weight
   * gradient all-reduce across servers. */
  const int64_t wg_sizes = 37632 + 65536 + 65536 + 147456 + 65536 + 65536;
  CHECK_EQ_I64(x[0].graph.n_flows, 6 * 8 * 112);
  CHECK_EQ_I64(x[0].graph.flow_bytes, 8 * 14 * wg_sizes);
  /* HYBRID_MODEL_DATA: model across servers: forward all-gathers of every layer,
   * input-gradient all-reduces of layers 1 to 5 (ASTRA-sim issues none for layer 0);
   * data (weight gradients) inside servers */
  CHECK_EQ_I64(x[1].graph.n_flows, 6 * 8 * 56 + 5 * 8 * 112);
  CHECK_EQ_I64(x[1].graph.flow_bytes, 8 * 56 * wg_sizes + 8 * 14 * (wg_sizes - 37632));
  /* HYBRID_CUSTOMIZED, each layer its own policy: layer 0 HYBRID_DATA_MODEL (its weight
   * gradient across servers: 112 S), layers 1 and 5 HYBRID_MODEL_DATA (all-gather and
   * reduce-scatter across servers: 448 S + 56 S), layer 2 DATA (an all-reduce of all
   * 64 GPUs: 14 S), layers 3 and 4 MODEL (all-gather and reduce-scatter of all 64:
   * 448 S + 7 S) */
  CHECK_EQ_I64(x[2].graph.flow_bytes,
               112 * 37632 + 2 * 504 * 65536 + 14 * 65536 + 455 * (147456 + 65536));
  CHECK(r[2].v[TRN_R_iteration_time_s] != r[0].v[TRN_R_iteration_time_s]);
  /* HYBRID_DLRM: the embedding's forward and input-gradient all-to-alls among all 64
   * GPUs (as microAllToAll's), the other 7 layers' weight-gradient all-reduces among
   * all 64 (as microAllReduce's, 1 MiB there) */
  CHECK_EQ_I64(x[3].graph.n_flows, 2 * x[5].graph.n_flows + 7 * x[4].graph.n_flows);
  CHECK_EQ_I64(x[3].graph.flow_bytes,
               2 * x[5].graph.flow_bytes * 98304 / 1048576 +
                   14 * (13312 + 524288 + 524288 + 16384 + 1064960 + 524288 + 524288));
  CHECK(r[3].v[TRN_R_exposed_ep_s] > 0);
  /* the loops' compute, not slowed (imported times): DLRM and DATA skip layer 0's
   * input gradient */
  CHECK_EQ_I64(llround(r[3].v[TRN_R_compute_s] * 1e12), loop_compute(f[3], 1));
  CHECK_EQ_I64(llround(r[3].v[TRN_R_compute_s] * 1e12), 51378000);
  CHECK_EQ_I64(llround(r[6].v[TRN_R_compute_s] * 1e12), loop_compute(f[6], 1));
  CHECK_EQ_I64(llround(r[7].v[TRN_R_compute_s] * 1e12), loop_compute(f[7], 0));
  /* MICRO runs the first layer's weight-gradient collective only (ASTRA-sim's loop) */
  CHECK_EQ_I64(r[4].v[TRN_R_compute_s], 0);
  eng_batch_destroy(b);
  for (int i = 0; i < N; i++) {
    trn_exp_free(&x[i]);
    free(text[i]);
  }
}

/* wl_toy.txt (HYBRID_TRANSFORMER, TP pairs {0,1}, {2,3}, DP pairs {0,2}, {1,3}) as
 * ASTRA-sim 1.0 runs it: backward per layer the input-gradient collective is not
 * blocking and overlaps the weight gradient's compute:
 *   F0 0-1 us; TP all-reduce (1 MiB) to 21.48576, update 0.1; F1 -23.08576
 *   IG1 -25.58576 (no collective); WG1 -29.08576, DP all-reduce (1 MiB) to 49.57152
 *   IG0 -31.08576, TP all-reduce from then to 51.57152; WG0 -34.08576 beside it
 *   DP all-reduce of 2 MiB: 10 + 20.97152 us, ends 65.05728; update: 65.15728 us.
 * SimAI's loop blocks on the input gradient: 85.74304 us (test_trn_import.c). */
static void flavours(void) {
  const char *cl = "\"gpu\": \"a100-80gb\", \"servers\": 1, \"gpus_per_server\": 4, "
                   "\"nics_per_server\": 4";
  char *text[8] = {
      text_of("wl_toy.txt", ", \"flavor\": \"astra-sim-1.0\"", cl),
      text_of("wl_toy.txt", "", cl),
      /* refused: SimAI's group suffixes under ASTRA-sim 1.0, a DLRM file without its last
       * bottom layer, dimensions that do not hold the cluster, an unknown flavour */
      text_of("wl_simai.txt", ", \"flavor\": \"astra-sim-1.0\"",
              "\"gpu\": \"a100-80gb\", \"servers\": 4"),
      text_of("peers/astra-sim-1.0/MLP_ModelParallel.txt", ", \"dims\": [4, 4]", cl),
      text_of("wl_toy.txt", ", \"flavor\": \"astra\"", cl),
      text_of("wl_dlrm_nolast.txt", "", cl),
      text_of("peers/astra-sim-1.0/MLP_HybridParallel_Data_Model.txt", ", \"dims\": [2, 2]", cl),
      text_of("peers/astra-sim-1.0/microAllReduce.txt", ", \"comm_groups\": \"g.json\"", cl),
  };
  trn_exp_t x[8];
  int32_t slot[8];
  eng_batch_t *b = trnexp_run(8, (const char *const *)text, x, slot, ENG_BACKEND_CPU, 1);
  CHECK(b != NULL);
  eng_result_t er;
  eng_exp_result(b, slot[0], &er);
  CHECK_EQ_I64(er.end_ps, 65157280);
  eng_exp_result(b, slot[1], &er);
  CHECK_EQ_I64(er.end_ps, 85743040);
  static const char *const msg[] = {
      "line 3: ALLREDUCE_DP_EP is SimAI's (ASTRA-sim 1.0 runs no collective for it)",
      "dims (the workload's, or the torus's) hold 16 GPUs, the cluster 4",
      "workload.flavor: must be \"simai\" or \"astra-sim-1.0\"",
      "HYBRID_DLRM without DLRM_LAST_BOTTOM_LAYER",
      NULL,
      "workload.comm_groups: only for a Chakra trace set",
  };
  for (int i = 2; i < 8; i++) {
    if (!msg[i - 2]) { /* dims [2, 2]: the 4 GPUs of the server, 2 x 2 */
      CHECK_EQ_I64(x[i].status, BASE_OK);
      continue;
    }
    CHECK_EQ_I64(x[i].status, BASE_INVALID);
    CHECK_STR_CONTAINS(x[i].message, msg[i - 2]);
  }
  eng_batch_destroy(b);
  for (int i = 0; i < 8; i++) {
    trn_exp_free(&x[i]);
    free(text[i]);
  }
}

/* Training jobs on a torus and with the ns3_hpcc preset (both were refused:
 * `topology.host_gbps: unknown key`, `priority 0 is not a traffic class`). On a ring of
 * 8 (a torus [8], 400 Gb/s, 250 ns) microAllReduce's ring moves each step over one
 * link and the ACKs go the other way: 14 (P D + d) + A + d, then the 5 ns update. */
static void topologies(void) {
  const char *cl = "\"gpu\": \"h100-sxm\", \"servers\": 8, \"gpus_per_server\": 1, "
                   "\"nics_per_server\": 1}, \"network\": {\"link_delay_ns\": 250, "
                   "\"ack_every\": 1073741824";
  char c0[512], c1[512];
  snprintf(c0, sizeof c0, "%s, \"topology\": {\"kind\": \"torus\", \"dims\": [8]}", cl);
  snprintf(c1, sizeof c1, "%s, \"preset\": \"ns3_hpcc\"", cl);
  char *text[2] = {text_of("peers/astra-sim-1.0/microAllReduce.txt", "", c0),
                   text_of("peers/astra-sim-1.0/microAllReduce.txt", "", c1)};
  trn_exp_t x[2];
  int32_t slot[2];
  eng_batch_t *b = trnexp_run(2, (const char *const *)text, x, slot, ENG_BACKEND_CPU, 1);
  CHECK(b != NULL);
  const eng_params_t *p = &x[0].params;
  int64_t D = (p->mtu + p->header) * 8 * 1000 / 400, A = p->ctrl_bytes * 8 * 1000 / 400,
          d = 250000, P = 131072 / p->mtu;
  eng_result_t er;
  eng_exp_result(b, slot[0], &er);
  CHECK_EQ_I64(er.status, ENG_OK);
  CHECK_EQ_I64(er.end_ps, 14 * (P * D + d) + A + d + 5000);
  eng_exp_result(b, slot[1], &er);
  CHECK_EQ_I64(er.status, ENG_OK);
  CHECK(x[1].params.classes);
  for (int32_t i = 0; i < x[1].graph.g.n; i++)
    if (x[1].graph.g.t[i].kind == TG_FLOW) CHECK_EQ_I64(x[1].graph.g.t[i].prio, 3);
  eng_batch_destroy(b);
  for (int i = 0; i < 2; i++) {
    trn_exp_free(&x[i]);
    free(text[i]);
  }
}

int main(void) {
  if (trnexp_init(NULL)) return 1;
  examples();
  topologies();
  coll_model_free(&trnexp.cm);
  trn_presets_free(&trntest_presets);
  if (trnexp_init(toy_model)) return 1;
  flavours();
  trn_presets_free(&trntest_presets);
  coll_model_free(&trnexp.cm);
  return mvtest_end();
}
