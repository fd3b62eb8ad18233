/* Training models: the ASTRA-sim 1.0 / SimAI workload reader: our example files
 * summed by hand, time units, collectives and groups, and one message per kind of
 * malformed file. */
#include "mvtest.h"
#include "train/trn_wl.h"

typedef struct totals_t {
  int64_t fwd, ig, wg, update; /* ps */
  uint64_t bytes[4];           /* by group */
} totals_t;

static totals_t sum(const trn_wl_t *wl) {
  totals_t t = {0};
  for (int32_t i = 0; i < wl->n_layers; i++) {
    const trn_wl_layer_t *l = &wl->layers[i];
    t.fwd += l->fwd.compute_ps;
    t.ig += l->ig.compute_ps;
    t.wg += l->wg.compute_ps;
    t.update += l->update_ps;
    const trn_wl_phase_t *ph[3] = {&l->fwd, &l->ig, &l->wg};
    for (int k = 0; k < 3; k++)
      if (ph[k]->comm != TRN_WL_NONE) t.bytes[ph[k]->group] += ph[k]->bytes;
  }
  return t;
}

static void test_simai(void) {
  trn_wl_t wl;
  char err[512] = "";
  CHECK_EQ_I64(trn_wl_read(mvtest_data("wl_simai.txt"), 0, &wl, err, sizeof err), 0);
  CHECK_EQ_I64(wl.policy, TRN_WL_HYBRID_TRANSFORMER_FWD_IN_BCKWD);
  CHECK_EQ_I64(wl.tp, 4);
  CHECK_EQ_I64(wl.ep, 2);
  CHECK_EQ_I64(wl.pp, 2);
  CHECK_EQ_I64(wl.vpp, 1);
  CHECK_EQ_I64(wl.ga, 8);
  CHECK_EQ_I64(wl.all_gpus, 32);
  CHECK_EQ_I64(wl.pp_comm_bytes, 1048576);
  CHECK_EQ_I64(wl.dlrm_last_bottom, -1);
  CHECK_EQ_I64(wl.n_layers, 5);
  totals_t t = sum(&wl);
  /* nanoseconds: fwd 1500+2500+2500+4000+1, ig 10+3000+3000+8000+1, wg 2000+2500+2500+1+7 */
  CHECK_EQ_I64(t.fwd, 10501000);
  CHECK_EQ_I64(t.ig, 14011000);
  CHECK_EQ_I64(t.wg, 7008000);
  CHECK_EQ_I64(t.update, 500000);
  /* TP: fwd 4194304 + 1048576 + 1048576 + 16384 (broadcast), ig 1048576 + 1048576 */
  CHECK_EQ_I64(t.bytes[TRN_WL_TP], 8404992);
  CHECK_EQ_I64(t.bytes[TRN_WL_EP], 4194304);
  CHECK_EQ_I64(t.bytes[TRN_WL_DP_EP], 25165824);
  CHECK_EQ_I64(t.bytes[TRN_WL_DP], 33554432); /* a weight-gradient collective without suffix */
  const trn_wl_layer_t *l = wl.layers;
  CHECK(strcmp(l[0].name, "embedding_layer") == 0);
  CHECK_EQ_I64(l[0].reserved, -1);
  CHECK_EQ_I64(l[0].fwd.comm, TRN_WL_ALLREDUCE);
  CHECK_EQ_I64(l[0].fwd.group, TRN_WL_TP);
  CHECK_EQ_I64(l[0].ig.comm, TRN_WL_NONE);
  CHECK_EQ_I64(l[0].wg.group, TRN_WL_DP_EP);
  CHECK_EQ_I64(l[3].fwd.comm, TRN_WL_ALLTOALL);
  CHECK_EQ_I64(l[3].fwd.group, TRN_WL_EP);
  CHECK_EQ_I64(l[4].fwd.comm, TRN_WL_BROADCAST);
  CHECK_EQ_I64(l[2].line, 6); /* after a blank line */
  CHECK(strcmp(l[2].name, "attention_row") == 0);
  for (int i = 0; i < 5; i++) {
    CHECK_EQ_I64(l[i].checkpoint, i == 2);
    CHECK_EQ_I64(l[i].initiates, i == 3);
    CHECK_EQ_I64(l[i].policy, TRN_WL_HYBRID_TRANSFORMER_FWD_IN_BCKWD);
  }
  trn_wl_free(&wl);
}

