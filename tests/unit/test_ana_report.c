/* `multiverse report`: the exact text of the best-experiments table and of each
 * swept parameter's effect (ok count, best, median, not ok) on a small grid
 * with an oom and a failed experiment (and a value without any ok one), on
 * a sampled parameter (bins), and on a refined search (each stage against the
 * stage before, Spearman's rank correlation). */
#define _POSIX_C_SOURCE 200809L
#include <math.h>

#include "ana.h"
#include "mvtest.h"

static const ana_col_t cols[] = {
    {.name = "network_cc", .type = ANA_STRING, .key = "network.cc"},
    {.name = "training_tp", .type = ANA_INT64, .key = "training.tp"},
    {.name = "iteration_time", .type = ANA_DOUBLE, .units = "s"},
    {.name = "drops", .type = ANA_INT64, .units = "1"},
};

/* 3 CCs x 4 TP sizes; time = 1 + 0.25 cc + 1 / tp; 3 is oom, 7 failed, and
 * with `all_tp8` 11 failed too (then no tp = 8 experiment is ok). */
static ana_table_t *grid_of(int all_tp8) {
  static const char *const ccs[] = {"dcqcn", "hpcc", "dctcp"};
  static const int64_t tps[] = {1, 2, 4, 8};
  char err[256], id[32];
  ana_table_t *t = ana_table_create(cols, 4, err, sizeof err);
  for (int64_t i = 0; i < 12; i++) {
    ana_status_t st = i == 3 ? ANA_OOM : i == 7 || (all_tp8 && i == 11) ? ANA_FAILED : ANA_OK;
    snprintf(id, sizeof id, "%016llx", (unsigned long long)(0xabc0 + i));
    ana_value_t v[4] = {{.s = ccs[i / 4]},
                        {.i = tps[i % 4]},
                        {.d = st ? NAN : 1 + 0.25 * (double)(i / 4) + 1.0 / (double)tps[i % 4]},
                        {.i = st ? ANA_FILL_INT64 : 10 * (i % 4)}};
    ana_table_append(t, &(ana_row_t){.index = i, .id = id, .status = st, .values = v});
  }
  return t;
}

static ana_table_t *grid(void) {
  return grid_of(0);
}

/* The report as text. */
static char *report(const ana_table_t *t, const ana_report_desc_t *d, int *rc) {
  char *buf = NULL, err[256] = "";
  size_t len = 0;
  FILE *f = open_memstream(&buf, &len);
  *rc = ana_report(f, "results.nc", t, d, err, sizeof err);
  if (*rc) fprintf(f, "error: %s\n", err);
  fclose(f);
  return buf;
}

static void expect(const ana_table_t *t, const ana_report_desc_t *d, const char *want) {
  int rc;
  char *got = report(t, d, &rc);
  CHECK(strcmp(got, want) == 0);
  if (strcmp(got, want)) fprintf(stderr, "got:\n%s\nexpected:\n%s\n", got, want);
  free(got);
}

/* 30 sampled values 0, 0.1, ..., 2.9 of one parameter, metric 30 - k: 10 bins of 3. */
static ana_table_t *sampled(void) {
  const ana_col_t c[] = {{.name = "network_u", .type = ANA_DOUBLE, .key = "network.u"},
                         {.name = "goodput", .type = ANA_DOUBLE, .units = "Gb/s"}};
  char err[256], id[32];
  ana_table_t *t = ana_table_create(c, 2, err, sizeof err);
  for (int64_t k = 0; k < 30; k++) {
    snprintf(id, sizeof id, "%016llx", (unsigned long long)k);
    ana_value_t v[2] = {{.d = 0.1 * (double)k}, {.d = 30 - (double)k}};
    ana_table_append(t, &(ana_row_t){.index = k, .id = id, .values = v});
  }
  return t;
}

/* A search refined once: 6 experiments (tp 1..6) at the flow level, their 3
 * best again at the packet level (indices 6..8 refine 1, 2, 0). */
