/* Fuzz target: `--set KEY=VALUE` (job_param_set) over the shipped presets, one
 * KEY=VALUE per input line. A refused value gets one line starting with
 * "--set "; accepted parameters print as canonical text that reads back to
 * identical values. */
#include "fuzz.h"
#include "fuzz_params.h"

static job_presets_t ps;

int LLVMFuzzerInitialize(int *argc, char ***argv) {
  (void)argc;
  (void)argv;
  fuzz_presets_shipped(&ps);
  return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  static eng_params_t p; /* large: not on the stack */
  char err[512] = "";
  char *text = fuzz_cstr(data, size);
  p = ps.defaults;
  for (char *line = text, *next; line; line = next) {
    next = strchr(line, '\n');
    if (next) *next++ = '\0';
    if (job_param_set(&ps, &p, line, err, sizeof err) != 0) fuzz_check_error(err, "--set ");
  }
  fuzz_params_roundtrip(&ps, &p);
  free(text);
  return 0;
}
