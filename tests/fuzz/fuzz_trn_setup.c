/* Fuzz target: the training set-up of a job file (trn_setup_parse: model,
 * training and cluster objects over the shipped presets) from arbitrary JSON
 * text {"model": ..., "training": ..., "cluster": ...}. It returns the number
 * of problems it found, each one line naming the object's JSON path; a set-up
 * without problems gives its costs and memory (checked arithmetic: the
 * sanitizers catch an overflow) with finite, non-negative values. */
#include <math.h>

#include "fuzz.h"
#include "train/trn.h"

static trn_presets_t presets;

int LLVMFuzzerInitialize(int *argc, char ***argv) {
  (void)argc;
  (void)argv;
  char err[1024];
  FUZZ_ASSERT(trn_presets_load(&presets, MV_PRESET_DIR, err, sizeof err) == 0, "%s", err);
  return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  char *text = fuzz_cstr(data, size);
  json_error_t je;
  json_t *root = strlen(text) == size ? json_loads(text, 0, &je) : NULL;
  free(text);
  if (!json_is_object(root)) {
    json_decref(root);
    return 0;
  }
  static trn_setup_t s; /* large: not on the stack */
  static trn_problems_t pr;
  memset(&s, 0, sizeof s);
  memset(&pr, 0, sizeof pr);
  int n = trn_setup_parse(json_object_get(root, "model"), json_object_get(root, "training"),
                          json_object_get(root, "cluster"), &presets, "fuzz.json: base", &s, &pr);
  FUZZ_ASSERT(n == pr.n, "returned %d, %d problems", n, pr.n);
  for (int i = 0; i < pr.n && i < TRN_PROBLEMS_MAX; i++)
    fuzz_check_error(pr.msg[i], "fuzz.json: base");
  if (n == 0) {
    static trn_costs_t c;
    trn_memory_t m;
    trn_costs(&s, &c);
    trn_memory(&s, &m);
    FUZZ_ASSERT(s.plan.micro_batches >= 1 && s.cluster.gpus >= 1, "derived sizes");
    FUZZ_ASSERT(isfinite(c.iteration_flops) && c.iteration_flops >= 0, "flops %g",
                c.iteration_flops);
    FUZZ_ASSERT(c.layer_fwd_ps >= 0 && c.layer_bwd_ps >= 0, "layer times");
    FUZZ_ASSERT(isfinite(m.total) && m.total >= 0, "memory %g", m.total);
  }
  json_decref(root);
  return 0;
}
