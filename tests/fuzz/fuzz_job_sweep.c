/* Fuzz target: job files (job_sweep_parse: base, grid, zip, samples, include,
 * exclude) from arbitrary text. A refused file gets at least one problem, each
 * one line naming the file; an accepted one has at least one experiment, and its
 * first and last can be built; a network experiment among them parses
 * (job_exp_parse over the shipped presets: parameters, ranges) to parameters
 * whose canonical text reads back, or is refused in one line naming it. */
#include "fuzz.h"
#include "fuzz_params.h"
#include "job_sweep.h"

static job_presets_t ps;

int LLVMFuzzerInitialize(int *argc, char ***argv) {
  (void)argc;
  (void)argv;
  fuzz_presets_shipped(&ps);
  return 0;
}

/* A network experiment of the job, as `multiverse run` reads it. */
static void network_exp(json_t *e) {
  if (job_sweep_kind(e) != JOB_SWEEP_NETWORK) return;
  if (!json_object_get(e, "kind")) json_object_set_new(e, "kind", json_string("network"));
  job_exp_t x;
  char err[1024] = "";
  if (job_exp_parse(&ps, e, "fuzz.json: experiments[0]", &x, err, sizeof err) == 0) {
    fuzz_params_roundtrip(&ps, &x.params);
    char *canon = job_exp_canonical(&x);
    FUZZ_ASSERT(canon != NULL, "out of memory");
    free(canon);
  } else {
    fuzz_check_error(err, "fuzz.json");
  }
  job_exp_free(&x);
}

/* Experiments above which an input is skipped: a small file may ask for 10^7
 * legitimately, and they are expanded at once. */
#define FUZZ_MAX_POINTS 4096

/* Product of the list lengths of v (an object of lists, or a list of such
 * objects), at least 1 per list; a non-list counts 1. */
static double points(const json_t *v) {
  double n = 1;
  const char *k;
  json_t *m;
  size_t i;
  if (json_is_array(v)) {
    json_array_foreach(v, i, m) n *= points(m);
  } else if (json_is_object(v)) {
    json_object_foreach((json_t *)v, k, m) {
      if (json_is_array(m) && json_array_size(m) > 1) n *= (double)json_array_size(m);
    }
  }
  return n;
}

/* 1 if the file could expand to more than FUZZ_MAX_POINTS experiments. */
static int too_big(const char *text) {
  json_error_t je;
  json_t *root = json_loads(text, 0, &je), *sweep = json_object_get(root, "sweep");
  const json_t *n = json_object_get(json_object_get(sweep, "samples"), "n");
  double total = points(json_object_get(sweep, "grid")) * points(json_object_get(sweep, "zip")) *
                 (json_is_number(n) ? json_number_value(n) : 1);
  json_decref(root);
  return !(total <= FUZZ_MAX_POINTS);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  char *text = fuzz_cstr(data, size);
  if (strlen(text) != size || too_big(text)) { /* a NUL inside: the API takes C text */
    free(text);
    return 0;
  }
  job_sweep_t *sw = NULL;
  job_sweep_errs_t errs = {0};
  if (job_sweep_parse("fuzz.json", text, &sw, &errs) == 0) {
    FUZZ_ASSERT(sw != NULL && errs.n == 0, "accepted with %d problems", errs.n);
    int64_t n = job_sweep_count(sw);
    FUZZ_ASSERT(n >= 1, "%lld experiments", (long long)n);
    json_t *a = job_sweep_experiment(sw, 0), *b = job_sweep_experiment(sw, n - 1);
    FUZZ_ASSERT(json_is_object(a) && json_is_object(b), "experiments are not objects");
    network_exp(a);
    network_exp(b);
    json_decref(a);
    json_decref(b);
    job_sweep_free(sw);
  } else {
    FUZZ_ASSERT(sw == NULL && errs.n >= 1 && errs.text, "refused with %d problems", errs.n);
    int lines = 0;
    for (char *line = errs.text, *end; *line; line = end + 1, lines++) {
      end = strchr(line, '\n');
      FUZZ_ASSERT(end != NULL, "problems not ending in a newline: %s", errs.text);
      *end = '\0';
      fuzz_check_error(line, "fuzz.json");
    }
    FUZZ_ASSERT(lines == errs.n, "%d problems in %d lines", errs.n, lines);
  }
  job_sweep_errs_free(&errs);
  free(text);
  return 0;
}
