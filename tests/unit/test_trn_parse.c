/* Training models: the job file's model, training and cluster objects: defaults,
 * presets, every problem of a bad set-up in one pass with its JSON path, placement. */
#include "mvtest.h"
#include "train/trn.h"

static trn_presets_t presets;

/* Parses three JSON texts as base.model, base.training, base.cluster of job.json. */
static int parse(const char *model, const char *training, const char *cluster, trn_setup_t *s,
                 trn_problems_t *pr) {
  json_error_t je;
  json_t *m = json_loads(model, JSON_DECODE_ANY, &je);
  json_t *t = json_loads(training, JSON_DECODE_ANY, &je);
  json_t *c = json_loads(cluster, JSON_DECODE_ANY, &je);
  CHECK(m && t && c);
  memset(pr, 0, sizeof *pr);
  int n = trn_setup_parse(m, t, c, &presets, "job.json: base", s, pr);
  json_decref(m);
  json_decref(t);
  json_decref(c);
  return n;
}

/* Whether some problem contains `phrase`. */
static void check_problem(const trn_problems_t *pr, const char *phrase) {
  for (int i = 0; i < pr->n && i < TRN_PROBLEMS_MAX; i++)
    if (strstr(pr->msg[i], phrase)) return;
  fprintf(stderr, "no problem contains \"%s\"; problems:\n", phrase);
  for (int i = 0; i < pr->n && i < TRN_PROBLEMS_MAX; i++)
    fprintf(stderr, "  %s\n", pr->msg[i]);
  mvtest_failures++;
}

static const char *gpt175 = "{\"preset\": \"gpt3-175b\"}";
static const char *h100x16 = "{\"gpu\": \"h100-sxm\", \"servers\": 16}";

static void test_defaults(void) {
  trn_setup_t s;
  trn_problems_t pr;
  CHECK_EQ_I64(parse("{\"preset\": \"gpt3-13b\", \"seq_len\": 4096}",
                     "{\"global_batch\": 1024, \"tp\": 8}", h100x16, &s, &pr),
               0);
  CHECK_EQ_I64(s.model.seq_len, 4096);
  CHECK_EQ_I64(s.model.hidden, 5120);
  CHECK_EQ_I64(s.model.kv_heads, 40);
  CHECK_EQ_I64(s.model.experts, 1);
  CHECK_EQ_I64(s.model.top_k, 1);
  CHECK(strcmp(s.model.name, "gpt3-13b") == 0);
  CHECK_EQ_I64(s.plan.dp, 16); /* 128 GPUs / (tp 8 * pp 1) */
  CHECK_EQ_I64(s.plan.pp, 1);
  CHECK_EQ_I64(s.plan.micro_batch, 1);
  CHECK_EQ_I64(s.plan.micro_batches, 64);
  CHECK_EQ_I64(s.plan.virtual_stages, 1);
  CHECK_EQ_I64(s.plan.ep, 1);
  CHECK_EQ_I64(s.plan.zero, 0);
  CHECK_EQ_I64(s.plan.recompute, TRN_RECOMPUTE_NONE);
  CHECK_EQ_I64(s.plan.sequence_parallel, 0);
  CHECK_EQ_I64(s.plan.dtype, TRN_BF16);
  /* derived values written out: the GPU's reserve, Megatron-Core's max(4e7, 1e6 dp) */
  CHECK(s.plan.memory_reserve_gb == s.cluster.gpu.memory_reserve_gb);
  CHECK_EQ_I64(s.plan.bucket_params, 40000000);
  CHECK_EQ_I64(s.plan.op_time[TRN_OP_QKV].fwd_ps, -1);
  CHECK_EQ_I64(s.cluster.gpus_per_server, 8);
  CHECK_EQ_I64(s.cluster.nics_per_server, 8);
  CHECK(s.cluster.nic_gbps == 400);
  CHECK(s.cluster.overlap_slowdown == 1.189);
  CHECK_EQ_I64(s.cluster.gpus, 128);
  CHECK(s.cluster.gpu.peak_tflops == 989);

  /* a custom SwiGLU model: Megatron's ffn_hidden = 2/3 * 4h down to a multiple of 64 */
  CHECK_EQ_I64(parse("{\"layers\": 4, \"hidden\": 1000, \"heads\": 10, \"vocab\": 1000, "
                     "\"seq_len\": 128, \"activation\": \"swiglu\", \"experts\": 4}",
                     "{\"global_batch\": 8, \"ep\": 4}",
                     "{\"gpu\": \"a100-sxm4-80gb\", \"servers\": 1, \"nic_gbps\": 100}", &s, &pr),
               0);
  CHECK_EQ_I64(s.model.ffn_hidden, 2624);
  CHECK_EQ_I64(s.model.top_k, 2);
  CHECK(strcmp(s.cluster.gpu.name, "a100-80gb") == 0);
  CHECK(s.cluster.nic_gbps == 100);
  CHECK_EQ_I64(s.plan.dp, 8);
}

