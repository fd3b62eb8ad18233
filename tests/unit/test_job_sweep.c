/* Job files: expansion counts (grid x zip x samples, filters), the order of
 * experiments, sample points against an independent implementation of the
 * documented generator, and every problem of a bad file reported in one pass.
 * The topology-search example expands to 24 experiments; grid x 2 zip groups x
 * samples gives 240 in mixed-radix order; exclude/include: 12 - 4 + 3 = 11, 2
 * dropped. Refine stages: their keys as axes, experiments appended by stage,
 * every problem of a stage in one pass. */
#include <math.h>

#include "job_sweep.h"
#include "mvtest.h"

static job_sweep_t *parse(const char *text) {
  job_sweep_errs_t errs = {0};
  job_sweep_t *sw = NULL;
  if (job_sweep_parse("job.json", text, &sw, &errs)) fprintf(stderr, "%s", errs.text);
  CHECK(sw != NULL && errs.n == 0);
  job_sweep_errs_free(&errs);
  return sw;
}

/* The problems a text gives (caller frees). */
static char *problems(const char *text, int *n) {
  job_sweep_errs_t errs = {0};
  job_sweep_t *sw = NULL;
  CHECK(job_sweep_parse("job.json", text, &sw, &errs) == -1 && sw == NULL);
  *n = errs.n;
  return errs.text;
}

static int64_t ival(const job_sweep_t *sw, int64_t i, int a) {
  return json_integer_value(job_sweep_value(sw, i, a));
}

static const char *sval(const job_sweep_t *sw, int64_t i, int a) {
  return json_string_value(job_sweep_value(sw, i, a));
}

/* The DESIGN.md example: 2 x 3 grid, a zip of 4 rows: 24 experiments, first axis slowest. */
static void example(void) {
  job_sweep_errs_t errs = {0};
  job_sweep_t *sw = NULL;
  char path[1024];
  snprintf(path, sizeof path, "%s/../../jobs/examples/topology-search.json", mvtest_data(""));
  CHECK(job_sweep_load(path, &sw, &errs) == 0 && errs.n == 0);
  if (!sw) return;
  CHECK_EQ_I64(job_sweep_count(sw), 24);
  CHECK(strcmp(job_sweep_name(sw), "topology-search") == 0);
  CHECK(strcmp(job_sweep_output(sw), "results.nc") == 0);
  CHECK_EQ_I64(job_sweep_n_axes(sw), 4);
  CHECK(strcmp(job_sweep_axis(sw, 0), "network.topology.kind") == 0);
  CHECK(strcmp(job_sweep_axis(sw, 3), "training.dp") == 0);
  CHECK(job_sweep_axis_type(sw, 0) == JOB_SWEEP_STRING &&
        job_sweep_axis_type(sw, 2) == JOB_SWEEP_INT);
  /* i = kind * 12 + cc * 4 + zip row. */
  const char *cc[] = {"dcqcn", "hpcc", "dctcp"};
  const int64_t tp[] = {1, 2, 4, 8}, dp[] = {128, 64, 32, 16};
  for (int64_t i = 0; i < 24; i++) {
    json_t *e = job_sweep_experiment(sw, i);
    CHECK(strcmp(json_string_value(job_sweep_get(e, "network.topology.kind")),
                 i < 12 ? "fat_tree" : "rail_optimized") == 0);
    CHECK(strcmp(json_string_value(job_sweep_get(e, "network.cc")), cc[i / 4 % 3]) == 0);
    CHECK_EQ_I64(json_integer_value(job_sweep_get(e, "training.tp")), tp[i % 4]);
    CHECK_EQ_I64(json_integer_value(job_sweep_get(e, "training.dp")), dp[i % 4]);
    CHECK(job_sweep_get(e, "network.topology.tiers") == NULL); /* the default fat tree */
    CHECK_EQ_I64(json_integer_value(job_sweep_get(e, "training.zero")), 1);
    CHECK_EQ_I64(json_integer_value(job_sweep_get(e, "training.global_batch")), 1024);
    CHECK(job_sweep_kind(e) == JOB_SWEEP_TRAINING);
    CHECK(strcmp(sval(sw, i, 1), cc[i / 4 % 3]) == 0 && ival(sw, i, 3) == dp[i % 4]);
    /* A deep copy: changing it changes nothing else. */
    json_object_set_new(json_object_get(e, "network"), "cc", json_string("changed"));
    json_decref(e);
  }
  json_t *e0 = job_sweep_experiment(sw, 0);
  CHECK(strcmp(json_string_value(job_sweep_get(e0, "network.cc")), "dcqcn") == 0);
  json_decref(e0);
  CHECK(job_sweep_experiment(sw, 24) == NULL);
  job_sweep_free(sw);
}

