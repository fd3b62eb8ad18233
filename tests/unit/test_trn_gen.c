/* The training task graph run by the engine: a TP-only iteration equals its closed
 * form (compute and TP collectives in sequence); one task per pass equals one per
 * layer to the picosecond; a DP-only job's exposed DP time is its last bucket's
 * all-reduce, which equals that all-reduce alone; flows and tasks as counted.
 * With the A100's overlap slowdown (77922/2^16) the backward's compute grows by
 * exactly (1 - 1/s) of the overlapped collectives' time; ZeRO 0, 1 and 3 give
 * their counts of all-reduces, reduce-scatters and all-gathers; experts their
 * all-to-alls. Sizes before work: a cluster past its topology's port limit is
 * refused before the graph is generated (it took minutes and GBs for 1e6 GPUs),
 * and a graph that passes the tasks this process may build stops there, `oom`. */
#include <math.h>

#include "train/trn_gen.h"
#include "trnexp.h"

/* A 4-layer model of hidden 1024, GeLU, learned positions; and one whose GEMMs outlast
 * the TP collectives they overlap. */
#define SMALL_MODEL                                                                                \
  "\"model\": {\"layers\": 4, \"hidden\": 1024, \"heads\": 8, \"vocab\": 8192, \"seq_len\": 512}"
#define WIDE_MODEL                                                                                 \
  "\"model\": {\"layers\": 4, \"hidden\": 4096, \"heads\": 32, \"vocab\": 8192, \"seq_len\": "     \
  "2048}"

static int64_t tp_ps(coll_kind_t k, uint64_t bytes) {
  int64_t ps = 0;
  char err[256];
  CHECK(coll_model_time(&trnexp.cm, "a100-80gb", k, 8, bytes, &ps, err, sizeof err) == 0);
  return ps;
}

/* One server, tp 8, one micro-batch: compute and blocking TP collectives alternate,
 * the overlapped ones are shorter than the GEMMs they overlap. */
