/* multiverse params: every network parameter key with its default, values and
 * meaning, from the rows that declare them (ENG_PARAMS, CC_PARAMS) and the
 * presets file; --markdown prints the generated part of docs/parameters.md. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "driver/drv.h"

static const char params_usage[] =
    "usage: multiverse params [--markdown] [--presets FILE]\n"
    "  every network key (--set KEY=VALUE, a job's network.KEY): its default, the\n"
    "  values it takes and what it does; congestion-control keys after them.\n"
    "  --markdown      the table docs/parameters.md holds (make params-doc)\n"
    "  --presets FILE  the defaults of FILE (default: jobs/presets/network.json)\n";

int drv_params(int argc, char **argv) {
  const char *presets = NULL;
  int markdown = 0;
  for (int i = 0; i < argc; i++) {
    if (strcmp(argv[i], "-h") == 0 || strcmp(argv[i], "--help") == 0) {
      fputs(params_usage, stdout);
      return 0;
    }
    if (strcmp(argv[i], "--markdown") == 0) {
      markdown = 1;
    } else if (strcmp(argv[i], "--presets") == 0 && i + 1 < argc) {
      presets = argv[++i];
    } else {
      return drv_fail(2, "multiverse params: unknown argument %s\n%s", argv[i], params_usage);
    }
  }
  job_presets_t *ps = malloc(sizeof *ps);
  char err[2048], def[4096];
  if (!ps) return drv_fail(2, "multiverse params: out of memory\n");
  if (job_presets_load(drv_presets_file(presets, def, sizeof def), ps, err, sizeof err)) {
    free(ps);
    return drv_fail(2, "multiverse params: %s\n", err);
  }
  char *text = job_params_doc(ps, markdown);
  free(ps);
  if (!text) return drv_fail(2, "multiverse params: out of memory\n");
  fputs(text, stdout);
  free(text);
  return fflush(stdout) ? 2 : 0;
}