/* grid 2 x 3, zip groups of 4 and 2 rows, 5 samples: 240, in mixed-radix order. */
static void counts(void) {
  job_sweep_t *sw =
      parse("{\"base\": {\"network\": {\"cc\": \"none\"}},"
            " \"sweep\": {\"grid\": {\"a\": [1, 2], \"b\": [\"x\", \"y\", \"z\"]},"
            "  \"zip\": [{\"c\": [1, 2, 3, 4], \"d\": [4, 3, 2, 1]}, {\"e\": [true, false]}],"
            "  \"samples\": {\"n\": 5, \"seed\": 3, \"axes\": {\"f\": {\"uniform\": [0, 1]}}}}}");
  if (!sw) return;
  CHECK_EQ_I64(job_sweep_count(sw), 2 * 3 * 4 * 2 * 5);
  CHECK_EQ_I64(job_sweep_n_axes(sw), 6);
  CHECK(job_sweep_axis_type(sw, 4) == JOB_SWEEP_BOOL &&
        job_sweep_axis_type(sw, 5) == JOB_SWEEP_REAL);
  int ok = 1;
  double f0[5];
  for (int64_t i = 0; i < 240; i++) {
    int64_t s = i % 5, e = i / 5 % 2, z = i / 10 % 4, b = i / 40 % 3, a = i / 120;
    ok &= ival(sw, i, 0) == a + 1 && sval(sw, i, 1)[0] == "xyz"[b] && ival(sw, i, 2) == z + 1 &&
          ival(sw, i, 3) == 4 - z && json_is_true(job_sweep_value(sw, i, 4)) == (e == 0);
    double f = json_real_value(job_sweep_value(sw, i, 5));
    if (i < 5) f0[i] = f;
    ok &= f == f0[s]; /* every grid point gets the same 5 sample points */
  }
  CHECK(ok);
  /* Every experiment distinct. */
  int distinct = 1;
  for (int64_t i = 1; i < 240 && distinct; i++) {
    json_t *x = job_sweep_experiment(sw, i - 1), *y = job_sweep_experiment(sw, i);
    distinct = !json_equal(x, y);
    json_decref(x);
    json_decref(y);
  }
  CHECK(distinct);
  job_sweep_free(sw);
  /* Kinds. */
  json_t *k1 = json_pack("{s:{}}", "model"),
         *k2 = json_pack("{s:s,s:{}}", "kind", "network", "training");
  json_t *k3 = json_pack("{s:{}}", "network");
  CHECK(job_sweep_kind(k1) == JOB_SWEEP_TRAINING && job_sweep_kind(k2) == JOB_SWEEP_NETWORK &&
        job_sweep_kind(k3) == JOB_SWEEP_NETWORK);
  json_decref(k1);
  json_decref(k2);
  json_decref(k3);
  /* No sweep: the base alone. */
  sw = parse("{\"base\": {\"network\": {}}}");
  CHECK(sw && job_sweep_count(sw) == 1 && job_sweep_n_axes(sw) == 0);
  CHECK(sw && strcmp(job_sweep_name(sw), "job") == 0);
  job_sweep_free(sw);
}

/* The generator as docs/jobs.md documents it, written again here. */
static uint64_t t_mix(uint64_t x) {
  x += 0x9e3779b97f4a7c15ULL;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
  return x ^ (x >> 31);
}

static uint64_t t_bits(uint64_t seed, const char *key, uint64_t draw) {
  uint64_t h = 0xcbf29ce484222325ULL;
  for (; *key; key++)
    h = (h ^ (unsigned char)*key) * 0x100000001b3ULL;
  return t_mix(t_mix(t_mix(seed) ^ h) ^ draw);
}