static void test_tp_closed_form(void) {
  const char *text[3] = {
      "{" WIDE_MODEL ", \"training\": {\"global_batch\": 1, \"tp\": 8, \"sequence_parallel\": "
      "true, \"recompute\": \"selective\"}, \"cluster\": {\"gpu\": \"a100-80gb\", \"servers\": 1,"
      " \"overlap_slowdown\": 1}}",
      "{" WIDE_MODEL ", \"training\": {\"global_batch\": 1, \"tp\": 8, \"recompute\": \"full\"},"
      " \"cluster\": {\"gpu\": \"a100-80gb\", \"servers\": 1, \"overlap_slowdown\": 1}}",
      "{" WIDE_MODEL ", \"training\": {\"global_batch\": 1, \"tp\": 8, \"sequence_parallel\": "
      "true, \"recompute\": \"selective\"}, \"cluster\": {\"gpu\": \"a100-80gb\", \"servers\": "
      "1}}"};
  double compute0 = 0, async0 = 0;
  trn_exp_t x[3];
  int32_t slot[3];
  eng_batch_t *b = trnexp_run(3, text, x, slot, ENG_BACKEND_CPU, 1);
  if (!b) return;
  for (int i = 0; i < 2; i++) {
    trn_result_t r = trnexp_result(x, b, slot, i);
    CHECK_EQ_I64(r.status, BASE_OK);
    const trn_costs_t *c = &x[i].costs;
    int sp = i == 0;
    uint64_t S = 2048 * 4096 * 2; /* s b h bf16 */
    int64_t ag = tp_ps(COLL_ALLGATHER, S), rs = tp_ps(COLL_REDUCESCATTER, S);
    int64_t ar = tp_ps(COLL_ALLREDUCE, S), ce = tp_ps(COLL_ALLREDUCE, 2048 * 4);
    /* a layer: forward AG+RS twice (SP) or AR twice; backward AG twice (SP), plus the
     * forward's again under full recomputation */
    int64_t layer = sp ? 2 * (ag + rs) + 2 * ag : 2 * ar + 2 * ar;
    /* embedding: RS (SP) or AR, backward AG (SP); head: gather (SP) and the loss's
     * three all-reduces; SP: the norms' gradients (2 norms x 2h x 4 layers fp32) */
    int64_t extra = (sp ? rs + ag + ag : ar) + 3 * ce;
    if (sp) extra += tp_ps(COLL_ALLREDUCE, 2 * 8192 * 4 * 4);
    double tp = (double)(4 * layer + extra) * 1e-12;
    CHECK_REL(r.v[TRN_R_exposed_tp_s], tp, 1e-9);
    /* compute: every op forward and backward (recomputation in the layers' backward),
     * and the optimizer step */
    int64_t head = c->op[TRN_OP_FINAL_LN].fwd_ps + c->op[TRN_OP_LOGITS].fwd_ps +
                   c->op[TRN_OP_LOSS].fwd_ps + c->op[TRN_OP_FINAL_LN].bwd_ps +
                   c->op[TRN_OP_LOGITS].bwd_ps + c->op[TRN_OP_LOSS].bwd_ps;
    int64_t comp = 4 * (c->layer_fwd_ps + c->layer_bwd_ps) + c->op[TRN_OP_EMBED].fwd_ps +
                   c->op[TRN_OP_EMBED].bwd_ps + head;
    trn_stage_params_t p = trn_stage_params(&x[i].setup, 0);
    int64_t opt = trn_op_time_ps(&x[i].setup.cluster.gpu, 0, (double)p.dense * 42, 0);
    CHECK_REL(r.v[TRN_R_compute_s], (double)(comp + opt) * 1e-12, 1e-9);
    if (sp) { /* the overlapped collectives of the backward: 2 AG + 2 RS a layer, RS +
               * AG of the head */
      compute0 = r.v[TRN_R_compute_s];
      async0 = (double)(4 * 2 * (ag + rs) + rs + ag) * 1e-12;
    }
    /* nothing else: no bubble, no pipeline, no data parallelism */
    CHECK(r.v[TRN_R_bubble_s] < 1e-8 && r.v[TRN_R_exposed_pp_s] == 0 &&
          r.v[TRN_R_exposed_dp_s] == 0);
    CHECK_REL(r.v[TRN_R_iteration_time_s],
              r.v[TRN_R_compute_s] + r.v[TRN_R_exposed_tp_s] + r.v[TRN_R_bubble_s], 1e-12);
  }
  /* The A100's overlap slowdown s (77922 / 2^16): the backward's compute does its
   * work at 1/s while the overlapped collectives run: it ends (1 - 1/s) of their time
   * later; nothing else changes */
  trn_result_t r = trnexp_result(x, b, slot, 2);
  double s = 77922.0 / 65536;
  CHECK_EQ_I64(x[2].params.overlap_q16, 77922);
  CHECK_REL(r.v[TRN_R_compute_s], compute0 + async0 * (1 - 1 / s), 1e-9);
  printf("TP only: overlapped TP %.6f s slows the backward by %.6f s\n", async0,
         r.v[TRN_R_compute_s] - compute0);
  eng_batch_destroy(b);
  for (int i = 0; i < 3; i++)
    trn_exp_free(&x[i]);
}

/* tp 2, pp 2, dp 2 over 4 servers of 2 GPUs, interleaved: a task per layer gives what
 * a task per pass gives, to the picosecond. */
