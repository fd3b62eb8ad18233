/* driver: the environment variables (docs/cli.md, Environment), checked when
 * the program starts, before any command: each value read whole by the
 * options' parser (sim/eng_num.h) in its range, or one of its words; a bad
 * one stops the program (exit 2) with one line naming the variable. The
 * engine reads them again with the same parser (eng_env_int, eng_env_flag). */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "driver/drv.h"
#include "sim/eng_num.h"

typedef struct env_var_t {
  const char *name;
  long long lo, hi;         /* an integer in [lo, hi] ... */
  const char *const *words; /* ... or one of these (NULL-ended) */
  const char *what;         /* what it expects, for the message */
} env_var_t;

static const char *const launch_words[] = {"experiment", "persistent", "systems", NULL};
static const char *const block_words[] = {"128", "256", "512", NULL};
static const char *const lane_words[] = {"1", "2", "4", "8", "16", "32", NULL};
static const char *const cluster_words[] = {"1", "2", "4", "8", NULL};
static const char *const pool_thread_words[] = {"512", "768", "1024", NULL};
static const char *const ring_words[] = {"auto", "compact", "worst", NULL};
static const char *const pool_words[] = {"auto", "compact", "worst", NULL};

static const env_var_t env_vars[] = {
    {"MULTIVERSE_PROGRESS", 0, 1, NULL, "0 or 1"},
    {"MULTIVERSE_VERBOSE", 0, 1, NULL, "0 or 1"},
    {"MULTIVERSE_STATS", 0, 1, NULL, "0 or 1"},
    {"MULTIVERSE_PHASES", 0, 1, NULL, "0 or 1"},
    {"MULTIVERSE_MPI", 0, 1, NULL, "0 or 1"},
    {"MULTIVERSE_PLAN_BUILD", 0, 1, NULL, "0 or 1"},
    {"MULTIVERSE_CUDA_LAUNCH", 0, -1, launch_words, "experiment, persistent or systems"},
    {"MULTIVERSE_CUDA_SPREAD", 0, 1, NULL, "0 or 1"},
    {"MULTIVERSE_CUDA_BLOCKS_PER_SM", 1, 4, NULL, "1, 2, 3 or 4"},
    {"MULTIVERSE_CUDA_BLOCK", 0, -1, block_words, "128, 256 or 512"},
    {"MULTIVERSE_LANES", 0, -1, lane_words, "1, 2, 4, 8, 16 or 32"},
    {"MULTIVERSE_CUDA_SWITCH_WARPS", 0, 1, NULL, "0 or 1"},
    {"MULTIVERSE_CUDA_POOL", 0, 1, NULL, "0 or 1"},
    {"MULTIVERSE_CUDA_SETTLE", 0, 1, NULL, "0 or 1"},
    {"MULTIVERSE_CUDA_POOL_THREADS", 0, -1, pool_thread_words, "512, 768 or 1024"},
    {"MULTIVERSE_CUDA_DEAL", 0, 2, NULL, "0, 1 or 2"},
    {"MULTIVERSE_CUDA_SWITCH_BLOCK", 0, 1, NULL, "0 or 1"},
    {"MULTIVERSE_CUDA_CLUSTER", 0, -1, cluster_words, "1, 2, 4 or 8"},
    {"MULTIVERSE_CUDA_CARVEOUT", 0, 100, NULL, "a percentage, an integer from 0 to 100"},
    {"MULTIVERSE_CUDA_BYTES", 1, 1LL << 62, NULL, "bytes, an integer from 1 to 2^62"},
    {"MULTIVERSE_RINGS", 0, -1, ring_words, "auto, compact or worst"},
    {"MULTIVERSE_POOLS", 0, -1, pool_words, "auto, compact or worst"},
    {"MULTIVERSE_WORLD_ROWS", 1, 1073741823, NULL, "rows, an integer from 1 to 1073741823"},
    {"SOURCE_DATE_EPOCH", 0, 253402300799LL, NULL,
     "seconds since 1970, an integer from 0 to 253402300799 (year 9999)"},
};

/* This process is rank 0 of an MPI launch, or not launched by one: it alone
 * prints (every rank finds the same problem). */
static int env_printer(void) {
  static const char *const vars[] = {"OMPI_COMM_WORLD_RANK", "PMI_RANK", "PMIX_RANK",
                                     "SLURM_PROCID"};
  for (size_t k = 0; k < sizeof vars / sizeof *vars; k++) {
    const char *v = getenv(vars[k]);
    if (v) return strcmp(v, "0") == 0;
  }
  return 1;
}

static int env_bad(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static int env_bad(const char *fmt, ...) {
  if (env_printer() && !drv_quiet) {
    va_list ap;
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
  }
  return 2;
}

int drv_env_check(void) {
  const char *dir = getenv("MULTIVERSE_PRESETS");
  struct stat st;
  char net[4200];
  if (dir) {
    snprintf(net, sizeof net, "%s/network.json", dir);
    const char *why = !*dir                  ? "empty"
                      : stat(dir, &st)       ? strerror(errno)
                      : !S_ISDIR(st.st_mode) ? "not a folder"
                      : stat(net, &st)       ? "it has no network.json"
                                             : NULL;
    if (why)
      return env_bad("multiverse: MULTIVERSE_PRESETS=%s: %s; expected the folder of the preset "
                     "files (network.json, gpus.json, models.json, ...)\n",
                     dir, why);
  }
  const char *costs = getenv("MULTIVERSE_COSTS");
  if (costs && !drv_costs_name_ok(costs))
    return env_bad("multiverse: MULTIVERSE_COSTS=%s: expected none or the path of a .json file\n",
                   costs);
  for (size_t k = 0; k < sizeof env_vars / sizeof *env_vars; k++) {
    const env_var_t *e = &env_vars[k];
    const char *v = getenv(e->name);
    long long x;
    if (!v) continue;
    int ok = 0;
    for (int w = 0; e->words && e->words[w]; w++)
      ok |= strcmp(v, e->words[w]) == 0;
    if (!e->words) ok = eng_num_int(v, e->lo, e->hi, &x) == 0;
    if (!ok) return env_bad("multiverse: %s=%s: expected %s\n", e->name, v, e->what);
  }
  return 0;
}
