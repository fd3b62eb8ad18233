/* driver: whose a run folder is (the output rule for `run --run-dir`, also
 * checked by `plan`): a folder holding another job's run, a manifest that
 * does not read, or anything a run does not make is refused unless --force;
 * its results file follows drv_out_check. */
#define _POSIX_C_SOURCE 200809L
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "driver/drv.h"
#include "driver/drv_jobs.h"

static int rd_digit(char c, int hex) {
  return (c >= '0' && c <= '9') || (hex && c >= 'a' && c <= 'f');
}

/* `name` matches `pat`, where '#' stands for one or more digits ("a#-r#.log"),
 * '%' for one or more lowercase hexadecimal digits and '*' for the rest. */
static int rd_match(const char *name, const char *pat) {
  for (; *pat; pat++) {
    if (*pat == '*') return *name != '\0';
    if (*pat != '#' && *pat != '%') {
      if (*name++ != *pat) return 0;
      continue;
    }
    if (!rd_digit(*name, *pat == '%')) return 0;
    while (rd_digit(*name, *pat == '%'))
      name++;
  }
  return *name == '\0';
}

/* 1 if every entry of folder `dir` matches `pat` (or is a temporary copy, or
 * a shard a crash left as NAME.tmp), else 0 with the first other in `other`. */
static int rd_only(const char *dir, const char *pat, char *other, size_t len) {
  DIR *d = opendir(dir);
  if (!d) return 1; /* none yet; one that is not a folder fails when it is made */
  int ok = 1;
  for (struct dirent *e; ok && (e = readdir(d));) {
    const char *n = e->d_name;
    size_t l = strlen(n);
    if (strcmp(n, ".") == 0 || strcmp(n, "..") == 0 || drv_out_is_tmp(n) || rd_match(n, pat) ||
        (l > 4 && strcmp(n + l - 4, ".tmp") == 0))
      continue;
    snprintf(other, len, "%s/%.200s", dir, n);
    ok = 0;
  }
  closedir(d);
  return ok;
}

/* Why the folder is not this job's run, or "" when it is (the job file may
 * be in it). */
static void rd_whose(const char *dir, const char *job_name, const char *output,
                     const char *job_path, char *why, size_t len) {
  char path[DRV_OUT_PATH_MAX + 300], other[DRV_OUT_PATH_MAX + 300], name[1024], job[4096];
  int has_manifest = 0, has_output = 0;
  struct stat js, st;
  int job_ok = stat(job_path, &js) == 0;
  why[0] = '\0';
  DIR *d = opendir(dir);
  if (!d) {
    snprintf(why, len, "cannot read it: %s", strerror(errno));
    return;
  }
  for (struct dirent *e; !why[0] && (e = readdir(d));) {
    static const char *const ours[] = {
        "shards", "logs", "out", "progress.json", "progress.json.tmp", "lock", "manifest.jsonl.tmp"};
    const char *n = e->d_name;
    int known = strcmp(n, ".") == 0 || strcmp(n, "..") == 0 || drv_out_is_tmp(n);
    for (size_t k = 0; k < sizeof ours / sizeof *ours; k++)
      known |= strcmp(n, ours[k]) == 0;
    if (strcmp(n, "manifest.jsonl") == 0) known = has_manifest = 1;
    if (strcmp(n, output) == 0) known = has_output = 1;
    snprintf(path, sizeof path, "%s/%s", dir, n);
    if (!known && job_ok && stat(path, &st) == 0 && st.st_dev == js.st_dev &&
        st.st_ino == js.st_ino)
      known = 1;
    if (!known) snprintf(why, len, "holds %.200s, which a run does not write", n);
  }
  closedir(d);
  if (why[0]) return;
  snprintf(path, sizeof path, "%s/shards", dir);
  if (!rd_only(path, "a#-r#-p#.nc", other, sizeof other)) {
    snprintf(why, len, "holds %.2000s, which a run does not write", other);
    return;
  }
  snprintf(path, sizeof path, "%s/logs", dir);
  if (!rd_only(path, "a#-r#.log", other, sizeof other)) {
    snprintf(why, len, "holds %.2000s, which a run does not write", other);
    return;
  }
  snprintf(path, sizeof path, "%s/out", dir); /* the sinks' files, by experiment id */
  if (!rd_only(path, "%.*", other, sizeof other)) {
    snprintf(why, len, "holds %.2000s, which a run does not write", other);
    return;
  }
  if (has_manifest && drv_manifest_header(dir, name, sizeof name, job, sizeof job))
    snprintf(why, len, "its manifest.jsonl is not a run's manifest");
  else if (has_manifest && strcmp(name, job_name) != 0)
    snprintf(why, len, "holds the run of another job (\"%.200s\"; this one is \"%.200s\")", name,
             job_name);
  else if (has_output && !has_manifest)
    snprintf(why, len, "holds %.200s but no manifest.jsonl: not a run folder", output);
}

int drv_rundir_check(const char *cmd, const char *dir, const char *job_name, const char *output,
                     const char *job_path, int force) {
  struct stat st;
  char why[2400], path[DRV_OUT_PATH_MAX + 300];
  if (!*dir || strlen(dir) > DRV_OUT_PATH_MAX)
    return drv_fail(2, "multiverse %s: --run-dir: expected a folder's path of 1 to %d characters\n",
                    cmd, DRV_OUT_PATH_MAX);
  if (stat(dir, &st) != 0) return 0; /* made with its parents (errors then name it) */
  if (!S_ISDIR(st.st_mode))
    return drv_fail(2, "multiverse %s: run folder %s: not a folder\n", cmd, dir);
  rd_whose(dir, job_name, output, job_path, why, sizeof why);
  if (why[0] && !force)
    return drv_fail(2,
                    "multiverse %s: run folder %s: %s; give another --run-dir, or --force to "
                    "run there anyway\n",
                    cmd, dir, why);
  snprintf(path, sizeof path, "%s/%s", dir, output);
  const char *inputs[] = {job_path};
  return drv_out_check(cmd, "results file", path, inputs, 1);
}
