/* `multiverse report RESULTS.nc`: the best configurations of a results file and
 * each swept parameter's effect, as terminal tables (analysis/ana_report). */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "driver/drv.h"
#include "driver/drv_jobs.h"

static const char report_usage[] =
    "usage: multiverse report RESULTS.nc|RUNDIR [--by KEY] [--top N] [--metric NAME]\n"
    "                         [--higher-is-better]\n"
    "  The N best ok experiments (default 10) by METRIC (default: the first real-valued\n"
    "  result, e.g. max_fct; lower is better), then per value of each swept key (or KEY):\n"
    "  ok experiments, best and median metric, experiments not ok. RUNDIR: its results file.\n";

int drv_report(int argc, char **argv) {
  const char *path = NULL, *top = NULL;
  ana_report_desc_t d = {0};
  for (int i = 0; i < argc; i++) {
    const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
    if (strcmp(a, "-h") == 0 || strcmp(a, "--help") == 0) {
      fputs(report_usage, stdout);
      return 0;
    }
    if (strcmp(a, "--higher-is-better") == 0) {
      d.higher_is_better = 1;
    } else if (a[0] != '-' && !path) {
      path = a;
    } else if (!v) {
      return drv_fail(2, "multiverse report: %s needs a value\n%s", a, report_usage);
    } else if (strcmp(a, "--by") == 0 || strcmp(a, "--metric") == 0 || strcmp(a, "--top") == 0) {
      const char **slot = a[2] == 'b' ? &d.by : a[2] == 'm' ? &d.metric : &top;
      if (*slot) return drv_fail(2, "multiverse report: %s is given twice: give it once\n", a);
      *slot = argv[++i];
    } else {
      return drv_fail(2, "multiverse report: unknown option %s\n%s", a, report_usage);
    }
  }
  if (!path) return drv_fail(2, "%s", report_usage);
  long long n;
  if (top && drv_opt_int("report", "--top", top, 1, INT_MAX, &n)) return 2;
  d.top = top ? (int)n : 0;
  char file[4200], output[1024], err[2048];
  struct stat st;
  snprintf(file, sizeof file, "%s", path);
  if (stat(path, &st) == 0 && S_ISDIR(st.st_mode)) {
    const drv_kind_t *kind;
    ana_table_t *m = drv_manifest_read(path, &kind, output, sizeof output, err, sizeof err);
    if (!m) return drv_fail(2, "multiverse report: %s\n", err);
    ana_table_free(m);
    snprintf(file, sizeof file, "%s/%s", path, output);
    if (stat(file, &st) != 0)
      return drv_fail(2,
                      "multiverse report: %s: no %s yet (a run that stopped?): rerun `multiverse "
                      "run` to complete it, or `multiverse merge %s --partial`\n",
                      path, output, path);
  }
  ana_table_t *t = ana_read(file, err, sizeof err);
  if (!t) return drv_fail(2, "multiverse report: %s\n", err);
  int rc = ana_report(stdout, file, t, &d, err, sizeof err);
  ana_table_free(t);
  return rc ? drv_fail(2, "multiverse report: %s\n", err) : 0;
}