/* ASTRA-sim 1.0: CRLF lines, tabs, no newline at the end; cycles of a 2 GHz clock. */
static void test_astra(void) {
  trn_wl_t wl;
  char err[512] = "";
  CHECK_EQ_I64(trn_wl_read(mvtest_data("wl_astra.txt"), 500, &wl, err, sizeof err), 0);
  CHECK_EQ_I64(wl.policy, TRN_WL_HYBRID_DLRM);
  CHECK_EQ_I64(wl.dlrm_last_bottom, 2);
  CHECK_EQ_I64(wl.tp, 0);
  CHECK_EQ_I64(wl.n_layers, 3);
  totals_t t = sum(&wl);
  CHECK_EQ_I64(t.fwd, (250 + 1000 + 6000) * 500);
  CHECK_EQ_I64(t.ig, (250 + 800 + 6000) * 500);
  CHECK_EQ_I64(t.wg, (200 + 900 + 4000) * 500);
  CHECK_EQ_I64(t.update, (50 + 12 + 1000) * 500);
  CHECK_EQ_I64(t.bytes[TRN_WL_TP], 2 * 65536);
  CHECK_EQ_I64(t.bytes[TRN_WL_DP], 12288 + 1048576);
  CHECK_EQ_I64(wl.layers[2].wg.comm, TRN_WL_ALLREDUCEALLTOALL);
  CHECK(strcmp(wl.layers[2].name, "MLP_Top_0") == 0);
  trn_wl_free(&wl);

  CHECK_EQ_I64(trn_wl_read(mvtest_data("wl_custom.txt"), 0, &wl, err, sizeof err), 0);
  CHECK_EQ_I64(wl.policy, TRN_WL_HYBRID_CUSTOMIZED);
  CHECK_EQ_I64(wl.layers[0].policy, TRN_WL_HYBRID_DATA_MODEL);
  CHECK_EQ_I64(wl.layers[1].policy, TRN_WL_DATA);
  CHECK_EQ_I64(wl.layers[1].wg.group, TRN_WL_EP);
  CHECK_EQ_I64(wl.layers[1].wg.bytes, 256);
  CHECK_EQ_I64(sum(&wl).fwd, 21000);
  trn_wl_free(&wl);
}

static void check_bad(const char *file, const char *phrase) {
  trn_wl_t wl;
  char err[512] = "", want[256];
  CHECK_EQ_I64(trn_wl_read(mvtest_data(file), 0, &wl, err, sizeof err), -1);
  snprintf(want, sizeof want, "%s:", file);
  CHECK_STR_CONTAINS(err, want);
  CHECK_STR_CONTAINS(err, phrase);
  CHECK(strchr(err, '\n') == NULL);
  CHECK_EQ_I64(wl.n_layers, 0);
  CHECK(wl.layers == NULL);
}

static void test_bad(void) {
  check_bad("bad/wl_policy.txt", ":1: 'PIPELINE' is not a parallelism keyword");
  check_bad("bad/wl_header_field.txt", ":1: unknown header field 'tp:'");
  check_bad("bad/wl_header_value.txt",
            ":1: header field 'model_parallel_NPU_group:' must be a count, got 'x'");
  check_bad("bad/wl_header_missing.txt",
            ":1: header field 'model_parallel_NPU_group:' has no value");
  check_bad("bad/wl_count.txt", ":2: expected the number of layers (1..16777216) alone");
  check_bad("bad/wl_fields.txt", ":3: expected 12 fields (name reserved");
  check_bad("bad/wl_comm.txt", ":4: weight-gradient communication 'ALLGATHER_DP' is not NONE");
  check_bad("bad/wl_time.txt", ":3: forward compute time '-10' is not a time");
  check_bad("bad/wl_overflow.txt", ":3: update time '99999999999999999' is not a time");
  check_bad("bad/wl_size.txt", ":3: communication size '1e6' is not a number of bytes");
  check_bad("bad/wl_fewer.txt", ":4: the file ends after 2 of the 3 layers announced on line 2");
  check_bad("bad/wl_more.txt", ":5: more layers than the 1 announced on line 2");
  check_bad("bad/wl_checkpoint.txt", ":1: checkpoint layer 7 is not one of the 2 layers");
  check_bad("bad/wl_checkpoint_count.txt",
            ":1: header field 'checkpoints:' must be a count of the layers that follow, got '3'");
  check_bad("bad/wl_empty.txt", ":1: expected the parallelism keyword");
  check_bad("bad/wl_custom_policy.txt", ":3: layer parallelism 'FOO' is not a parallelism");
  check_bad("bad/wl_extra_field.txt", ":3: expected 12 fields");
  trn_wl_t wl;
  char err[512];
  CHECK_EQ_I64(trn_wl_read("/nonexistent/wl.txt", 0, &wl, err, sizeof err), -1);
  CHECK_STR_CONTAINS(err, "cannot open /nonexistent/wl.txt");
}

int main(void) {
  test_simai();
  test_astra();
  test_bad();
  return mvtest_end();
}
