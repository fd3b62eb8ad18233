/* Pipeline schedules: Megatron-LM's 1F1B and interleaved programs step by step, every
 * pass once and in order, and, run by the engine with free communication, the
 * bubble: (p - 1) / (m + p - 1) of the iteration with 1F1B, divided by v when
 * interleaved.
 * 1F1B rank 0 of 4 with 6 micro-batches runs F0 F1 F2 F3 B0 F4 B1 F5 B2 B3 B4
 * B5; the 1F1B bubble is (p-1)(f+b), and interleaving by v = 2 and 4 divides it
 * by v. */
#include <math.h>

#include "train/trn_gen.h"
#include "trnexp.h"

/* "F0 F1 B0 ..." of a program's passes (chunk as "c1:" when v > 1), calls as "|". */
static void passes(const trn_step_t *s, int32_t n, int with_calls, int v, char *out, size_t len) {
  size_t k = 0;
  out[0] = 0;
  for (int32_t i = 0; i < n && k + 16 < len; i++) {
    if (s[i].kind == TRN_STEP_CALL) {
      if (with_calls) k += (size_t)snprintf(out + k, len - k, "| ");
      continue;
    }
    if (v > 1)
      k += (size_t)snprintf(out + k, len - k, "%c%d:%d ", s[i].kind == TRN_STEP_FWD ? 'F' : 'B',
                            s[i].chunk, s[i].mb);
    else
      k += (size_t)snprintf(out + k, len - k, "%c%d ", s[i].kind == TRN_STEP_FWD ? 'F' : 'B',
                            s[i].mb);
  }
}

static void test_one_f_one_b(void) {
  trn_step_t *s;
  char buf[4096];
  int32_t n = trn_schedule(4, 1, 6, 0, &s);
  passes(s, n, 0, 1, buf, sizeof buf);
  /* warm-up p - 1 - r = 3 forwards, then one forward and one backward, then the rest */
  CHECK(strcmp(buf, "F0 F1 F2 F3 B0 F4 B1 F5 B2 B3 B4 B5 ") == 0);
  free(s);
  n = trn_schedule(4, 1, 6, 3, &s);
  passes(s, n, 0, 1, buf, sizeof buf);
  CHECK(strcmp(buf, "F0 B0 F1 B1 F2 B2 F3 B3 F4 B4 F5 B5 ") == 0);
  free(s);
  /* The last of 2 ranks, 2 micro-batches, with its calls: receive activations; forward;
   * backward; send gradients and receive the next activations together; ... */
  n = trn_schedule(2, 1, 2, 1, &s);
  passes(s, n, 1, 1, buf, sizeof buf);
  CHECK(strcmp(buf, "| F0 B0 | F1 B1 | ") == 0);
  CHECK_EQ_I64(s[0].n_ops, 1);
  CHECK(!s[0].op[0].send && !s[0].op[0].grad && s[0].op[0].vs == 1 && s[0].op[0].mb == 0);
  CHECK_EQ_I64(s[3].n_ops, 2);
  CHECK(s[3].op[0].send && s[3].op[0].grad && s[3].op[0].vs == 0 && s[3].op[0].mb == 0);
  CHECK(!s[3].op[1].send && !s[3].op[1].grad && s[3].op[1].vs == 1 && s[3].op[1].mb == 1);
  free(s);
  /* fewer micro-batches than stages: all forwards first */
  n = trn_schedule(4, 1, 2, 0, &s);
  passes(s, n, 0, 1, buf, sizeof buf);
  CHECK(strcmp(buf, "F0 F1 B0 B1 ") == 0);
  free(s);
}

static void test_interleaved(void) {
  trn_step_t *s;
  char buf[4096];
  /* p 4, v 2, m 8, rank 0: (4 - 0 - 1) * 2 + (2 - 1) * 4 = 10 warm-up forwards going
   * through the chunks p micro-batches at a time; backwards start with the last
   * chunk */
  int32_t n = trn_schedule(4, 2, 8, 0, &s);
  passes(s, n, 0, 2, buf, sizeof buf);
  CHECK(strcmp(buf, "F0:0 F0:1 F0:2 F0:3 F1:0 F1:1 F1:2 F1:3 F0:4 F0:5 F0:6 B1:0 F0:7 B1:1 "
                    "F1:4 B1:2 F1:5 B1:3 F1:6 B0:0 F1:7 B0:1 B0:2 B0:3 B1:4 B1:5 B1:6 B1:7 B0:4 "
                    "B0:5 B0:6 B0:7 ") == 0);
  free(s);
  /* rank 3: (2 - 1) * 4 = 4 warm-up forwards */
  n = trn_schedule(4, 2, 8, 3, &s);
  passes(s, n, 0, 2, buf, sizeof buf);
  CHECK(strncmp(buf, "F0:0 F0:1 F0:2 F0:3 F1:0 B1:0 F1:1 B1:1 ", 40) == 0);
  free(s);
  /* m == p: every forward first */
  n = trn_schedule(2, 2, 2, 1, &s);
  passes(s, n, 0, 2, buf, sizeof buf);
  CHECK(strcmp(buf, "F0:0 F0:1 F1:0 F1:1 B1:0 B1:1 B0:0 B0:1 ") == 0);
  free(s);
}

