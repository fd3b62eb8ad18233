/* Fuzz target: `--set` and `--sweep` lists of the driver's commands
 * (drv_sweep, driver/drv_sweep.c) over the shipped presets, one option per
 * input line: "--set KEY=VALUE" or "--sweep KEY=V1,V2,...". A refused list
 * gets one line "multiverse fuzz: ..."; an accepted one gives a job grid of
 * one axis per --sweep (the product of the list lengths as combinations),
 * whose first and last combinations, with the --sets, are accepted as a job's
 * network object (with one --sweep; with more, values of two axes may refuse
 * each other, the message naming a key of the grid) and read back from their
 * canonical text, each labelled with every swept key. */
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
  long n = -1;
  json_t *grid = json_object();
  failures = 0;
  int rc = drv_sweep("fuzz", sets, n_sets, sweeps, n_sweeps, &ps, grid, &n);
  FUZZ_ASSERT(rc == 0 || rc == 2, "returned %d", rc);
  FUZZ_ASSERT((rc == 2) == (failures == 1), "returned %d after %d messages", rc, failures);
  if (rc == 0) {
    FUZZ_ASSERT(n == (long)combos, "%ld combinations of %g", n, combos);
    FUZZ_ASSERT((int)json_object_size(grid) == n_sweeps, "%d axes of %d sweeps",
                (int)json_object_size(grid), n_sweeps);
    /* The first and the last combination, as the job's experiment: the --sets,
     * then every axis's value, read back as the grid writes them. */
    for (long c = 0; c < n; c = c ? n : (n > 1 ? n - 1 : n)) {
      char *label = drv_sweep_label(sweeps, n_sweeps, c);
      json_t *sw = label ? drv_sweep_json(label) : NULL;
      FUZZ_ASSERT(sw && (int)json_object_size(sw) == n_sweeps, "label '%s' of %d sweeps",
                  label ? label : "(null)", n_sweeps);
      static eng_params_t p;
      char err[1024];
      p = ps.defaults;
      json_t *net = json_object();
      if (job_params_set_list(&ps, &p, sets, n_sets, NULL, err, sizeof err) == 0 &&
          drv_sets_json(sets, n_sets, &p, net) == 0) {
        long stride = n;
        const char *key;
        json_t *list;
        json_object_foreach(grid, key, list) {
          stride /= (long)json_array_size(list);
          json_object_set(net, key + 8, json_array_get(list, (size_t)((c / stride) %
                                                                     (long)json_array_size(list))));
        }
        p = ps.defaults;
        /* Each swept value was checked with the --sets alone: values of two
         * axes can still refuse each other (a parameter of one cc, swept
         * beside cc), which the job's check reports; then the message names
         * the grid's key. */
        int refused = job_params_apply(&ps, &p, net, NULL, "grid", err, sizeof err) != 0;
        FUZZ_ASSERT(!refused || (n_sweeps > 1 && strncmp(err, "grid.", 5) == 0),
                    "combination %ld refused: %s", c, err);
        if (!refused) fuzz_params_roundtrip(&ps, &p);
      }
      json_decref(net);
      json_decref(sw);
      free(label);
    }
  }
  json_decref(grid);
  free(text);
  return 0;
}