static void test_grains(void) {
  char t[2][2048];
  for (int i = 0; i < 2; i++)
    snprintf(t[i], sizeof t[i],
             "{" WIDE_MODEL ", \"training\": {\"global_batch\": 16, \"tp\": 2, \"pp\": 2, "
             "\"virtual_stages\": 2, \"sequence_parallel\": true, \"recompute\": \"selective\", "
             "\"bucket_params\": 2000000, \"task_grain\": \"%s\"},"
             " \"cluster\": {\"gpu\": \"a100-80gb\", \"servers\": 4, \"gpus_per_server\": 2, "
             "\"nics_per_server\": 2}}",
             i ? "layer" : "block");
  const char *text[2] = {t[0], t[1]};
  trn_exp_t x[2];
  int32_t slot[2];
  eng_batch_t *b = trnexp_run(2, text, x, slot, ENG_BACKEND_CPU, 1);
  if (!b) return;
  trn_result_t r0 = trnexp_result(x, b, slot, 0), r1 = trnexp_result(x, b, slot, 1);
  CHECK_EQ_I64(r0.status, BASE_OK);
  CHECK_EQ_I64(r1.status, BASE_OK);
  eng_result_t e0, e1;
  eng_exp_result(b, 0, &e0);
  eng_exp_result(b, 1, &e1);
  CHECK_EQ_I64(e0.end_ps, e1.end_ps);
  for (int k = 0; k <= TRN_R_bubble_s; k++) /* (rounding of slowed tasks: a few ps) */
    CHECK_REL(r0.v[k] + 1e-15, r1.v[k] + 1e-15, 1e-9);
  CHECK(r1.v[TRN_R_tasks] > r0.v[TRN_R_tasks]);
  CHECK_EQ_I64((int64_t)r0.v[TRN_R_flows], (int64_t)r1.v[TRN_R_flows]);
  printf("grains: %.0f tasks per pass, %.0f per layer, both %.12f s\n", r0.v[TRN_R_tasks],
         r1.v[TRN_R_tasks], r0.v[TRN_R_iteration_time_s]);
  /* Pipeline flows: every activation and gradient between the 4 virtual stages, per
   * micro-batch (8 per replica) and TP rank, across servers: 2 x 8 x 3 x 2 x 2 (dp). */
  int32_t pp = 0;
  for (int32_t i = 0; i < x[0].graph.g.n; i++)
    pp += x[0].graph.g.t[i].kind == TG_FLOW && x[0].graph.meta[i].cat == TRN_CAT_PP;
  CHECK_EQ_I64(pp, 2 * 8 * 3 * 2 * 2);
  eng_batch_destroy(b);
  for (int i = 0; i < 2; i++)
    trn_exp_free(&x[i]);
}

/* Data parallelism alone on 2 servers: a bucket per layer (and the head, and the
 * embedding), backward (5 ms a layer) longer than a bucket's all-reduce; the exposed DP time is the
 * last bucket's all-reduce, and that equals the same all-reduce alone in the network. */
static void test_dp_exposed(void) {
  const char *text[1] = {
      "{" SMALL_MODEL ", \"training\": {\"global_batch\": 4, \"bucket_params\": 1,"
      " \"op_time_us\": {\"qkv\": {\"fwd\": 1000, \"bwd\": 5000}, \"embed\": {\"fwd\": 10,"
      " \"bwd\": 5000}}},"
      " \"cluster\": {\"gpu\": \"a100-80gb\", \"servers\": 2, \"gpus_per_server\": 1,"
      "  \"nics_per_server\": 1}}"};
  trn_exp_t x[1];
  int32_t slot[1];
  eng_batch_t *b = trnexp_run(1, text, x, slot, ENG_BACKEND_CPU, 1);
  if (!b) return;
  trn_result_t r = trnexp_result(x, b, slot, 0);
  CHECK_EQ_I64(r.status, BASE_OK);
  const trn_graph_t *o = &x[0].graph;
  /* buckets: the head, each layer, the embedding: 6 per GPU */
  int32_t g = r.last_gpu, n = 0, last = -1;
  int64_t s0 = -1, s1 = -1, lo = 0, hi = 0;
  for (int32_t k = o->span_off[g]; k < o->span_off[g + 1]; k++)
    if (o->spans[k].cat == TRN_CAT_DP) {
      CHECK(trn_exp_span_times(&x[0], b, 0, &o->spans[k], &lo, &hi) == 0);
      n++;
      if (lo > s0) s0 = lo, s1 = hi, last = k;
    }
  CHECK_EQ_I64(n, 6);
  double ar = (double)(s1 - s0) * 1e-12;
  CHECK_REL(r.v[TRN_R_exposed_dp_s], ar, 1e-12);
  printf("DP only: exposed %.9f s = the last bucket's all-reduce (%llu bytes)\n",
         r.v[TRN_R_exposed_dp_s], (unsigned long long)o->spans[last].bytes);
  /* the same all-reduce alone, on the same topology and parameters */
  tg_t alone = {0};
  coll_cluster_t cl = {.gpus_per_server = 1, .nics_per_server = 1, .sync_ps = x[0].params.sync};
  coll_desc_t cd = {.kind = COLL_ALLREDUCE, .bytes = o->spans[last].bytes};
  int32_t gpus[2] = {0, 1}, done[2];
  char err[256];
  CHECK(coll_append(&alone, &cl, &cd, 2, gpus, NULL, done, err, sizeof err) == 0);
  tg_assign_ports(&alone);
  eng_exp_desc_t d = {.topo = &x[0].topo, .tasks = &alone, .params = &x[0].params, .seed = 1};
  eng_batch_desc_t bd = {.n_exps = 1, .exps = &d};
  eng_run_desc_t rd = {.backend = ENG_BACKEND_CPU, .threads = 1};
  eng_batch_t *b2 = NULL;
  CHECK(eng_batch_create(&bd, &b2, err, sizeof err) == 0 &&
        eng_batch_run(b2, &rd, err, sizeof err) == 0);
  eng_result_t er;
  eng_exp_result(b2, 0, &er);
  CHECK_EQ_I64(er.end_ps, s1 - s0);
  eng_batch_destroy(b2);
  tg_free(&alone);
  /* everything else of the last GPU is compute and the rest idle */
  CHECK(r.v[TRN_R_exposed_tp_s] == 0 && r.v[TRN_R_exposed_pp_s] == 0);
  eng_batch_destroy(b);
  trn_exp_free(&x[0]);
}