static ana_table_t *refined(void) {
  const ana_col_t c[] = {
      {.name = "training_tp", .type = ANA_INT64, .key = "training.tp"},
      {.name = "network_model", .type = ANA_STRING, .key = "network.model"},
      {.name = "refine_stage", .type = ANA_INT64, .key = "refine.stage"},
      {.name = "refine_of", .type = ANA_INT64, .key = "refine.of"},
      {.name = "iteration_time", .type = ANA_DOUBLE, .units = "s"}};
  static const double fast[6] = {3, 1, 2, 5, 4, 6}, slow[3] = {2.2, 2.1, 3.3};
  static const int64_t of[3] = {1, 2, 0};
  char err[256], id[32];
  ana_table_t *t = ana_table_create(c, 5, err, sizeof err);
  for (int64_t k = 0; k < 9; k++) {
    int64_t src = k < 6 ? k : of[k - 6];
    snprintf(id, sizeof id, "%016llx", (unsigned long long)(0xf0 + k));
    ana_value_t v[5] = {{.i = src + 1},
                        {.s = k < 6 ? "flow" : "packet"},
                        {.i = k < 6 ? 0 : 1},
                        {.i = k < 6 ? -1 : src},
                        {.d = k < 6 ? fast[k] : slow[k - 6]}};
    ana_table_append(t, &(ana_row_t){.index = k, .id = id, .values = v});
  }
  return t;
}

