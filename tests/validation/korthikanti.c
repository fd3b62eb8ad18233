/* Validation against Korthikanti et al. 2022 (arXiv 2205.05198), Table 5: the job
 * jobs/examples/korthikanti.json (Selene as the job models it) predicts every
 * iteration time of the table (sequence parallelism with selective recomputation,
 * and full recomputation) within 15 %, and the cost of full recomputation (full /
 * selective) within 3 % of the published ratio; prints each row's
 * prediction, published time and error. MODELS (default 4) keeps the first models of
 * the table: `make test` checks the 22B and 175B rows (seconds), `make validate` all
 * four (minutes: the 530B and 1T pipelines are 35 and 64 servers).
 * usage: korthikanti JOB.json DATA.json [MODELS] (tests/data/validation_korthikanti.json) */
#include "jobs/job_sweep.h"
#include "trnexp.h"

#define ROWS 4

int main(int argc, char **argv) {
  int models = argc == 4 ? atoi(argv[3]) : ROWS;
  if ((argc != 3 && argc != 4) || models < 1 || models > ROWS) {
    fprintf(stderr, "usage: korthikanti JOB.json DATA.json [MODELS 1-%d]\n", ROWS);
    return 2;
  }
  if (trnexp_init(NULL)) return 1;
  job_sweep_t *sw = NULL;
  job_sweep_errs_t errs = {0};
  if (job_sweep_load(argv[1], &sw, &errs)) {
    fputs(errs.text ? errs.text : "cannot read the job\n", stderr);
    return 1;
  }
  json_error_t je;
  json_t *data = json_load_file(argv[2], 0, &je);
  CHECK(data != NULL);
  CHECK_EQ_I64(job_sweep_count(sw), 2 * ROWS); /* selective rows, then full */
  if (!data || job_sweep_count(sw) != 2 * ROWS) return mvtest_end();
  /* experiment i of the run is row i % models, selective then full; job order is
   * recompute-major over the ROWS models */
  int n = 2 * models;
  const char *text[2 * ROWS];
  for (int i = 0; i < n; i++) {
    json_t *x = job_sweep_experiment(sw, (i / models) * ROWS + i % models);
    text[i] = json_dumps(x, JSON_COMPACT);
    json_decref(x);
  }
  trn_exp_t x[2 * ROWS];
  int32_t slot[2 * ROWS];
  eng_batch_t *b = trnexp_run(n, text, x, slot, ENG_BACKEND_CPU, 0);
  CHECK(b != NULL);
  const json_t *rows = json_object_get(data, "configs");
  printf("%-6s %-9s %10s %10s %8s   %s\n", "model", "recompute", "predicted", "published", "error",
         "(predicted MFU, published)");
  for (int i = 0; b && i < n; i++) {
    const json_t *row = json_array_get(rows, (size_t)(i % models));
    int full = i >= models;
    trn_result_t r = trnexp_result(x, b, slot, i);
    CHECK_EQ_I64(r.status, BASE_OK);
    double pub = json_number_value(
        json_object_get(row, full ? "iter_s_full_recompute" : "iter_s_sp_selective"));
    double got = r.v[TRN_R_iteration_time_s], err = got / pub - 1;
    printf("%-6s %-9s %9.3fs %9.2fs %+7.1f%%   (%.1f%%",
           json_string_value(json_object_get(row, "model")), full ? "full" : "selective", got, pub,
           100 * err, 100 * r.v[TRN_R_mfu]);
    if (full)
      printf(")\n");
    else
      printf(", %.1f%%)\n", 100 * json_number_value(json_object_get(row, "mfu")));
    CHECK(fabs(err) <= 0.15);
    if (full) { /* the cost of full recomputation: within 3 % of the published ratio */
      trn_result_t s = trnexp_result(x, b, slot, i - models);
      double ratio = got / s.v[TRN_R_iteration_time_s];
      double pub_ratio = pub / json_number_value(json_object_get(row, "iter_s_sp_selective"));
      printf("       full / selective: predicted %.3f, published %.3f\n", ratio, pub_ratio);
      CHECK(fabs(ratio / pub_ratio - 1) <= 0.03);
    }
  }
  eng_batch_destroy(b);
  for (int i = 0; i < n; i++) {
    trn_exp_free(&x[i]);
    free((char *)text[i]);
  }
  json_decref(data);
  job_sweep_free(sw);
  trn_presets_free(&trntest_presets);
  coll_model_free(&trnexp.cm);
  return mvtest_end();
}
