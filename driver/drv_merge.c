/* `multiverse merge RUNDIR`: the run folder's shards into its one results file,
 * one row per experiment of its manifest (what `multiverse run` does at the
 * end of a run). */
#define _POSIX_C_SOURCE 200809L
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "driver/drv.h"
#include "driver/drv_jobs.h"

static const char merge_usage[] =
    "usage: multiverse merge RUNDIR [-o OUT.nc] [--partial]\n"
    "  Merges RUNDIR/shards/*.nc into RUNDIR/<the job's output> (or OUT.nc): one row per\n"
    "  experiment of RUNDIR/manifest.jsonl, in the job's order; of several results of one\n"
    "  experiment the best status wins (ok, oom, invalid, failed, timed_out), then the\n"
    "  earliest shard. Exit 1 when experiments have no results yet (--partial writes the\n"
    "  others), 2 on error.\n";

/* "12 ok, 1 failed" */
static void status_counts(const ana_table_t *t, char *buf, size_t len) {
  int64_t n[ANA_STATUS_N] = {0};
  for (int64_t r = 0; r < ana_table_n_rows(t); r++)
    n[ana_table_row(t, r).status]++;
  size_t used = 0;
  buf[0] = '\0';
  for (int s = 0; s < ANA_STATUS_N; s++)
    if (n[s] || s == ANA_OK)
      used += (size_t)snprintf(buf + used, used < len ? len - used : 0, "%s%lld %s",
                               used ? ", " : "", (long long)n[s], ana_status_name(s));
}

/* Appends the files of folder `dir` to the list. */
static void merge_files(const char *dir, char ***list, int *n) {
  DIR *d = opendir(dir);
  for (struct dirent *e; d && (e = readdir(d));) {
    if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0) continue;
    size_t len = strlen(dir) + strlen(e->d_name) + 2;
    char **l = realloc(*list, ((size_t)*n + 2) * sizeof *l);
    if (!l || !(l[*n] = malloc(len))) abort();
    snprintf(l[*n], len, "%s/%s", dir, e->d_name);
    *list = l;
    ++*n;
  }
  if (d) closedir(d);
}

/* -o OUT by the output rule (before any shard is read): no file of the run
 * folder (its manifest, shards, logs, lock, progress) and not the job file
 * the manifest names; the run's own results file may be the output. */
static int merge_check(const char *run_dir, const char *out, const char *results) {
  char name[1024], job[4096], sub[4200];
  char **in = NULL;
  int n = 0;
  merge_files(run_dir, &in, &n);
  snprintf(sub, sizeof sub, "%s/shards", run_dir);
  merge_files(sub, &in, &n);
  snprintf(sub, sizeof sub, "%s/logs", run_dir);
  merge_files(sub, &in, &n);
  if (drv_manifest_header(run_dir, name, sizeof name, job, sizeof job) == 0) {
    char **l = realloc(in, ((size_t)n + 1) * sizeof *l);
    if (!l || !(l[n] = strdup(job))) abort();
    in = l;
    n++;
  }
  for (int i = 0; i < n; i++) /* the results file (by its name in the folder) */
    if (strcmp(in[i], results) == 0) in[i][0] = '\0';
  int rc = drv_out_check("merge", "-o", out, (const char *const *)in, n);
  for (int i = 0; i < n; i++)
    free(in[i]);
  free(in);
  return rc;
}

int drv_merge_dir(const char *run_dir, const char *out, int partial, FILE *msg) {
  const drv_kind_t *kind;
  char output[1024], err[2048], path[4200], counts[256];
  ana_table_t *want = drv_manifest_read(run_dir, &kind, output, sizeof output, err, sizeof err);
  if (!want) return drv_fail(2, "multiverse merge: %s\n", err);
  if (out)
    snprintf(path, sizeof path, "%s", out);
  else
    snprintf(path, sizeof path, "%s/%s", run_dir, output);
  char results[4200];
  snprintf(results, sizeof results, "%s/%s", run_dir, output);
  if (merge_check(run_dir, path, results)) {
    ana_table_free(want);
    return 2;
  }
  char **paths = drv_shard_paths(run_dir);
  int n = 0, rc = 2;
  for (char **p = paths; *p; p++)
    n++;
  ana_table_t **tabs = calloc((size_t)n + 1, sizeof *tabs);
  const char **names = calloc((size_t)n + 1, sizeof *names);
  if (!tabs || !names) abort();
  int m = 0;
  for (int s = 0; s < n; s++) {
    if ((tabs[m] = ana_read(paths[s], err, sizeof err)))
      names[m++] = paths[s];
    else
      fprintf(stderr, "multiverse merge: ignoring a shard that does not read: %s\n", err);
  }
  int64_t missing, first;
  ana_table_t *res = ana_collect(want, tabs, names, m, partial, &missing, &first, err, sizeof err);
  if (!res && missing) {
    fprintf(stderr,
            "multiverse merge: %s: %lld of %lld experiments have no results yet (the first: "
            "index %lld); rerun `multiverse run` to complete them, or merge with --partial\n",
            run_dir, (long long)missing, (long long)ana_table_n_rows(want), (long long)first);
    rc = 1;
  } else if (!res) {
    fprintf(stderr, "multiverse merge: %s\n", err);
  } else {
    status_counts(res, counts, sizeof counts);
    if (drv_out_table(res, path, err, sizeof err)) {
      fprintf(stderr, "multiverse merge: %s\n", err);
    } else {
      rc = missing ? 1 : 0;
      if (msg)
        fprintf(msg, "multiverse: wrote %s: %lld experiments (%s) from %d shard file%s%s\n", path,
                (long long)ana_table_n_rows(res), counts, m, m == 1 ? "" : "s",
                missing ? "; some have no results yet (--partial)" : "");
    }
  }
  for (int s = 0; s < m; s++)
    ana_table_free(tabs[s]);
  free(tabs);
  free(names);
  drv_paths_free(paths);
  ana_table_free(want);
  ana_table_free(res);
  return rc;
}

int drv_merge(int argc, char **argv) {
  const char *dir = NULL, *out = NULL;
  int partial = 0;
  for (int i = 0; i < argc; i++) {
    if (strcmp(argv[i], "-h") == 0 || strcmp(argv[i], "--help") == 0) {
      fputs(merge_usage, stdout);
      return 0;
    }
    if (strcmp(argv[i], "--partial") == 0) {
      partial = 1;
    } else if (strcmp(argv[i], "-o") == 0 && i + 1 < argc) {
      out = argv[++i];
    } else if (argv[i][0] != '-' && !dir) {
      dir = argv[i];
    } else {
      return drv_fail(2, "multiverse merge: unexpected %s\n%s", argv[i], merge_usage);
    }
  }
  if (!dir) return drv_fail(2, "%s", merge_usage);
  return drv_merge_dir(dir, out, partial, stdout);
}
