/* Fuzz target: the presets file (job_presets_load, jobs/presets/network.json's
 * format) from arbitrary bytes, then every CC preset it defines applied with
 * cc=NAME. A rejected file gets one line naming the file; accepted parameters
 * print as canonical text that reads back to identical values. */
#define _POSIX_C_SOURCE 200809L /* mkstemp */
#include <unistd.h>

#include "fuzz.h"
#include "fuzz_params.h"

static char path[64]; /* the file job_presets_load reads */

static void remove_file(void) {
  unlink(path);
}

int LLVMFuzzerInitialize(int *argc, char ***argv) {
  (void)argc;
  (void)argv;
  snprintf(path, sizeof path, "/dev/shm/mv-fuzz-presets-XXXXXX"); /* memory: fast */
  int fd = mkstemp(path);
  if (fd < 0) {
    snprintf(path, sizeof path, "/tmp/mv-fuzz-presets-XXXXXX");
    fd = mkstemp(path);
  }
  FUZZ_ASSERT(fd >= 0, "cannot create %s", path);
  close(fd);
  atexit(remove_file);
  return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  FILE *fp = fopen(path, "wb");
  FUZZ_ASSERT(fp && fwrite(data, 1, size, fp) == size && fclose(fp) == 0, "cannot write %s", path);
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