/* Every rank of many plans: each (chunk, micro-batch) forward and backward exactly
 * once, forward first, micro-batches of a chunk in order, and every tensor sent is
 * received by the rank of its virtual stage exactly once. */
static void test_invariants(void) {
  static const int64_t plans[][3] = {{1, 1, 5},  {2, 1, 1},  {2, 1, 7}, {4, 1, 3},
                                     {4, 1, 16}, {8, 1, 64}, {2, 2, 4}, {4, 2, 8},
                                     {4, 3, 12}, {8, 3, 64}, {3, 4, 9}, {5, 3, 5}};
  int bad = 0;
  for (size_t q = 0; q < sizeof plans / sizeof plans[0]; q++) {
    int64_t p = plans[q][0], v = plans[q][1], m = plans[q][2], nvs = p * v;
    int32_t *sent = calloc((size_t)(2 * nvs * m), sizeof *sent);
    int32_t *got = calloc((size_t)(2 * nvs * m), sizeof *got);
    for (int64_t r = 0; r < p; r++) {
      trn_step_t *s;
      int32_t n = trn_schedule(p, v, m, r, &s);
      int32_t *fw = calloc((size_t)(v * m), sizeof *fw), *bw = calloc((size_t)(v * m), sizeof *bw);
      int32_t *next_f = calloc((size_t)v, sizeof *next_f),
              *next_b = calloc((size_t)v, sizeof *next_b);
      for (int32_t i = 0; i < n; i++) {
        const trn_step_t *t = &s[i];
        if (t->kind == TRN_STEP_CALL) {
          for (int j = 0; j < t->n_ops; j++) {
            int64_t key = ((int64_t)t->op[j].grad * nvs + t->op[j].vs) * m + t->op[j].mb;
            if (t->op[j].send)
              sent[key]++;
            else
              got[key] += t->op[j].vs % p == r ? 1 : 100;
          }
          continue;
        }
        int32_t *cnt = t->kind == TRN_STEP_FWD ? fw : bw,
                *next = t->kind == TRN_STEP_FWD ? next_f : next_b;
        bad += t->mb != next[t->chunk]++;
        bad += cnt[t->chunk * m + t->mb]++ != 0;
        bad += t->kind == TRN_STEP_BWD && fw[t->chunk * m + t->mb] != 1;
      }
      for (int64_t k = 0; k < v * m; k++)
        bad += fw[k] != 1 || bw[k] != 1;
      free(fw);
      free(bw);
      free(next_f);
      free(next_b);
      free(s);
    }
    /* activations into every virtual stage but the first, gradients into every one
     * but the last */
    for (int64_t vs = 0; vs < nvs; vs++)
      for (int64_t mb = 0; mb < m; mb++) {
        bad +=
            sent[(0 * nvs + vs) * m + mb] != (vs > 0) || got[(0 * nvs + vs) * m + mb] != (vs > 0);
        bad += sent[(1 * nvs + vs) * m + mb] != (vs < nvs - 1) ||
               got[(1 * nvs + vs) * m + mb] != (vs < nvs - 1);
      }
    free(sent);
    free(got);
  }
  CHECK_EQ_I64(bad, 0);
}

/* Intra-server collectives that cost nothing: the pipeline's only cost is compute. */
static const char *const free_model =
    "{\"models\": ["
    "{\"gpu\": \"a100-80gb\", \"collective\": \"sendrecv\", \"gpus\": 2,"
    " \"ranges\": [{\"max_bytes\": null, \"alpha_us\": 0, \"beta_GBps\": 1e12}]},"
    "{\"gpu\": \"a100-80gb\", \"collective\": \"allreduce\", \"gpus\": 2,"
    " \"ranges\": [{\"max_bytes\": null, \"alpha_us\": 0, \"beta_GBps\": 1e12}]}]}";