static void samples(void) {
  const char *text =
      "{\"base\": {\"network\": {\"link_delay_ns\": 1000}},"
      " \"sweep\": {\"samples\": {\"n\": 2000, \"seed\": 42, \"axes\": {"
      "  \"network.u\": {\"uniform\": [10, 20]}, \"network.l\": {\"log_uniform\": [1, 10000]},"
      "  \"network.i\": {\"int\": [-3, 3]}, \"network.c\": {\"choice\": [\"p\", \"q\", \"r\"]}}}}}";
  job_sweep_t *sw = parse(text), *again = parse(text);
  if (!sw || !again) return;
  CHECK_EQ_I64(job_sweep_count(sw), 2000);
  int same = 1, in_range = 1, formula = 1;
  double mean = 0, below = 0;
  int64_t ints[7] = {0}, choices[3] = {0};
  for (int64_t k = 0; k < 2000; k++) {
    json_t *x = job_sweep_experiment(sw, k), *y = job_sweep_experiment(again, k);
    same &= json_equal(x, y);
    json_decref(x);
    json_decref(y);
    double u = json_real_value(job_sweep_value(sw, k, 0));
    double l = json_real_value(job_sweep_value(sw, k, 1));
    int64_t i = ival(sw, k, 2);
    const char *c = sval(sw, k, 3);
    in_range &= u >= 10 && u <= 20 && l >= 1 && l <= 10000 && i >= -3 && i <= 3 && c;
    mean += u / 2000;
    below += l < 100; /* the geometric middle of [1, 10000] */
    ints[i + 3]++;
    choices[c[0] - 'p']++;
    /* Continuous axes: no repeats, so point k is draw k. */
    uint64_t bu = t_bits(42, "network.u", (uint64_t)k), bi = t_bits(42, "network.i", (uint64_t)k);
    formula &= u == 10 + (double)(bu >> 11) * 0x1.0p-53 * 10;
    formula &= i == -3 + (int64_t)(((unsigned __int128)bi * 7) >> 64);
  }
  CHECK(same && in_range && formula);
  CHECK(fabs(mean - 15) < 0.2);    /* sd of the mean: 2.89 / sqrt(2000) = 0.065 */
  CHECK(fabs(below - 1000) < 100); /* sd: sqrt(2000 / 4) = 22 */
  for (int k = 0; k < 7; k++)
    CHECK(fabs(ints[k] - 2000.0 / 7) < 90); /* sd 15.6 */
  for (int k = 0; k < 3; k++)
    CHECK(fabs(choices[k] - 2000.0 / 3) < 100);
  job_sweep_free(sw);
  job_sweep_free(again);
  /* Another seed, other points. */
  sw = parse("{\"base\": {}, \"sweep\": {\"samples\": {\"n\": 1, \"seed\": 43, \"axes\":"
             " {\"network.u\": {\"uniform\": [10, 20]}}}}}");
  if (sw) {
    uint64_t b = t_bits(43, "network.u", 0);
    CHECK(json_real_value(job_sweep_value(sw, 0, 0)) == 10 + (double)(b >> 11) * 0x1.0p-53 * 10);
  }
  job_sweep_free(sw);
  /* Discrete axes: exactly the 8 distinct points of int [1, 4] x choice [a, b]. */
  sw = parse("{\"base\": {}, \"sweep\": {\"samples\": {\"n\": 8, \"axes\":"
             " {\"x\": {\"int\": [1, 4]}, \"y\": {\"choice\": [\"a\", \"b\"]}}}}}");
  if (sw) {
    int seen[4][2] = {{0}};
    for (int64_t k = 0; k < 8; k++)
      seen[ival(sw, k, 0) - 1][sval(sw, k, 1)[0] - 'a']++;
    int all = 1;
    for (int k = 0; k < 8; k++)
      all &= seen[k / 2][k % 2] == 1;
    CHECK(all);
    CHECK(job_sweep_dropped(sw) > 0); /* 8 of 8 points cannot come without repeats */
  }
  job_sweep_free(sw);
  int n;
  char *t = problems("{\"base\": {}, \"sweep\": {\"samples\": {\"n\": 9, \"axes\":"
                     " {\"x\": {\"int\": [1, 4]}, \"y\": {\"choice\": [\"a\", \"b\"]}}}}}",
                     &n);
  CHECK(n == 1 && t &&
        strcmp(t, "job.json: sweep.samples.n: 9 distinct points asked for, but "
                  "the axes give only 8\n") == 0);
  free(t);
}

