/* ana_collect: a job's rows gathered from shard tables by experiment id: the
 * best row per id (status, then shard order, then row), repeats of one
 * configuration sharing it, stale ids ignored, missing experiments counted,
 * result columns found by name, swept values and attributes from the job. */
#include <math.h>

#include "ana.h"
#include "mvtest.h"

static const ana_col_t job_cols[] = {
    {.name = "network_cc", .type = ANA_STRING, .key = "network.cc"},
    {.name = "max_fct", .type = ANA_DOUBLE, .units = "s"},
    {.name = "drops", .type = ANA_INT64, .units = "1"},
};
/* A shard has the results only, in another order. */
static const ana_col_t shard_cols[] = {
    {.name = "drops", .type = ANA_INT64, .units = "1"},
    {.name = "max_fct", .type = ANA_DOUBLE, .units = "s"},
};

static void shard_row(ana_table_t *t, const char *id, ana_status_t st, double fct, int64_t drops) {
  ana_value_t v[2] = {{.i = drops}, {.d = fct}};
  ana_table_append(t, &(ana_row_t){.index = 0,
                                   .id = id,
                                   .status = st,
                                   .message = st ? "broke" : "",
                                   .config = "{}",
                                   .values = v});
}

static void job_row(ana_table_t *t, int64_t i, const char *id, const char *cc) {
  ana_value_t v[3] = {{.s = cc}, {.d = 0}, {.i = 0}};
  ana_table_append(t, &(ana_row_t){.index = i, .id = id, .config = cc, .values = v});
}

int main(void) {
  char err[512];
  ana_table_t *want = ana_table_create(job_cols, 3, err, sizeof err);
  ana_table_t *a = ana_table_create(shard_cols, 2, err, sizeof err);
  ana_table_t *b = ana_table_create(shard_cols, 2, err, sizeof err);
  ana_table_t *c = ana_table_create(shard_cols, 1, err, sizeof err); /* lacks max_fct */
  ana_table_set_attr(want, "title", "job");
  ana_table_set_attr(a, "hostname", "n1");
  ana_table_set_attr(b, "hostname", "n2");
  /* Experiments 0..3; 3 repeats 1's configuration (same id). */
  job_row(want, 0, "00000000000000a0", "dcqcn");
  job_row(want, 1, "00000000000000a1", "hpcc");
  job_row(want, 2, "00000000000000a2", "dctcp");
  job_row(want, 3, "00000000000000a1", "hpcc_again");
  shard_row(a, "00000000000000a0", ANA_FAILED, NAN, ANA_FILL_INT64);
  shard_row(a, "00000000000000a1", ANA_OK, 1.5, 7);
  shard_row(a, "00000000000000ff", ANA_OK, 9.0, 9);  /* not in the job: ignored */
  shard_row(b, "00000000000000a0", ANA_OK, 2.5, 3);  /* a rerun that succeeded wins */
  shard_row(b, "00000000000000a1", ANA_OK, 1.75, 8); /* same status: shard a (earlier) wins */
  shard_row(b, "00000000000000a2", ANA_TIMED_OUT, 4.0, 1);
  shard_row(b, "00000000000000a2", ANA_FAILED, 5.0, 2); /* failed beats timed_out */
  ana_table_t *shards[] = {a, b};
  const char *names[] = {"a.nc", "b.nc"};
  int64_t missing = -1, first = -2;
  ana_table_t *out = ana_collect(want, shards, names, 2, 0, &missing, &first, err, sizeof err);
  CHECK(out != NULL);
  CHECK_EQ_I64(missing, 0);
  CHECK_EQ_I64(first, -1);
  CHECK_EQ_I64(ana_table_n_rows(out), 4);
  const double fct[] = {2.5, 1.5, 5.0, 1.5};
  const int64_t drops[] = {3, 7, 2, 7};
  const ana_status_t st[] = {ANA_OK, ANA_OK, ANA_FAILED, ANA_OK};
  const char *const ccs[] = {"dcqcn", "hpcc", "dctcp", "hpcc_again"};
  for (int64_t r = 0; out && r < 4; r++) {
    ana_row_t row = ana_table_row(out, r);
    CHECK_EQ_I64(row.index, r);
    CHECK_EQ_I64(row.status, st[r]);
    CHECK(ana_table_value(out, r, 1).d == fct[r]);
    CHECK_EQ_I64(ana_table_value(out, r, 2).i, drops[r]);
    CHECK(strcmp(ana_table_value(out, r, 0).s, ccs[r]) == 0);
    CHECK(strcmp(row.config, ccs[r]) == 0); /* the job's config, not the shard's */
  }
  CHECK(out && strcmp(ana_table_attr(out, "title"), "job") == 0);
  CHECK(out && strcmp(ana_table_attr(out, "hostname"), "n1, n2") == 0);
  CHECK(out && strcmp(ana_table_attr(out, "shards"), "2") == 0);
  ana_table_free(out);

  /* Only shard a: experiment 2 has no row. */
  out = ana_collect(want, shards, names, 1, 0, &missing, &first, err, sizeof err);
  CHECK(out == NULL);
  CHECK_EQ_I64(missing, 1);
  CHECK_EQ_I64(first, 2);
  CHECK_STR_CONTAINS(err, "1 of 4 experiments have no results (the first: index 2)");
  out = ana_collect(want, shards, names, 1, 1, &missing, &first, err, sizeof err);
  CHECK(out != NULL && ana_table_n_rows(out) == 3); /* --partial: the others */
  CHECK(out && ana_table_row(out, 2).index == 3 && ana_table_row(out, 0).status == ANA_FAILED);
  ana_table_free(out);
  shard_row(c, "00000000000000a0", ANA_OK, 0, 1);
  ana_table_t *only_c[] = {c};
  const char *c_name[] = {"c.nc"};
  out = ana_collect(want, only_c, c_name, 1, 1, &missing, &first, err, sizeof err);
  CHECK(out == NULL); /* its row lacks max_fct */
  CHECK_STR_CONTAINS(err,
                     "c.nc: no results column max_fct (double) for experiment 00000000000000a0");
  ana_table_free(out);
  ana_table_t *none[] = {NULL};
  out = ana_collect(want, none, c_name, 0, 0, &missing, &first, err, sizeof err);
  CHECK(out == NULL);
  CHECK_EQ_I64(missing, 4);
  CHECK_EQ_I64(first, 0);
  CHECK_STR_CONTAINS(err, "4 of 4 experiments have no results (the first: index 0)");
  out = ana_collect(want, none, c_name, 0, 1, &missing, &first, err, sizeof err);
  CHECK(out != NULL && ana_table_n_rows(out) == 0); /* allowed: an empty table */
  ana_table_free(out);
  ana_table_free(want);
  ana_table_free(a);
  ana_table_free(b);
  ana_table_free(c);
  return mvtest_end();
}