int main(void) {
  /* Spearman: ranks (2, 1, 3) against (1, 2, 3): 1 - 6 x 2 / (3 x 8); ties
   * share their average rank: (1, 2, 3, 4) against (1, 2.5, 2.5, 4). */
  CHECK(fabs(ana_spearman((double[]){2, 1, 3}, (double[]){2.1, 2.2, 3.3}, 3) - 0.5) < 1e-12);
  CHECK(fabs(ana_spearman((double[]){1, 2, 3, 4}, (double[]){1, 7, 7, 9}, 4) -
             4.5 / sqrt(5 * 4.5)) < 1e-12);
  CHECK(isnan(ana_spearman((double[]){1, 2}, (double[]){3, 3}, 2)));
  ana_table_t *t = grid();
  expect(t, &(ana_report_desc_t){0},
         "results.nc: 12 experiments: 10 ok, 1 oom, 1 failed\n"
         "metric: iteration_time (s), lower is better\n"
         "\n"
         "best 10 of 10 ok experiments (2 not ok, skipped):\n"
         "rank  iteration_time  network.cc  training.tp  experiment_id\n"
         "   1            1.25  dcqcn                 4  000000000000abc2\n"
         "   2             1.5  dcqcn                 2  000000000000abc1\n"
         "   3             1.5  hpcc                  4  000000000000abc6\n"
         "   4           1.625  dctcp                 8  000000000000abcb\n"
         "   5            1.75  hpcc                  2  000000000000abc5\n"
         "   6            1.75  dctcp                 4  000000000000abca\n"
         "   7               2  dcqcn                 1  000000000000abc0\n"
         "   8               2  dctcp                 2  000000000000abc9\n"
         "   9            2.25  hpcc                  1  000000000000abc4\n"
         "  10             2.5  dctcp                 1  000000000000abc8\n"
         "\n"
         "by network.cc:\n"
         "network.cc  ok   best  median  not_ok\n"
         "dcqcn        3   1.25     1.5       1\n"
         "hpcc         3    1.5    1.75       1\n"
         "dctcp        4  1.625   1.875       0\n"
         "\n"
         "by training.tp:\n"
         "training.tp  ok   best  median  not_ok\n"
         "1             3      2    2.25       0\n"
         "2             3    1.5    1.75       0\n"
         "4             3   1.25     1.5       0\n"
         "8             1  1.625   1.625       2\n");
  expect(t, &(ana_report_desc_t){.by = "training.tp", .top = 3},
         "results.nc: 12 experiments: 10 ok, 1 oom, 1 failed\n"
         "metric: iteration_time (s), lower is better\n"
         "\n"
         "best 3 of 10 ok experiments (2 not ok, skipped):\n"
         "rank  iteration_time  network.cc  training.tp  experiment_id\n"
         "   1            1.25  dcqcn                 4  000000000000abc2\n"
         "   2             1.5  dcqcn                 2  000000000000abc1\n"
         "   3             1.5  hpcc                  4  000000000000abc6\n"
         "\n"
         "by training.tp:\n"
         "training.tp  ok   best  median  not_ok\n"
         "1             3      2    2.25       0\n"
         "2             3    1.5    1.75       0\n"
         "4             3   1.25     1.5       0\n"
         "8             1  1.625   1.625       2\n");
  expect(
      t,
      &(ana_report_desc_t){.metric = "drops", .higher_is_better = 1, .by = "network_cc", .top = 2},
      "results.nc: 12 experiments: 10 ok, 1 oom, 1 failed\n"
      "metric: drops (1), higher is better\n"
      "\n"
      "best 2 of 10 ok experiments (2 not ok, skipped):\n"
      "rank  drops  network.cc  training.tp  experiment_id\n"
      "   1     30  dctcp                 8  000000000000abcb\n"
      "   2     20  dcqcn                 4  000000000000abc2\n"
      "\n"
      "by network.cc:\n"
      "network.cc  ok  best  median  not_ok\n"
      "dcqcn        3    20      10       1\n"
      "hpcc         3    20      10       1\n"
      "dctcp        4    30      15       0\n");
  expect(t, &(ana_report_desc_t){.metric = "network.cc"},
         "error: results.nc: network.cc: a swept parameter, not a result to rank by\n");
  expect(t, &(ana_report_desc_t){.metric = "experiment_index"},
         "error: results.nc: experiment_index: not a result to rank by (give a result column)\n");
  expect(t, &(ana_report_desc_t){.metric = "nope"}, "error: results.nc: nope: no such column\n");
  expect(t, &(ana_report_desc_t){.by = "drops"},
         "error: results.nc: drops: not a swept parameter\n");
  ana_table_free(t);
  t = grid_of(1); /* a value whose experiments all failed: no best, no median */
  expect(t, &(ana_report_desc_t){.by = "training.tp", .top = 1},
         "results.nc: 12 experiments: 9 ok, 1 oom, 2 failed\n"
         "metric: iteration_time (s), lower is better\n"
         "\n"
         "best 1 of 9 ok experiments (3 not ok, skipped):\n"
         "rank  iteration_time  network.cc  training.tp  experiment_id\n"
         "   1            1.25  dcqcn                 4  000000000000abc2\n"
         "\n"
         "by training.tp:\n"
         "training.tp  ok  best  median  not_ok\n"
         "1             3     2    2.25       0\n"
         "2             3   1.5    1.75       0\n"
         "4             3  1.25     1.5       0\n"
         "8             0     -       -       3\n");
  ana_table_free(t);
  t = sampled();
  expect(t, &(ana_report_desc_t){.higher_is_better = 1, .top = 2},
         "results.nc: 30 experiments: 30 ok\n"
         "metric: goodput (Gb/s), higher is better\n"
         "\n"
         "best 2 of 30 ok experiments:\n"
         "rank  goodput  network.u  experiment_id\n"
         "   1       30          0  0000000000000000\n"
         "   2       29        0.1  0000000000000001\n"
         "\n"
         "by network.u:\n"
         "network.u  ok  best  median  not_ok\n"
         "0 - 0.2     3    30      29       0\n"
         "0.3 - 0.5   3    27      26       0\n"
         "0.6 - 0.8   3    24      23       0\n"
         "0.9 - 1.1   3    21      20       0\n"
         "1.2 - 1.4   3    18      17       0\n"
         "1.5 - 1.7   3    15      14       0\n"
         "1.8 - 2     3    12      11       0\n"
         "2.1 - 2.3   3     9       8       0\n"
         "2.4 - 2.6   3     6       5       0\n"
         "2.7 - 2.9   3     3       2       0\n");
  ana_table_free(t);
  t = refined();
  expect(t, &(ana_report_desc_t){.top = 2},
         "results.nc: 9 experiments: 9 ok\n"
         "metric: iteration_time (s), lower is better\n"
         "\n"
         "best 2 of 3 ok experiments of refine stage 1:\n"
         "rank  iteration_time  training.tp  network.model  experiment_id\n"
         "   1             2.1            3  packet         00000000000000f7\n"
         "   2             2.2            2  packet         00000000000000f6\n"
         "\n"
         "refine stage 1: 3 of 6 ok experiments of stage 0 again, 3 ok:\n"
         "rank  rank at stage 0  stage 0  stage 1   ratio  training.tp  network.model  experiment_id\n"
         "   1                2        2      2.1  1.0500            3  packet         00000000000000f7\n"
         "   2                1        1      2.2  2.2000            2  packet         00000000000000f6\n"
         "   3                3        3      3.3  1.1000            1  packet         00000000000000f8\n"
         "stage 1's best was stage 0's rank 2 of 6 (top 33.3 %); rank correlation (Spearman) of the "
         "two stages over these 3: 0.5000\n"
         "\n"
         "the sweep (refine stage 0) by each swept key:\n"
         "\n"
         "by training.tp:\n"
         "training.tp  ok  best  median  not_ok\n"
         "1             1     3       3       0\n"
         "2             1     1       1       0\n"
         "3             1     2       2       0\n"
         "4             1     5       5       0\n"
         "5             1     4       4       0\n"
         "6             1     6       6       0\n"
         "\n"
         "by network.model:\n"
         "network.model  ok  best  median  not_ok\n"
         "flow            6     1     3.5       0\n");
  ana_table_free(t);
  return mvtest_end();
}