/* exclude drops matching points; include adds entries (dropping repeats). */
static void filters(void) {
  job_sweep_t *sw =
      parse("{\"base\": {\"training\": {\"tp\": 8}, \"network\": {\"cc\": \"a\"}},"
            " \"sweep\": {\"grid\": {\"training.tp\": [1, 2, 4, 8], \"network.cc\": [\"a\", \"b\", "
            "\"c\"]},"
            "  \"exclude\": [{\"training.tp\": 1, \"network.cc\": \"a\"}, {\"training.tp\": 8}],"
            "  \"include\": [{\"training.tp\": 16}, {\"training.tp\": 2, \"network.cc\": \"b\"},"
            "               {\"training.tp\": 1, \"network.cc\": \"a\"}, {\"training.tp\": 16},"
            "               {\"network.extra\": 5}]}}");
  if (!sw) return;
  /* 12 - 1 - 3 = 8 points; includes: tp 16 (cc from base: a), tp1/a (excluded, so
   * added back), extra=5; tp2/b is a point and the second tp 16 a repeat. */
  CHECK_EQ_I64(job_sweep_count(sw), 11);
  CHECK_EQ_I64(job_sweep_dropped(sw), 2);
  const int64_t tp[] = {1, 1, 2, 2, 2, 4, 4, 4, 16, 1, 8};
  const char *cc = "bcabcabcaaa";
  for (int64_t i = 0; i < 11; i++) {
    CHECK_EQ_I64(ival(sw, i, 0), tp[i]);
    CHECK(sval(sw, i, 1)[0] == cc[i]);
  }
  CHECK_EQ_I64(job_sweep_n_axes(sw), 3);
  CHECK(strcmp(job_sweep_axis(sw, 2), "network.extra") == 0);
  CHECK(job_sweep_value(sw, 0, 2) == NULL && ival(sw, 10, 2) == 5);
  job_sweep_free(sw);
  /* exclude on a zip key drops its row; on a sample choice, those points. */
  const char *zipped =
      "{\"base\": {}, \"sweep\": {\"zip\": {\"tp\": [1, 2, 4], \"dp\": [4, 2, 1]},"
      " \"samples\": {\"n\": 6, \"axes\": {\"c\": {\"choice\": [\"x\", \"y\", \"z\"]},"
      " \"u\": {\"uniform\": [0, 1]}}}, \"exclude\": [{\"tp\": 2}%s]}}";
  char text[1024];
  snprintf(text, sizeof text, zipped, "");
  sw = parse(text);
  if (!sw) return;
  CHECK_EQ_I64(job_sweep_count(sw), 12);
  int64_t zs = 0;
  for (int64_t i = 0; i < 6; i++)
    zs += strcmp(sval(sw, i, 2), "z") == 0;
  CHECK(zs > 0 && zs < 6);
  job_sweep_free(sw);
  snprintf(text, sizeof text, zipped, ", {\"c\": \"z\"}");
  sw = parse(text);
  if (!sw) return;
  CHECK_EQ_I64(job_sweep_count(sw), 2 * (6 - zs));
  int none = 1;
  for (int64_t i = 0; i < job_sweep_count(sw); i++)
    none &= ival(sw, i, 0) != 2 && strcmp(sval(sw, i, 2), "z") != 0;
  CHECK(none);
  job_sweep_free(sw);
}

#define OUTPUT_RULE                                                                                \
  "must be a file name ending in .nc, in the run folder (no '/', not starting with '.', at "       \
  "most 200 bytes, no control characters)"
#define NAME_RULE                                                                                  \
  "must be a string of 1 to 200 bytes without control characters (it names the run folder)"

/* 201 bytes */
#define LONG_NAME                                                                                  \
  "abcdefghijabcdefghijabcdefghijabcdefghijabcdefghijabcdefghijabcdefghijabcdefghijabcdefghij"     \
  "abcdefghijabcdefghijabcdefghijabcdefghijabcdefghijabcdefghijabcdefghijabcdefghijabcdefghij"     \
  "abcdefghijabcdefghijx"