/* p stages of 16 / p layers on one server; a layer's forward 100 us, backward 200 us,
 * nothing else computes but the optimizer; sync 1 ps. */
static void pipeline(char *buf, size_t len, int p, int v, int m) {
  snprintf(buf, len,
           "{\"model\": {\"layers\": 16, \"hidden\": 256, \"heads\": 4, \"vocab\": 1024, "
           "\"seq_len\": 128},"
           " \"training\": {\"global_batch\": %d, \"pp\": %d, \"virtual_stages\": %d,"
           "  \"op_time_us\": {\"embed\": 0, \"ln1\": 0, \"qkv\": {\"fwd\": 100, \"bwd\": 200},"
           "   \"score\": 0, \"softmax\": 0, \"av\": 0, \"proj\": 0, \"resid1\": 0, \"ln2\": 0,"
           "   \"fc1\": 0, \"act\": 0, \"fc2\": 0, \"resid2\": 0, \"final_ln\": 0, \"logits\": 0,"
           "   \"loss\": 0}},"
           " \"cluster\": {\"gpu\": \"a100-80gb\", \"servers\": 1, \"gpus_per_server\": %d,"
           "  \"nics_per_server\": %d},"
           " \"network\": {\"sync_us\": 0.000001}}",
           m, p, v, p, p);
}

static void test_bubble(void) {
  char t1[4096], t2[4096], t3[4096];
  const int p = 4, m = 8;
  pipeline(t1, sizeof t1, p, 1, m);
  pipeline(t2, sizeof t2, p, 2, m);
  pipeline(t3, sizeof t3, p, 4, m);
  const char *text[3] = {t1, t2, t3};
  trn_exp_t x[3];
  int32_t slot[3];
  eng_batch_t *b = trnexp_run(3, text, x, slot, ENG_BACKEND_CPU, 1);
  CHECK(b != NULL);
  if (!b) return;
  trn_result_t r[3];
  for (int i = 0; i < 3; i++) {
    r[i] = trnexp_result(x, b, slot, i);
    CHECK_EQ_I64(r[i].status, BASE_OK);
  }
  /* a stage's forward and backward of one micro-batch: 16 / p layers */
  double fb = 16 / p * (100e-6 + 200e-6);
  /* 1F1B: the first stage ends last; idle (p - 1)(f + b) of the (m + p - 1)(f + b)
   * until its last backward, then computes the optimizer step */
  CHECK_EQ_I64(r[0].last_gpu, 0);
  double opt = r[0].v[TRN_R_compute_s] - m * fb;
  CHECK(opt > 0 && opt < 1e-4);
  CHECK_REL(r[0].v[TRN_R_bubble_s], (p - 1) * fb, 1e-7);
  CHECK_REL(r[0].v[TRN_R_iteration_time_s], (m + p - 1) * fb + opt, 1e-7);
  double frac = r[0].v[TRN_R_bubble_s] / (r[0].v[TRN_R_iteration_time_s] - opt);
  CHECK_REL(frac, (double)(p - 1) / (m + p - 1), 1e-7);
  printf("1F1B p=%d m=%d: bubble %.9f s of %.9f s (fraction %.6f, (p-1)/(m+p-1) = %.6f)\n", p, m,
         r[0].v[TRN_R_bubble_s], r[0].v[TRN_R_iteration_time_s] - opt, frac,
         (double)(p - 1) / (m + p - 1));
  /* interleaved: the bubble divided by v; nothing else changes */
  for (int i = 1; i < 3; i++) {
    int v = i == 1 ? 2 : 4;
    CHECK_REL(r[i].v[TRN_R_bubble_s], (p - 1) * fb / v, 1e-7);
    CHECK_REL(r[i].v[TRN_R_compute_s], r[0].v[TRN_R_compute_s], 1e-12);
    printf("interleaved v=%d: bubble %.9f s = 1F1B's / %.6f\n", v, r[i].v[TRN_R_bubble_s],
           r[0].v[TRN_R_bubble_s] / r[i].v[TRN_R_bubble_s]);
  }
  eng_batch_destroy(b);
  for (int i = 0; i < 3; i++)
    trn_exp_free(&x[i]);
}

int main(void) {
  if (trnexp_init(free_model)) return 1;
  test_one_f_one_b();
  test_interleaved();
  test_invariants();
  test_bubble();
  trn_presets_free(&trntest_presets);
  coll_model_free(&trnexp.cm);
  return mvtest_end();
}