/* ZeRO on 4 servers of one GPU, a bucket per layer (head, 4 layers, embedding: 6),
 * 2 micro-batches per replica: stage 0 all-reduces the buckets' fp32 gradients
 * once; stage 1 reduce-scatters them and all-gathers the bf16 weights after the
 * optimizer; stage 3 reduce-scatters every micro-batch and gathers the weights
 * before each bucket's forward and backward. */
static void test_zero(void) {
  char t[3][1024];
  for (int z = 0; z < 3; z++)
    snprintf(t[z], sizeof t[z],
             "{" SMALL_MODEL ", \"training\": {\"global_batch\": 8, \"zero\": %d, "
             "\"bucket_params\": 1}, \"cluster\": {\"gpu\": \"a100-80gb\", \"servers\": 4, "
             "\"gpus_per_server\": 1, \"nics_per_server\": 1}}",
             z == 2 ? 3 : z);
  const char *text[3] = {t[0], t[1], t[2]};
  trn_exp_t x[3];
  int32_t slot[3];
  eng_batch_t *b = trnexp_run(3, text, x, slot, ENG_BACKEND_CPU, 1);
  if (!b) return;
  int64_t params = trn_stage_params(&x[0].setup, 0).dense;
  for (int z = 0; z < 3; z++) {
    trn_result_t r = trnexp_result(x, b, slot, z);
    CHECK_EQ_I64(r.status, BASE_OK);
    const trn_graph_t *o = &x[z].graph;
    int64_t n[3] = {0, 0, 0}, bytes[3] = {0, 0, 0}; /* all-reduce, reduce-scatter, all-gather */
    for (int32_t k = o->span_off[0]; k < o->span_off[1]; k++) {
      const trn_span_t *sp = &o->spans[k];
      if (sp->cat != TRN_CAT_DP) continue;
      int i = sp->kind == COLL_ALLREDUCE ? 0 : sp->kind == COLL_REDUCESCATTER ? 1 : 2;
      n[i]++;
      bytes[i] += (int64_t)sp->bytes;
    }
    if (z == 0) {
      CHECK(n[0] == 6 && n[1] == 0 && n[2] == 0);
      CHECK_EQ_I64(bytes[0], 4 * params);
    } else if (z == 1) {
      CHECK(n[0] == 0 && n[1] == 6 && n[2] == 6);
      CHECK_EQ_I64(bytes[1], 4 * params);
      CHECK_EQ_I64(bytes[2], 2 * params);
    } else { /* 2 micro-batches: 6 reduce-scatters each, 6 gathers before each pass */
      CHECK(n[0] == 0 && n[1] == 12 && n[2] == 24);
      CHECK_EQ_I64(bytes[1], 2 * 4 * params);
      CHECK_EQ_I64(bytes[2], 2 * 2 * 2 * params);
    }
    printf("zero %d: %lld all-reduces, %lld reduce-scatters, %lld all-gathers on GPU 0, %.6f s\n",
           z == 2 ? 3 : z, (long long)n[0], (long long)n[1], (long long)n[2],
           r.v[TRN_R_iteration_time_s]);
  }
  eng_batch_destroy(b);
  for (int i = 0; i < 3; i++)
    trn_exp_free(&x[i]);
}

/* Experts (4, top 2) with expert parallelism 2 across servers (TP 2, DP 4): every
 * layer's forward dispatches and combines its tokens (2 all-to-alls), its backward
 * too, and again under full recomputation (its forward again first); each moves the
 * SP shard's tokens, 512 x 2 x 1024 x 2 / 2 bytes. */