static void test_all_problems(void) {
  trn_setup_t s;
  trn_problems_t pr;
  int n = parse(gpt175,
                "{\"global_batch\": 1000, \"tp\": 16, \"pp\": 5, \"dp\": 3, \"zero\": 4, "
                "\"recompute\": \"some\", \"virtual_stages\": 2, \"bogus\": 1}",
                "{\"gpu\": \"h100-sxm\", \"servers\": 16, \"gpus_per_server\": 8}", &s, &pr);
  CHECK_EQ_I64(n, 7);
  CHECK_EQ_I64(pr.n, 7);
  check_problem(&pr, "job.json: base.training.bogus: unknown key");
  check_problem(&pr, "job.json: base.training.zero: must be an integer in 0..3, got 4");
  check_problem(&pr, "job.json: base.training.recompute: must be one of \"none\", "
                     "\"selective\", \"full\", got \"some\"");
  check_problem(&pr, "job.json: base.training.tp: must divide cluster.gpus_per_server (8)");
  check_problem(&pr, "job.json: base.training.pp: pp*virtual_stages = 10 must divide "
                     "model.layers (96)");
  check_problem(&pr, "job.json: base.training.dp: tp*pp*dp = 16*5*3 = 240 must equal the "
                     "cluster's GPUs (gpus_per_server*servers = 8*16 = 128)");
  check_problem(&pr, "job.json: base.training.global_batch: must be a multiple of "
                     "micro_batch*dp = 3, got 1000");

  /* heads and kv_heads not divisible by tp; ffn_hidden neither */
  n = parse("{\"layers\": 4, \"hidden\": 768, \"heads\": 12, \"kv_heads\": 6, \"ffn_hidden\": 100, "
            "\"vocab\": 1000, \"seq_len\": 128}",
            "{\"global_batch\": 8, \"tp\": 8}", "{\"gpu\": \"h200\", \"servers\": 1}", &s, &pr);
  CHECK_EQ_I64(n, 3);
  check_problem(&pr, "base.training.tp: must divide model.heads (12), got 8");
  check_problem(&pr, "base.training.tp: must divide model.kv_heads (6), got 8");
  check_problem(&pr, "base.training.tp: must divide model.ffn_hidden (100), got 8");

  /* interleaving without a pipeline; ZeRO-3 with one; micro-batches not a multiple of pp */
  n = parse(gpt175, "{\"global_batch\": 128, \"virtual_stages\": 2}", h100x16, &s, &pr);
  CHECK_EQ_I64(n, 1);
  check_problem(&pr, "training.virtual_stages: interleaving needs pp > 1");
  n = parse(gpt175, "{\"global_batch\": 40, \"pp\": 8, \"tp\": 8, \"virtual_stages\": 3}",
            "{\"gpu\": \"h100-sxm\", \"servers\": 16}", &s, &pr);
  CHECK_EQ_I64(n, 1);
  check_problem(&pr, "needs a multiple of pp (8) micro-batches per iteration, got 20");
  n = parse(gpt175, "{\"global_batch\": 16, \"pp\": 2, \"tp\": 8, \"zero\": 3}", h100x16, &s, &pr);
  CHECK_EQ_I64(n, 1);
  check_problem(&pr, "training.zero: stages 2 and 3 do not combine with pipeline parallelism");

  /* dp derived only when tp*pp divides the GPUs */
  n = parse(gpt175, "{\"global_batch\": 16, \"pp\": 5}", h100x16, &s, &pr);
  CHECK_EQ_I64(n, 2);
  check_problem(&pr, "training.pp: tp*pp = 5 must divide the cluster's 128 GPUs");
  check_problem(&pr, "training.pp: pp*virtual_stages = 5 must divide model.layers (96)");

  /* sequence parallelism with tp 1 is accepted (a no-op, as Megatron-LM turns it off) */
  CHECK_EQ_I64(
      parse(gpt175, "{\"global_batch\": 128, \"sequence_parallel\": true}", h100x16, &s, &pr), 0);
}