static void errors(void) {
  job_sweep_errs_t errs = {0};
  job_sweep_t *sw = NULL;
  /* Every problem of a file, in one pass. */
  const char *bad = mvtest_data("jobs/bad_many.json");
  CHECK(job_sweep_load(bad, &sw, &errs) == -1 && sw == NULL);
  char want[4096];
  snprintf(
      want, sizeof want,
      "%1$s: nam: unknown key (expected name, base, sweep, refine, output)\n"
      "%1$s: output: " OUTPUT_RULE "\n"
      "%1$s: sweep.bogus: unknown key (expected grid, zip, samples, include, exclude)\n"
      "%1$s: sweep.grid.network.cc[2]: \"a\" repeats [0]\n"
      "%1$s: sweep.grid.network.mtu: must be a non-empty list of values\n"
      "%1$s: sweep.grid.network.cc.x: cannot set network.cc.x: base.network.cc is not an "
      "object\n"
      "%1$s: sweep.zip: lists of different lengths (training.tp has 4, training.dp has 3)\n"
      "%1$s: sweep.samples.n: must be an integer from 1 to 10000000\n"
      "%1$s: sweep.samples.axes.network.x.uniform: needs [low, high], numbers with low < high\n"
      "%1$s: sweep.samples.axes.network.y.log_uniform: needs [low, high], numbers with 0 < "
      "low < high\n"
      "%1$s: sweep.samples.axes.network.z: must be one of {\"uniform\": [low, high]}, "
      "{\"log_uniform\": [low, high]}, {\"int\": [low, high]}, {\"choice\": [values]}\n"
      "%1$s: sweep.include[0]: must be a non-empty object of KEY: value\n"
      "%1$s: sweep.exclude[0].network.q: not a key of sweep.grid, sweep.zip or sweep.samples\n",
      bad);
  CHECK_EQ_I64(errs.n, 13);
  CHECK(errs.text && strcmp(errs.text, want) == 0);
  if (errs.text && strcmp(errs.text, want)) fprintf(stderr, "got:\n%s", errs.text);
  job_sweep_errs_free(&errs);
  /* The example, and a syntax error with line and column. */
  const char *zip = mvtest_data("jobs/bad_zip.json");
  CHECK(job_sweep_load(zip, &sw, &errs) == -1 && errs.n == 1);
  snprintf(want, sizeof want,
           "%s: sweep.zip: lists of different lengths (training.tp has 4, training.dp has 3)\n",
           zip);
  CHECK(errs.text && strcmp(errs.text, want) == 0);
  job_sweep_errs_free(&errs);
  const char *syn = mvtest_data("jobs/bad_syntax.json");
  CHECK(job_sweep_load(syn, &sw, &errs) == -1 && errs.n == 1);
  snprintf(want, sizeof want, "%s:3:", syn);
  CHECK(errs.text && strncmp(errs.text, want, strlen(want)) == 0);
  job_sweep_errs_free(&errs);
  CHECK(job_sweep_load("/nonexistent/job.json", &sw, &errs) == -1 && errs.n == 1);
  CHECK_STR_CONTAINS(errs.text ? errs.text : "", "/nonexistent/job.json: ");
  job_sweep_errs_free(&errs);
  /* One line each. */
  struct {
    const char *text, *want;
  } cases[] = {
      {"[1]", "job.json: top level: must be a JSON object\n"},
      {"{\"name\": \"x\"}", "job.json: base: must be an object (the configuration every "
                            "experiment starts from)\n"},
      {"{\"base\": {\"kind\": \"nets\"}}",
       "job.json: base.kind: must be \"network\", \"training\" or \"collective\"\n"},
      {"{\"base\": {}, \"sweep\": {\"grid\": {\"kind\": [\"network\"]}}}",
       "job.json: sweep.grid.kind: the experiment kind cannot be swept\n"},
      {"{\"base\": {}, \"sweep\": {\"grid\": {\"a..b\": [1]}}}",
       "job.json: sweep.grid.a..b: 'a..b' is not a dotted key such as network.cc\n"},
      {"{\"base\": {}, \"sweep\": {\"grid\": {\"a\": [1]}, \"zip\": {\"a.b\": [1]}}}",
       "job.json: sweep.zip.a.b: a is also swept by sweep.grid.a\n"},
      {"{\"base\": {}, \"sweep\": {\"zip\": [{\"a\": [1, 2], \"b\": [3, 3]}, {\"c\": [1, 1]}]}}",
       "job.json: sweep.zip[1]: rows 0 and 1 are the same\n"},
      {"{\"base\": {}, \"sweep\": {\"zip\": {\"a\": [1, 1], \"b\": [3, 3]}}}",
       "job.json: sweep.zip: rows 0 and 1 are the same\n"},
      {"{\"base\": {}, \"sweep\": {\"grid\": {\"a\": [1, 2]}, \"exclude\": [{\"a\": 3}]}}",
       "job.json: sweep.exclude[0].a: 3 is not a value of sweep.grid.a\n"},
      {"{\"base\": {}, \"sweep\": {\"grid\": {\"a\": [1, 2]}, \"exclude\": [{\"a\": 1}, {\"a\": "
       "2}]}}",
       "job.json: sweep.exclude: excludes every experiment\n"},
      {"{\"base\": {}, \"sweep\": {\"samples\": {\"n\": 2, \"axes\": {\"u\": {\"uniform\": [0, "
       "1]}}},"
       " \"exclude\": [{\"u\": 0.5}]}}",
       "job.json: sweep.exclude[0].u: cannot exclude one value of a continuous range\n"},
      {"{\"base\": {}, \"sweep\": {\"grid\": {\"a\": [1, 2], \"b\": [1, 2], \"c\": [1, 2],"
       " \"d\": [1, 2], \"e\": [1, 2], \"f\": [1, 2], \"g\": [1, 2], \"h\": [1, 2], \"i\": [1, 2],"
       " \"j\": [1, 2], \"k\": [1, 2], \"l\": [1, 2], \"m\": [1, 2], \"n\": [1, 2], \"o\": [1, 2],"
       " \"p\": [1, 2], \"q\": [1, 2], \"r\": [1, 2], \"s\": [1, 2], \"t\": [1, 2], \"u\": [1, 2],"
       " \"v\": [1, 2], \"w\": [1, 2], \"x\": [1, 2]}}}",
       "job.json: sweep: 1.678e+07 experiments before filters; at most 10000000\n"},
      /* Every int64: a count of 2^64 does not fit (it overflowed, and said "only 0"). */
      {"{\"base\": {}, \"sweep\": {\"samples\": {\"n\": 3, \"axes\": {\"a\": {\"int\": "
       "[-9223372036854775808, 9223372036854775807]}}}}}",
       "job.json: sweep.samples.axes.a.int: needs [low, high], at most 2^64 - 1 integers (not "
       "every int64)\n"},
      /* An empty grid is a mistake, not "no sweep". */
      {"{\"base\": {}, \"sweep\": {\"grid\": {}}}",
       "job.json: sweep.grid: must be a non-empty object of KEY: [values]\n"},
      /* Numbers by value: 1000 and 1000.0 are one experiment (one canonical form, one id). */
      {"{\"base\": {}, \"sweep\": {\"grid\": {\"network.mtu\": [1000, 1000.0]}}}",
       "job.json: sweep.grid.network.mtu[1]: 1000.0 repeats [0]\n"},
      {"{\"base\": {}, \"sweep\": {\"zip\": {\"a\": [1, 1.0], \"b\": [[2], [2.0]]}}}",
       "job.json: sweep.zip: rows 0 and 1 are the same\n"},
      {"{\"base\": {}, \"sweep\": {\"grid\": {\"a\": [1, 2]}, \"exclude\": [{\"a\": 1.0}, "
       "{\"a\": 2e0}]}}",
       "job.json: sweep.exclude: excludes every experiment\n"},
      /* The results file stays in the run folder; the name reaches the file system. */
      {"{\"base\": {}, \"output\": \"../other/results.nc\"}",
       "job.json: output: " OUTPUT_RULE "\n"},
      {"{\"base\": {}, \"output\": \"/abs/results.nc\"}", "job.json: output: " OUTPUT_RULE "\n"},
      {"{\"base\": {}, \"output\": \"x/y/z.nc\"}", "job.json: output: " OUTPUT_RULE "\n"},
      {"{\"base\": {}, \"output\": \".hidden.nc\"}", "job.json: output: " OUTPUT_RULE "\n"},
      {"{\"base\": {}, \"output\": \"a\\tb.nc\"}", "job.json: output: " OUTPUT_RULE "\n"},
      {"{\"base\": {}, \"name\": \"a\\nb\\u001b[31mRED\"}", "job.json: name: " NAME_RULE "\n"},
      {"{\"base\": {}, \"name\": \"" LONG_NAME "\"}", "job.json: name: " NAME_RULE "\n"},
      /* A key holding a newline (fuzz_job_sweep): still one line. */
      {"{\"base\": {}, \"nam\\ne\": 1}",
       "job.json: nam?e: unknown key (expected name, base, sweep, refine, output)\n"},
  };
  for (size_t k = 0; k < sizeof cases / sizeof *cases; k++) {
    int n;
    char *t = problems(cases[k].text, &n);
    CHECK(n == 1 && t && strcmp(t, cases[k].want) == 0);
    if (!t || strcmp(t, cases[k].want)) fprintf(stderr, "case %zu: %s", k, t ? t : "(none)\n");
    free(t);
  }
}

