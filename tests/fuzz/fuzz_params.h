/* Shared by the parameter targets: what must hold of parameters that were
 * accepted. */
#ifndef FUZZ_PARAMS_H
#define FUZZ_PARAMS_H

#include "fuzz.h"
#include "job.h"

/* The shipped presets (jobs/presets/network.json) into *ps, for Initialize. */
static inline void fuzz_presets_shipped(job_presets_t *ps) {
  char err[512];
  FUZZ_ASSERT(job_presets_load(MV_PRESET_DIR "/network.json", ps, err, sizeof err) == 0, "%s", err);
}

/* If p passes eng_params_check: its canonical text parses back (job_params_apply
 * over the defaults) to identical values, and the ECN lookup answers for every
 * rate. Otherwise the check's message is one line. */
static inline void fuzz_params_roundtrip(const job_presets_t *ps, const eng_params_t *p) {
  static eng_params_t back; /* large: not on the stack */
  char err[512] = "";
  if (eng_params_check(p, err, sizeof err) != 0) {
    fuzz_check_error(err, "");
    return;
  }
  char *canon = job_params_canonical(p);
  FUZZ_ASSERT(canon != NULL, "out of memory");
  json_error_t je;
  json_t *obj = json_loads(canon, 0, &je);
  FUZZ_ASSERT(obj != NULL, "canonical text is not JSON: %s", canon);
  back = ps->defaults;
  FUZZ_ASSERT(job_params_apply(ps, &back, obj, NULL, "canonical", err, sizeof err) == 0,
              "canonical text refused: %s: %s", err, canon);
  FUZZ_ASSERT(job_params_equal(p, &back), "canonical text reads back different: %s", canon);
  json_decref(obj);
  free(canon);
  static const int64_t rates[] = {1000000000LL, 25000000000LL, 100000000000LL, 400000000000LL,
                                  1000000000000000LL};
  for (size_t i = 0; i < sizeof rates / sizeof rates[0]; i++) {
    int64_t kmin, kmax;
    double pmax;
    eng_params_ecn_for(p, rates[i], &kmin, &kmax, &pmax);
  }
}

#endif