static void test_bad_values(void) {
  trn_setup_t s;
  trn_problems_t pr;
  /* a bad tp has its own problem, and no rule that reads tp adds another */
  CHECK_EQ_I64(parse(gpt175, "{\"global_batch\": 128, \"tp\": 0}", h100x16, &s, &pr), 1);
  check_problem(&pr, "base.training.tp: must be an integer in 1..1048576, got 0");
  CHECK_EQ_I64(parse(gpt175, "{\"global_batch\": 128, \"dp\": \"8\"}", h100x16, &s, &pr), 1);
  check_problem(&pr, "base.training.dp: must be an integer, got \"8\"");

  CHECK_EQ_I64(parse("{\"preset\": \"gpt4\"}", "{}", "{\"gpu\": \"b200\"}", &s, &pr), 4);
  check_problem(&pr, "base.model.preset: unknown model \"gpt4\" (presets: ");
  check_problem(&pr, "base.training.global_batch: missing");
  check_problem(&pr, "base.cluster.gpu: unknown GPU \"b200\" (presets: ");
  check_problem(&pr, "base.cluster.servers: missing");

  CHECK_EQ_I64(parse("{\"hidden\": 1000, \"heads\": 3, \"kv_heads\": 2, \"experts\": 2, "
                     "\"top_k\": 3, \"activation\": \"relu\", \"layer\": 2}",
                     "{\"global_batch\": 8}", "{\"gpu\": \"h200\", \"servers\": 1}", &s, &pr),
               8);
  check_problem(&pr, "base.model.layer: unknown key");
  check_problem(&pr, "base.model.activation: must be one of \"gelu\", \"swiglu\", got \"relu\"");
  check_problem(&pr, "base.model.layers: missing");
  check_problem(&pr, "base.model.vocab: missing");
  check_problem(&pr, "base.model.seq_len: missing");
  check_problem(&pr, "base.model.heads: must divide hidden (1000), got 3");
  check_problem(&pr, "base.model.kv_heads: must divide heads (3), got 2");
  check_problem(&pr, "base.model.top_k: must be at most experts (2), got 3");

  /* expert parallelism */
  CHECK_EQ_I64(parse(gpt175, "{\"global_batch\": 128, \"ep\": 2}", h100x16, &s, &pr), 1);
  check_problem(&pr, "training.ep: expert parallelism needs model.experts > 1");
  CHECK_EQ_I64(parse("{\"preset\": \"mixtral-8x7b\"}", "{\"global_batch\": 120, \"ep\": 3}",
                     "{\"gpu\": \"h100-sxm\", \"servers\": 3}", &s, &pr),
               1);
  check_problem(&pr, "training.ep: must divide model.experts (8), got 3");
  CHECK_EQ_I64(parse("{\"preset\": \"mixtral-8x7b\"}",
                     "{\"global_batch\": 120, \"ep\": 4, \"tp\": 8}",
                     "{\"gpu\": \"h100-sxm\", \"servers\": 6}", &s, &pr),
               1);
  check_problem(&pr, "training.ep: must divide dp (6), got 4");

  CHECK_EQ_I64(parse(gpt175, "{\"global_batch\": 128}",
                     "{\"gpu\": \"h200\", \"servers\": 16, \"nic_gbps\": 0, \"rack\": 1, "
                     "\"overlap_slowdown\": 0.5}",
                     &s, &pr),
               3);
  check_problem(&pr, "base.cluster.rack: unknown key");
  check_problem(&pr, "base.cluster.nic_gbps: must be a number in [1, 1e+06], got 0");
  check_problem(&pr, "base.cluster.overlap_slowdown: must be a number in [1, 10], got 0.5");

  CHECK_EQ_I64(parse(gpt175, "[]", "3", &s, &pr), 2);
  check_problem(&pr, "job.json: base.training: must be an object");
  check_problem(&pr, "job.json: base.cluster: must be an object");
}