/* int axes as wide as int64 allows: counted and drawn without overflow (the
 * count hi - lo + 1 overflowed: "the axes give only -9223372036854775808"). */
static void wide_int_axes(void) {
  static const char *const ranges[] = {"[-9223372036854775808, 0]", "[0, 9223372036854775807]",
                                       "[-4611686018427387904, 4611686018427387904]",
                                       "[-9223372036854775808, 9223372036854775806]"};
  static const long long lo[] = {INT64_MIN, 0, -4611686018427387904LL, INT64_MIN};
  static const long long hi[] = {0, INT64_MAX, 4611686018427387904LL, INT64_MAX - 1};
  for (int r = 0; r < 4; r++) {
    char text[512];
    snprintf(text, sizeof text,
             "{\"base\": {}, \"sweep\": {\"samples\": {\"n\": 50, \"axes\": {\"a\": "
             "{\"int\": %s}}}}}",
             ranges[r]);
    job_sweep_t *sw = parse(text);
    if (!sw) continue;
    CHECK_EQ_I64(job_sweep_count(sw), 50);
    int inside = 1, spread = 0;
    for (int64_t i = 0; i < 50; i++) {
      json_int_t v = json_integer_value(job_sweep_value(sw, i, 0));
      inside &= v >= lo[r] && v <= hi[r];
      spread |= i && v != json_integer_value(job_sweep_value(sw, 0, 0));
    }
    CHECK(inside && spread);
    job_sweep_free(sw);
  }
}

