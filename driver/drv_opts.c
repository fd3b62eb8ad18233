/* driver: the options of `multiverse run` and `multiverse plan`, and the run
 * folder they name. */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "driver/drv.h"
#include "driver/drv_jobs.h"

static const char run_usage[] =
    "usage: mpirun -np N multiverse run JOB.json [--run-dir DIR] [--force | --only-failed]\n"
    "                 [--backend auto|cpu|cuda] [--workers LIST] [--threads N] [--memory GB]\n"
    "                 [--max-batch N] [--costs FILE|none] [--ranks-per-node N] [--presets FILE]\n"
    "                 [--grace S] [--progress-every S]\n"
    "  (or srun; one rank per GPU). Runs every experiment of the job file in batches that\n"
    "  each rank's workers take as the cost model plans them. DIR (default runs/<job name>)\n"
    "  holds manifest.jsonl, shards/, logs/, progress.json and the results file.\n"
    "  Rerunning skips every experiment that has results; --force recomputes all,\n"
    "  --only-failed only those whose result is `failed`. SIGTERM or SIGUSR1 stops every\n"
    "  rank (after the batch in hand if it ends within --grace S, default 0), exit 0.\n"
    "  --backend: auto (default) runs the GPU and the rank's other cores side by side where\n"
    "  a GPU is, else the cores; cpu or cuda one of them; --workers: the rank's workers\n"
    "  (cuda, cpu, cpu:THREADS, comma-separated); --threads: the CPU worker's threads\n"
    "  (default: the node's cores over its ranks, less one with a GPU; a batch uses one\n"
    "  per experiment, or per 2048 nodes of a lone one, up to them); --memory: GiB one batch may "
    "use (default: the GPU's free memory, or\n"
    "  half the host's over its ranks); --costs: the file of measured batches the cost model\n"
    "  learns from (default $MULTIVERSE_COSTS, else ~/.cache/multiverse/costs.json);\n"
    "  --ranks-per-node: ranks 0..N-1 are one node, N..2N-1 the next (default: MPI's).\n";

static const char plan_usage[] =
    "usage: multiverse plan JOB.json [--ranks N] [--run-dir DIR] [--force | --only-failed]\n"
    "                 [--backend auto|cpu|cuda] [--workers LIST] [--threads N] [--memory GB]\n"
    "                 [--max-batch N] [--costs FILE|none] [--presets FILE] [--batches]\n"
    "                 [--experiments]\n"
    "  Checks the job (every problem, in one pass), identifies its experiments, says which\n"
    "  cannot run and why, which have results in the run folder, and the batches `run`\n"
    "  would make for N ranks like this one (default 1): their estimated makespan;\n"
    "  --experiments: what the cost model reads of each experiment to run (its memory).\n"
    "  Exit 0: every experiment can run; 1: some cannot (they become rows); 2: problems.\n";

int drv_opts_parse(const char *cmd, int argc, char **argv, drv_opts_t *o) {
  int plan = strcmp(cmd, "plan") == 0;
  const char *usage = plan ? plan_usage : run_usage;
  memset(o, 0, sizeof *o);
  o->backend = -1;
  o->ranks = 1;
  o->every_s = 10;
  for (int i = 0; i < argc; i++) {
    const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
    long long x = 0;
    if (strcmp(a, "-h") == 0 || strcmp(a, "--help") == 0) {
      if (!drv_quiet) fputs(usage, stdout);
      return -1;
    }
    if (strcmp(a, "--force") == 0) {
      o->force = 1;
      continue;
    }
    if (strcmp(a, "--only-failed") == 0) {
      o->only_failed = 1;
      continue;
    }
    if (plan && strcmp(a, "--batches") == 0) {
      o->list_batches = 1;
      continue;
    }
    if (plan && strcmp(a, "--experiments") == 0) {
      o->list_exps = 1;
      continue;
    }
    if (a[0] != '-') {
      if (o->job)
        return drv_fail(2, "multiverse %s: one job file, not %s and %s\n", cmd, o->job, a);
      o->job = a;
      continue;
    }
    static const char *const valued[] = {
        "--run-dir", "--presets", "--backend", "--threads", "--max-batch",      "--memory",
        "--ranks",   "--grace",   "--workers", "--costs",   "--ranks-per-node", "--progress-every"};
    int known = 0;
    for (size_t k = 0; k < sizeof valued / sizeof *valued; k++)
      known |= strcmp(a, valued[k]) == 0;
    if (!known) return drv_fail(2, "multiverse %s: unknown option %s (--help)\n", cmd, a);
    if (!v) return drv_fail(2, "multiverse %s: %s needs a value (--help)\n", cmd, a);
    i++;
    if (strcmp(a, "--run-dir") == 0) {
      o->run_dir = v;
    } else if (strcmp(a, "--presets") == 0) {
      o->presets = v;
    } else if (strcmp(a, "--backend") == 0) {
      if (drv_opt_backend(cmd, v, 1, &o->backend)) return 2;
    } else if (strcmp(a, "--threads") == 0 || strcmp(a, "--max-batch") == 0 ||
               (plan && strcmp(a, "--ranks") == 0)) {
      if (drv_opt_int(cmd, a, v, 1, a[2] == 't' ? DRV_MAX_THREADS : 1000000, &x)) return 2;
      *(a[2] == 't' ? &o->threads : a[2] == 'm' ? &o->max_batch : &o->ranks) = (int)x;
    } else if (strcmp(a, "--workers") == 0) {
      int be[DRV_MAX_WORKERS], th[DRV_MAX_WORKERS], n;
      if (drv_workers_parse(v, be, th, &n))
        return drv_fail(2,
                        "multiverse %s: --workers %s: expected cuda, cpu or cpu:THREADS, "
                        "comma-separated, at most %d\n",
                        cmd, v, DRV_MAX_WORKERS);
      o->workers = v;
    } else if (strcmp(a, "--costs") == 0) {
      if (!drv_costs_name_ok(v))
        return drv_fail(2, "multiverse %s: --costs %s: expected none or the path of a .json file\n",
                        cmd, v);
      o->costs = v;
    } else if (!plan && strcmp(a, "--ranks-per-node") == 0) {
      if (drv_opt_int(cmd, a, v, 1, 1000000, &x)) return 2;
      o->ranks_per_node = (int)x;
    } else if (strcmp(a, "--memory") == 0) {
      if (drv_opt_real(cmd, a, v, 1e-3, 1e6, "GiB", &o->memory_gb)) return 2;
    } else if (!plan && strcmp(a, "--grace") == 0) {
      if (drv_opt_real(cmd, a, v, 0, 1e6, "s", &o->grace_s)) return 2;
    } else if (!plan && strcmp(a, "--progress-every") == 0) {
      if (drv_opt_real(cmd, a, v, 0.1, 1e6, "s", &o->every_s)) return 2;
    } else {
      return drv_fail(2, "multiverse %s: unknown option %s (--help)\n", cmd, a);
    }
  }
  if (!o->job) return drv_fail(2, "multiverse %s: which job file? (--help)\n", cmd);
  if (o->force && o->only_failed)
    return drv_fail(2, "multiverse %s: --force and --only-failed exclude each other\n", cmd);
  return 0;
}

void drv_run_dir(const drv_opts_t *o, const drv_job_t *j, char *buf, size_t len) {
  if (o->run_dir) {
    snprintf(buf, len, "%s", o->run_dir);
    return;
  }
  snprintf(buf, len, "runs/%s", job_sweep_name(j->sw));
  for (char *c = buf + 5; *c; c++) /* the name is one folder */
    if (*c == '/' || (c == buf + 5 && *c == '.')) *c = '_';
}
