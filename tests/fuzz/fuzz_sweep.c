/* Fuzz target: `--set` and `--sweep` lists of the driver's commands
 * (drv_sweep, driver/drv_sweep.c) over the shipped presets, one option per
 * input line: "--set KEY=VALUE" or "--sweep KEY=V1,V2,...". A refused list
 * gets one line "multiverse fuzz: ..."; an accepted one gives the product of
 * the list lengths as parameter sets, each labelled with every swept key,
 * and the first and last read back from their canonical text. */
#include <stdarg.h>

#include "driver/drv.h"
#include "fuzz.h"
#include "fuzz_params.h"

/* Combinations above which an input is skipped: each is a parameter set. */
#define FUZZ_MAX_COMBOS 4096

static job_presets_t ps;
static int failures; /* drv_fail calls of this input */

/* The driver's error printer, here checking the message instead. */
int drv_fail(int rc, const char *fmt, ...) {
  char msg[8192];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(msg, sizeof msg, fmt, ap);
  va_end(ap);
  size_t n = strlen(msg);
  FUZZ_ASSERT(n > 0 && msg[n - 1] == '\n', "message without its newline: %s", msg);
  msg[n - 1] = '\0';
  fuzz_check_error(msg, "multiverse fuzz: ");
  failures++;
  return rc;
}

int LLVMFuzzerInitialize(int *argc, char ***argv) {
  (void)argc;
  (void)argv;
  fuzz_presets_shipped(&ps);
  return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  char *text = fuzz_cstr(data, size);
  const char *sets[DRV_MAX_SETS], *sweeps[DRV_MAX_SWEEPS];
  int n_sets = 0, n_sweeps = 0;
  double combos = 1;
  for (char *line = text, *next; line; line = next) {
    next = strchr(line, '\n');
    if (next) *next++ = '\0';
    if (strncmp(line, "--set ", 6) == 0 && n_sets < DRV_MAX_SETS) {
      sets[n_sets++] = line + 6;
    } else if (strncmp(line, "--sweep ", 8) == 0 && n_sweeps < DRV_MAX_SWEEPS) {
      sweeps[n_sweeps++] = line + 8;
      double values = 1;
      for (const char *c = line + 8; *c; c++)
        values += *c == ',';
      combos *= values;
    }
  }
  if (combos > FUZZ_MAX_COMBOS) {
    free(text);
    return 0;
  }
  int n = -1;
  eng_params_t *out = NULL;
  char **labels = NULL;
  failures = 0;
  int rc = drv_sweep("fuzz", sets, n_sets, sweeps, n_sweeps, &ps, &n, &out, &labels);
  FUZZ_ASSERT(rc == 0 || rc == 2, "returned %d", rc);
  FUZZ_ASSERT((rc == 2) == (failures == 1), "returned %d after %d messages", rc, failures);
  if (rc == 0) {
    FUZZ_ASSERT(n == (int)combos, "%d parameter sets of %g combinations", n, combos);
    for (int c = 0; c < n; c++) {
      json_t *sw = drv_sweep_json(labels[c]);
      FUZZ_ASSERT(sw && (int)json_object_size(sw) == n_sweeps, "label '%s' of %d sweeps", labels[c],
                  n_sweeps);
      json_decref(sw);
    }
    fuzz_params_roundtrip(&ps, &out[0]);
    fuzz_params_roundtrip(&ps, &out[n - 1]);
  }
  for (int c = 0; labels && c < n; c++)
    free(labels[c]);
  free(labels);
  free(out);
  free(text);
  return 0;
}