static void test_op_times(void) {
  trn_setup_t s;
  trn_problems_t pr;
  CHECK_EQ_I64(parse(gpt175,
                     "{\"global_batch\": 128, \"op_time_us\": {\"qkv\": 12.5, \"fc1\": {\"fwd\": "
                     "3, \"bwd\": 7.000001}, \"logits\": {\"fwd\": 2}}}",
                     h100x16, &s, &pr),
               0);
  CHECK_EQ_I64(s.plan.op_time[TRN_OP_QKV].fwd_ps, 12500000);
  CHECK_EQ_I64(s.plan.op_time[TRN_OP_QKV].bwd_ps, 25000000);
  CHECK_EQ_I64(s.plan.op_time[TRN_OP_FC1].fwd_ps, 3000000);
  CHECK_EQ_I64(s.plan.op_time[TRN_OP_FC1].bwd_ps, 7000001);
  CHECK_EQ_I64(s.plan.op_time[TRN_OP_LOGITS].bwd_ps, 4000000);
  CHECK_EQ_I64(s.plan.op_time[TRN_OP_FC2].fwd_ps, -1);
  CHECK_EQ_I64(parse(gpt175,
                     "{\"global_batch\": 128, \"op_time_us\": {\"gemm\": 1, \"qkv\": -1, "
                     "\"fc1\": {\"bwd\": 1}, \"fc2\": {\"fwd\": 1, \"bwd\": 2, \"x\": 3}}}",
                     h100x16, &s, &pr),
               4);
  check_problem(&pr, "base.training.op_time_us.gemm: unknown op (ops: embed, ln1, qkv,");
  check_problem(&pr, "base.training.op_time_us.qkv: must be a number in [0, 1e+09], got -1");
  check_problem(&pr, "base.training.op_time_us.fc1: must be microseconds or {\"fwd\"");
  check_problem(&pr, "base.training.op_time_us.fc2.x: unknown key");
}

static void test_placement(void) {
  trn_plan_t pl = trn_plan_default();
  pl.tp = 8;
  pl.dp = 4;
  pl.pp = 2;
  pl.ep = 2;
  trn_coord_t c = trn_coord(&pl, 13);
  CHECK_EQ_I64(c.tp, 5);
  CHECK_EQ_I64(c.dp, 1);
  CHECK_EQ_I64(c.pp, 0);
  CHECK_EQ_I64(c.ep, 1);
  CHECK_EQ_I64(trn_rank(&pl, c), 13);
  c = trn_coord(&pl, 45);
  CHECK_EQ_I64(c.tp, 5);
  CHECK_EQ_I64(c.dp, 1);
  CHECK_EQ_I64(c.pp, 1);
  int64_t g[8];
  CHECK_EQ_I64(trn_group_ranks(&pl, TRN_GROUP_TP, 13, g), 8);
  CHECK_EQ_I64(g[0], 8); /* one server of 8 GPUs */
  CHECK_EQ_I64(g[7], 15);
  CHECK_EQ_I64(trn_group_ranks(&pl, TRN_GROUP_DP, 13, g), 4);
  CHECK(g[0] == 5 && g[1] == 13 && g[2] == 21 && g[3] == 29);
  CHECK_EQ_I64(trn_group_ranks(&pl, TRN_GROUP_PP, 13, g), 2);
  CHECK(g[0] == 13 && g[1] == 45);
  CHECK_EQ_I64(trn_group_ranks(&pl, TRN_GROUP_EP, 29, g), 2);
  CHECK(g[0] == 21 && g[1] == 29);
  for (int64_t r = 0; r < 64; r++)
    CHECK_EQ_I64(trn_rank(&pl, trn_coord(&pl, r)), r);
}

/* Every preset is checked at load; the first problem is reported with the count of
 * the others. */
static void test_bad_presets(void) {
  trn_presets_t p;
  char err[1024] = "";
  char dir[1024];
  snprintf(dir, sizeof dir, "%s", mvtest_data("trn_bad_presets"));
  CHECK_EQ_I64(trn_presets_load(&p, dir, err, sizeof err), -1);
  CHECK_STR_CONTAINS(err, "trn_bad_presets/models.json: models.bad.hidden: must be an integer, "
                          "got \"x\" (and 2 more)");
  CHECK_EQ_I64(p.n_models, 0);
  CHECK_EQ_I64(trn_presets_load(&p, "/nonexistent", err, sizeof err), -1);
  CHECK_STR_CONTAINS(err, "/nonexistent/models.json");
}

int main(void) {
  char err[512];
  if (trn_presets_load(&presets, getenv("MV_PRESETS"), err, sizeof err) < 0) {
    fprintf(stderr, "%s\n", err);
    return 1;
  }
  test_defaults();
  test_all_problems();
  test_bad_values();
  test_op_times();
  test_placement();
  test_bad_presets();
  trn_presets_free(&presets);
  return mvtest_end();
}
