/* Training experiments in one batch give what each gives alone, task by task to the
 * picosecond; with "cuda" (CTest label gpu) the CUDA backend gives what the CPU
 * gives (exit 77 without a GPU). Experiments: interleaved pipeline with TP, SP and
 * DP buckets across servers; ZeRO-1 with full recomputation; experts with their
 * all-to-all across servers; an imported workload. */
#include "trnexp.h"

#define NEXP 4

static const char *const text[NEXP] = {
    "{\"model\": {\"layers\": 8, \"hidden\": 1024, \"heads\": 8, \"vocab\": 8192, "
    "\"seq_len\": 512}, \"training\": {\"global_batch\": 8, \"tp\": 2, \"pp\": 2, "
    "\"virtual_stages\": 2, \"sequence_parallel\": true, \"recompute\": \"selective\","
    " \"bucket_params\": 3000000}, \"cluster\": {\"gpu\": \"a100-80gb\", \"servers\": 4, "
    "\"gpus_per_server\": 2, \"nics_per_server\": 2}, \"network\": {\"topology\": {\"kind\": "
    "\"fat_tree\", \"tiers\": 2}, \"cc\": \"dcqcn\"}}",
    "{\"model\": {\"layers\": 4, \"hidden\": 1024, \"heads\": 8, \"vocab\": 8192, "
    "\"seq_len\": 512}, \"training\": {\"global_batch\": 8, \"tp\": 4, \"zero\": 1, "
    "\"recompute\": \"full\"}, \"cluster\": {\"gpu\": \"h200\", \"servers\": 2, "
    "\"gpus_per_server\": 4, \"nics_per_server\": 2}, \"network\": {\"cc\": \"hpcc\"}}",
    "{\"model\": {\"layers\": 2, \"hidden\": 1024, \"heads\": 8, \"vocab\": 4096, "
    "\"seq_len\": 512, \"experts\": 4, \"top_k\": 2}, \"training\": {\"global_batch\": 8, "
    "\"tp\": 2, \"ep\": 2, \"sequence_parallel\": true}, \"cluster\": {\"gpu\": \"a100-80gb\","
    " \"servers\": 4, \"gpus_per_server\": 2, \"nics_per_server\": 2}}",
    /* one element in two pieces (clang's -Wstring-concatenation) */
    ("{\"workload\": {\"file\": \"wl_simai.txt\"}, \"cluster\": {\"gpu\": \"a100-80gb\","
     " \"servers\": 4}, \"network\": {\"topology\": {\"kind\": \"fat_tree\", \"tiers\": 2}}}")};

/* Every task's start, end and reception of experiment i in batch b (slot s) against
 * batch c (slot t); returns the number that differ. */
static int64_t differ(const trn_exp_t *x, const eng_batch_t *b, int32_t s, const eng_batch_t *c,
                      int32_t t) {
  int64_t n = 0;
  for (int32_t k = 0; k < x->graph.g.n; k++) {
    eng_task_times_t p, q;
    CHECK(eng_task_times(b, s, k, &p) == 0 && eng_task_times(c, t, k, &q) == 0);
    n += p.start != q.start || p.end != q.end || p.recv != q.recv;
  }
  eng_result_t u, v;
  eng_exp_result(b, s, &u);
  eng_exp_result(c, t, &v);
  n += u.end_ps != v.end_ps || u.packet_hops != v.packet_hops || u.ecn_marks != v.ecn_marks ||
       u.pfc_pauses != v.pfc_pauses || u.cnps != v.cnps || u.drops != v.drops;
  return n;
}

int main(int argc, char **argv) {
  int cuda = argc > 1 && strcmp(argv[1], "cuda") == 0;
  if (cuda && !eng_cuda_available()) {
    fprintf(stderr, "skipped: %s\n", eng_cuda_unavailable_reason());
    return 77;
  }
  if (trnexp_init(NULL)) return 1;
  trn_exp_t x[NEXP];
  int32_t slot[NEXP];
  eng_batch_t *all = trnexp_run(NEXP, text, x, slot, ENG_BACKEND_CPU, 2);
  CHECK(all != NULL);
  for (int i = 0; all && i < NEXP; i++) {
    trn_result_t r = trnexp_result(x, all, slot, i);
    CHECK_EQ_I64(r.status, BASE_OK);
    printf("experiment %d: %.0f tasks, %.0f flows, %.9f s, exposed ep %.6f s\n", i,
           r.v[TRN_R_tasks], r.v[TRN_R_flows], r.v[TRN_R_iteration_time_s],
           r.v[TRN_R_exposed_ep_s]);
    if (i == 2) CHECK(r.v[TRN_R_exposed_ep_s] > 0);
    eng_exp_desc_t d = trn_exp_desc(&x[i]);
    eng_batch_desc_t bd = {.n_exps = 1, .exps = &d};
    eng_run_desc_t rd = {.backend = cuda ? ENG_BACKEND_CUDA : ENG_BACKEND_CPU, .threads = 1};
    eng_batch_t *one = NULL;
    char err[512];
    if (cuda) { /* the whole batch on the GPU */
      eng_exp_desc_t ds[NEXP];
      for (int j = 0; j < NEXP; j++)
        ds[j] = trn_exp_desc(&x[j]);
      bd = (eng_batch_desc_t){.n_exps = NEXP, .exps = ds};
      CHECK(eng_batch_create(&bd, &one, err, sizeof err) == 0);
      CHECK(one && eng_batch_run(one, &rd, err, sizeof err) == 0);
      CHECK_EQ_I64(differ(&x[i], all, slot[i], one, i), 0);
    } else {
      CHECK(eng_batch_create(&bd, &one, err, sizeof err) == 0);
      CHECK(one && eng_batch_run(one, &rd, err, sizeof err) == 0);
      CHECK_EQ_I64(differ(&x[i], all, slot[i], one, 0), 0);
    }
    eng_batch_destroy(one);
  }
  eng_batch_destroy(all);
  for (int i = 0; i < NEXP; i++)
    trn_exp_free(&x[i]);
  trn_presets_free(&trntest_presets);
  coll_model_free(&trnexp.cm);
  return mvtest_end();
}
