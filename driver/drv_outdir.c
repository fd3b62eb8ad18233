/* Output folders (-o) that cannot mislead: checked before anything runs,
 * an earlier run refused unless --force (which clears only what this program
 * wrote), results staged and moved in when complete, INCOMPLETE while a run
 * writes. Single files: drv_out.c. */
#define _POSIX_C_SOURCE 200809L
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "driver/drv.h"
#include "driver/drv_mpi.h"

/* Names of what a run writes: exact, or PREFIX<digits>SUFFIX. */
static const char *const out_exact[] = {DRV_OUT_MARKER, DRV_OUT_INCOMPLETE, DRV_OUT_STAGE,
                                        "summary.jsonl"};
static const char *const out_numbered[][2] = {{"fct-", ".txt"},
                                              {"fct-", ".partial.txt"},
                                              {"tasks-", ".txt"},
                                              {"tasks-", ".partial.txt"},
                                              {"open-", ".txt"},
                                              {"trace-", ".csv"}};

int drv_out_ours(const char *name) {
  for (size_t i = 0; i < sizeof out_exact / sizeof *out_exact; i++)
    if (strcmp(name, out_exact[i]) == 0) return 1;
  for (size_t i = 0; i < sizeof out_numbered / sizeof *out_numbered; i++) {
    size_t pre = strlen(out_numbered[i][0]), digits = 0;
    if (strncmp(name, out_numbered[i][0], pre) != 0) continue;
    while (name[pre + digits] >= '0' && name[pre + digits] <= '9')
      digits++;
    if (digits && strcmp(name + pre + digits, out_numbered[i][1]) == 0) return 1;
  }
  return 0;
}

/* Scans folder `dir` (and the stage inside it): the first entry a run writes
 * in *ours, the first it does not in *other (empty: none). 0, else errno. */
static int out_scan(const char *dir, char *ours, char *other, size_t len) {
  DIR *d = opendir(dir);
  if (!d) return errno;
  ours[0] = other[0] = '\0';
  for (struct dirent *e; (e = readdir(d));) {
    if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0) continue;
    if (strcmp(e->d_name, DRV_OUT_STAGE) == 0) { /* what an interrupted run left */
      char stage[DRV_OUT_PATH_MAX + 32], o2[256], x2[256];
      snprintf(stage, sizeof stage, "%s/%s", dir, DRV_OUT_STAGE);
      if (out_scan(stage, o2, x2, sizeof x2) == 0 && x2[0] && !other[0])
        snprintf(other, len, "%s/%.200s", DRV_OUT_STAGE, x2);
    }
    char *slot = drv_out_ours(e->d_name) ? ours : other;
    if (!slot[0]) snprintf(slot, len, "%s", e->d_name);
  }
  closedir(d);
  return 0;
}

int drv_outdir_check(drv_outdir_t *o, const char *cmd, const char *dir, int force) {
  memset(o, 0, sizeof *o);
  o->cmd = cmd;
  o->dir = dir;
  o->force = force;
  if (!dir) return 0;
  struct stat st;
  size_t n = strlen(dir);
  if (n == 0 || n > DRV_OUT_PATH_MAX)
    return drv_fail(2, "multiverse %s: -o: expected a folder's path of 1 to %d characters\n", cmd,
                    DRV_OUT_PATH_MAX);
  snprintf(o->stage, sizeof o->stage, "%s/%s", dir, DRV_OUT_STAGE);
  if (stat(dir, &st) == 0) {
    char ours[256], other[256];
    int err;
    if (!S_ISDIR(st.st_mode))
      return drv_fail(2, "multiverse %s: -o %s: not a folder: give a folder for the results\n", cmd,
                      dir);
    if ((err = drv_out_probe(dir)) || (err = out_scan(dir, ours, other, sizeof ours)))
      return drv_fail(2, "multiverse %s: -o %s: cannot write in it: %s\n", cmd, dir, strerror(err));
    o->earlier = ours[0] != '\0';
    /* Under mpirun the folder is rank 0's, which may have begun writing in it
     * already: another rank refusing its stage as "an earlier run" exited 2. */
    if (drv_launcher_rank() > 0) return 0;
    if (o->earlier && !force)
      return drv_fail(2,
                      "multiverse %s: -o %s: holds an earlier run (%s): give --force to replace "
                      "it, or another folder\n",
                      cmd, dir, ours);
    if (o->earlier && other[0])
      return drv_fail(2,
                      "multiverse %s: -o %s: --force clears only what multiverse wrote, and it "
                      "holds %s: move that, or give another folder\n",
                      cmd, dir, other);
    return 0;
  }
  if (errno != ENOENT) return drv_fail(2, "multiverse %s: -o %s: %s\n", cmd, dir, strerror(errno));
  char copy[DRV_OUT_PATH_MAX + 1];
  snprintf(copy, sizeof copy, "%s", dir);
  const char *parent = dirname(copy);
  int err = stat(parent, &st) ? errno : !S_ISDIR(st.st_mode) ? ENOTDIR : drv_out_probe(parent);
  if (err)
    return drv_fail(2, "multiverse %s: -o %s: cannot create it in %s: %s\n", cmd, dir, parent,
                    strerror(err));
  return 0;
}

/* Removes what a run wrote in `dir` (the stage's content too). */
static int out_clear(const char *dir) {
  DIR *d = opendir(dir);
  if (!d) return -1;
  int rc = 0;
  char path[DRV_OUT_PATH_MAX + 300];
  for (struct dirent *e; (e = readdir(d));) {
    if (!drv_out_ours(e->d_name)) continue;
    snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
    if (strcmp(e->d_name, DRV_OUT_STAGE) == 0)
      rc |= out_clear(path) || rmdir(path);
    else
      rc |= unlink(path);
  }
  closedir(d);
  return rc;
}

int drv_outdir_prepare(drv_outdir_t *o) {
  if (!o->dir) return 0;
  if (o->earlier && out_clear(o->dir))
    return drv_fail(2, "multiverse %s: -o %s: cannot clear the earlier run: %s\n", o->cmd, o->dir,
                    strerror(errno));
  if (mkdir(o->dir, 0777) == 0)
    o->created = 1;
  else if (errno != EEXIST)
    return drv_fail(2, "multiverse %s: cannot create %s: %s\n", o->cmd, o->dir, strerror(errno));
  if (mkdir(o->stage, 0777) && errno != EEXIST)
    return drv_fail(2, "multiverse %s: cannot create %s: %s\n", o->cmd, o->stage, strerror(errno));
  return 0;
}