static void test_experts(void) {
  char t[2][1024];
  for (int i = 0; i < 2; i++)
    snprintf(t[i], sizeof t[i],
             "{\"model\": {\"layers\": 2, \"hidden\": 1024, \"heads\": 8, \"vocab\": 4096,"
             " \"seq_len\": 512, \"experts\": 4, \"top_k\": 2}, \"training\": {\"global_batch\": 8,"
             " \"tp\": 2, \"ep\": 2, \"sequence_parallel\": true, \"recompute\": \"%s\"},"
             " \"cluster\": {\"gpu\": \"a100-80gb\", \"servers\": 4, \"gpus_per_server\": 2,"
             " \"nics_per_server\": 2}}",
             i ? "full" : "selective");
  const char *text[2] = {t[0], t[1]};
  trn_exp_t x[2];
  int32_t slot[2];
  eng_batch_t *b = trnexp_run(2, text, x, slot, ENG_BACKEND_CPU, 1);
  if (!b) return;
  for (int i = 0; i < 2; i++) {
    trn_result_t r = trnexp_result(x, b, slot, i);
    CHECK_EQ_I64(r.status, BASE_OK);
    const trn_graph_t *o = &x[i].graph;
    int64_t n = 0, other = 0;
    for (int32_t k = o->span_off[0]; k < o->span_off[1]; k++)
      if (o->spans[k].cat == TRN_CAT_EP) {
        n++;
        other += o->spans[k].bytes != 512 * 2 * 1024 * 2 / 2 || o->spans[k].kind != COLL_ALLTOALL;
      }
    /* 2 micro-batches x 2 layers x (2 forward + 2 backward, + 2 recomputed) */
    CHECK_EQ_I64(n, i ? 24 : 16);
    CHECK_EQ_I64(other, 0);
    CHECK(r.v[TRN_R_exposed_ep_s] > 0);
  }
  eng_batch_destroy(b);
  for (int i = 0; i < 2; i++)
    trn_exp_free(&x[i]);
}

/* One experiment of `text` built with env.max_tasks = max. */
static void build(const char *text, int32_t max, trn_exp_t *x) {
  json_t *o = json_loads(text, 0, NULL);
  CHECK(o != NULL);
  trn_exp_env_t env = trnexp.env;
  env.max_tasks = max;
  CHECK(job_train_build(&trnexp.jenv, &env, o, "test", 1, x) == 0);
  json_decref(o);
}

static void test_sizes_first(void) {
  trn_exp_t x;
  /* 1e6 GPUs on a rail-optimized fabric: a rail switch would need 125008 ports. */
  build("{" SMALL_MODEL ", \"training\": {\"global_batch\": 1000000}, \"cluster\": {\"gpu\": "
        "\"h200\", \"servers\": 125000}}",
        0, &x);
  CHECK(x.status == BASE_INVALID && x.graph.g.n == 0);
  CHECK_STR_CONTAINS(x.message, "has 125008 ports, more than the limit of 65535");
  trn_exp_free(&x);
  /* 32 GPUs in DP: n tasks without a limit; with a limit of n / 2 it stops there, oom. */
  const char *dp32 = "{" SMALL_MODEL ", \"training\": {\"global_batch\": 32}, \"cluster\": "
                     "{\"gpu\": \"h200\", \"servers\": 4}}";
  build(dp32, 0, &x);
  int32_t n = x.graph.g.n;
  CHECK(x.status == BASE_OK && n > 100);
  trn_exp_free(&x);
  build(dp32, n / 2, &x);
  char want[64];
  snprintf(want, sizeof want, "its task graph passed %d tasks", n / 2);
  CHECK(x.status == BASE_OOM);
  CHECK_STR_CONTAINS(x.message, want);
  trn_exp_free(&x);
  build(dp32, n, &x); /* exactly enough */
  CHECK(x.status == BASE_OK && x.graph.g.n == n);
  trn_exp_free(&x);
  printf("sizes first: the 1e6-GPU cluster refused by its topology; %d tasks built, %d refused\n",
         n, n / 2);
}

int main(void) {
  if (trnexp_init(NULL)) return 1;
  test_sizes_first();
  test_tp_closed_form();
  test_grains();
  test_dp_exposed();
  test_zero();
  test_experts();
  trn_presets_free(&trntest_presets);
  coll_model_free(&trnexp.cm);
  return mvtest_end();
}
