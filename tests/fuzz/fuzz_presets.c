/* Fuzz target: the presets file (job_presets_load, jobs/presets/network.json's
 * format) from arbitrary bytes, then every CC preset it defines applied with
 * cc=NAME. A rejected file gets one line naming the file; accepted parameters
 * print as canonical text that reads back to identical values. */
#define _DEFAULT_SOURCE /* mkstemps */
#include "fuzz.h"
#include "fuzz_file.h"
#include "fuzz_params.h"

int LLVMFuzzerInitialize(int *argc, char ***argv) {
  (void)argc;
  (void)argv;
  fuzz_file_init("presets", "");
  return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  const char *path = fuzz_file_write(data, size);
  static job_presets_t ps; /* large: not on the stack */
  static eng_params_t q;
  char err[512] = "", kv[64];
  if (job_presets_load(path, &ps, err, sizeof err) != 0) {
    fuzz_check_error(err, path);
    return 0;
  }
  fuzz_params_roundtrip(&ps, &ps.defaults);
  for (int i = 0; i < ps.n_cc; i++) {
    q = ps.defaults;
    snprintf(kv, sizeof kv, "cc=%s", ps.cc[i].name);
    if (job_param_set(&ps, &q, kv, err, sizeof err) == 0)
      fuzz_params_roundtrip(&ps, &q);
    else
      fuzz_check_error(err, "--set ");
  }
  return 0;
}
