/* Fuzz target: the costs file of `multiverse run` (driver/drv_cost.c) from
 * arbitrary bytes. A file that does not read gets one line naming it and
 * nothing loaded; every model of one that does is fitted from the shipped
 * coefficients (shd_fit), each coefficient finite and > 0. */
#define _DEFAULT_SOURCE /* mkstemps, open_memstream */
#include <math.h>

#include "driver/drv_jobs.h"
#include "fuzz.h"
#include "fuzz_file.h"

int LLVMFuzzerInitialize(int *argc, char ***argv) {
  (void)argc;
  (void)argv;
  fuzz_file_init("costs", ".json");
  return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  const char *path = fuzz_file_write(data, size);
  char *text = NULL, err[1024] = "", prefix[200];
  size_t len = 0;
  FILE *warn = open_memstream(&text, &len);
  FUZZ_ASSERT(warn != NULL, "open_memstream");
  drv_costs_t c;
  int rc = drv_costs_load(&c, path, warn, err, sizeof err);
  fclose(warn);
  FUZZ_ASSERT(rc == 0, "the shipped presets do not load: %s", err);
  snprintf(prefix, sizeof prefix, "multiverse: %s", path);
  if (len) {
    FUZZ_ASSERT(!c.readable && c.n_models == 0, "a file named as unreadable was loaded");
    FUZZ_ASSERT(text[len - 1] == '\n' && strchr(text, '\n') == text + len - 1,
                "not one line: %s", text);
    FUZZ_ASSERT(strncmp(text, prefix, strlen(prefix)) == 0, "does not name the file: %s", text);
  }
  for (int32_t m = 0; m < c.n_models; m++) {
    double prior[SHD_C_N], coef[SHD_C_N];
    int32_t slots, most;
    FUZZ_ASSERT(drv_costs_prior(&c, "cpu", "network/packet", prior, &slots, &most, err,
                                sizeof err) == 0,
                "%s", err);
    shd_fit_t fi;
    FUZZ_ASSERT(drv_model_fit(&c.models[m], c.run, prior, coef, &fi) == 0, "fit failed");
    for (int k = 0; k < SHD_C_N; k++)
      FUZZ_ASSERT(isfinite(coef[k]) && coef[k] > 0, "%s: coefficient %d is %g", c.models[m].name,
                  k, coef[k]);
  }
  drv_costs_free(&c);
  free(text);
  return 0;
}