/* Two refine stages: flow to packet (32 kept), then another CC (5 %). */
static void refine(void) {
  job_sweep_t *sw = parse(
      "{\"base\": {\"network\": {\"model\": \"flow\", \"cc\": \"dcqcn\"}},"
      " \"sweep\": {\"grid\": {\"training.tp\": [1, 2, 4]}},"
      " \"refine\": [{\"metric\": \"iteration_time_s\", \"keep\": 2,"
      " \"set\": {\"network.model\": \"packet\"}},"
      " {\"metric\": \"tokens_per_s\", \"order\": \"max\", \"keep\": \"5%\","
      " \"set\": {\"network.cc\": \"hpcc\", \"network.mtu\": 1024}}]}");
  if (!sw) return;
  CHECK_EQ_I64(job_sweep_n_stages(sw), 2);
  CHECK_EQ_I64(job_sweep_count(sw), 3);
  const job_refine_t *a = job_sweep_stage(sw, 1), *b = job_sweep_stage(sw, 2);
  CHECK(a && b && !job_sweep_stage(sw, 0) && !job_sweep_stage(sw, 3));
  if (!a || !b) return;
  CHECK(strcmp(a->metric, "iteration_time_s") == 0 && !a->maximize && a->keep == 2);
  CHECK(strcmp(b->metric, "tokens_per_s") == 0 && b->maximize && b->keep_pct == 5);
  CHECK(strcmp(a->where, "refine[0]") == 0 && strcmp(b->where, "refine[1]") == 0);
  /* keep: a count, at most the candidates; a share rounded up, at least 1 */
  CHECK_EQ_I64(job_refine_keep(a, 144), 2);
  CHECK_EQ_I64(job_refine_keep(a, 1), 1);
  CHECK_EQ_I64(job_refine_keep(b, 144), 8);
  CHECK_EQ_I64(job_refine_keep(b, 100), 5);
  CHECK_EQ_I64(job_refine_keep(b, 3), 1);
  /* the stages' keys are axes after the sweep's, typed by base and stages */
  CHECK_EQ_I64(job_sweep_n_axes(sw), 4);
  CHECK(strcmp(job_sweep_axis(sw, 1), "network.model") == 0 &&
        job_sweep_axis_type(sw, 1) == JOB_SWEEP_STRING);
  CHECK(strcmp(job_sweep_axis(sw, 3), "network.mtu") == 0 &&
        job_sweep_axis_type(sw, 3) == JOB_SWEEP_INT);
  /* kept experiments appended: stage 1 refines 2, stage 2 refines that one */
  CHECK_EQ_I64(job_sweep_refine_add(sw, 2, 1), 3);
  CHECK_EQ_I64(job_sweep_refine_add(sw, 3, 2), 4);
  CHECK_EQ_I64(job_sweep_refine_add(sw, 0, 3), -1);
  CHECK_EQ_I64(job_sweep_count(sw), 5);
  CHECK(job_sweep_exp_stage(sw, 2) == 0 && job_sweep_exp_stage(sw, 3) == 1 &&
        job_sweep_exp_stage(sw, 4) == 2);
  CHECK(job_sweep_exp_refines(sw, 2) == -1 && job_sweep_exp_refines(sw, 3) == 2 &&
        job_sweep_exp_refines(sw, 4) == 3);
  CHECK(strcmp(sval(sw, 0, 1), "flow") == 0 && strcmp(sval(sw, 3, 1), "packet") == 0);
  CHECK(ival(sw, 4, 0) == 4 && strcmp(sval(sw, 4, 1), "packet") == 0 &&
        strcmp(sval(sw, 4, 2), "hpcc") == 0 && ival(sw, 4, 3) == 1024);
  CHECK(job_sweep_value(sw, 3, 3) == NULL); /* the base has no mtu */
  json_t *e = job_sweep_experiment(sw, 4), *want = json_loads(
      "{\"network\": {\"model\": \"packet\", \"cc\": \"hpcc\", \"mtu\": 1024},"
      " \"training\": {\"tp\": 4}}", 0, NULL);
  CHECK(json_equal(e, want));
  json_decref(e);
  json_decref(want);
  job_sweep_free(sw);
  /* Every problem of the stages in one pass. */
  int n;
  char *t = problems(
      "{\"base\": {\"network\": {\"cc\": \"x\"}}, \"refine\": [{\"metric\": \"\", \"keep\": 0,"
      " \"set\": {}}, {\"metric\": \"m\", \"keep\": \"101%\", \"order\": \"up\", \"why\": 1,"
      " \"set\": {\"network.cc.x\": 1}}, 7]}",
      &n);
  CHECK_EQ_I64(n, 8);
  const char *want_text =
      "job.json: refine[0].metric: must name a result, such as \"iteration_time_s\"\n"
      "job.json: refine[0].keep: must be how many experiments go on (1 to 10000000) or a "
      "percentage of them (\"5%\")\n"
      "job.json: refine[0].set: must be an object of dotted keys and values, such as "
      "{\"network.model\": \"packet\"}\n"
      "job.json: refine[1].why: unknown key (expected metric, order, keep, set)\n"
      "job.json: refine[1].order: must be \"min\" (the smallest is best, the default) or "
      "\"max\"\n"
      "job.json: refine[1].keep: must be how many experiments go on (1 to 10000000) or a "
      "percentage of them (\"5%\")\n"
      "job.json: refine[1].set.network.cc.x: cannot set network.cc.x: base.network.cc is not "
      "an object\n"
      "job.json: refine[2]: must be an object {\"metric\", \"keep\", \"set\"} (or a list of "
      "them)\n";
  CHECK(t && strcmp(t, want_text) == 0);
  if (t && strcmp(t, want_text)) fprintf(stderr, "got:\n%s", t);
  free(t);
  t = problems("{\"base\": {}, \"refine\": []}", &n);
  CHECK(n == 1 && t && strcmp(t, "job.json: refine: must hold at least one stage\n") == 0);
  free(t);
}

int main(void) {
  wide_int_axes();
  example();
  refine();
  counts();
  samples();
  filters();
  errors();
  return mvtest_end();
}
