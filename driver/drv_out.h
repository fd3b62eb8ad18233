/* driver: the output rule, one for every file the program writes (results,
 * merged files, shards, manifests, progress, FCT files, traces,
 * calibrations; docs/outputs.md). Before any work, drv_out_check: the path is
 * new or a regular file, never a device, folder, pipe or socket, never a file
 * the same command reads (by device and inode, whatever its name), in a
 * folder where files can be made. Then drv_out_open and drv_out_commit: the
 * file is written whole under a temporary name in its folder and renamed
 * over the path, so the path holds the old file or the whole new one. Output
 * folders (net -o) are drv_outdir_*, run folders drv_rundir_check. */
#ifndef DRV_OUT_H
#define DRV_OUT_H

#include <jansson.h>
#include <stdio.h>

#include "analysis/ana.h"

#define DRV_OUT_PATH_MAX 3000

/* Why `path` may not be written (0: it may; -1 with the reason in `why`):
 * the rule above, against the n `inputs` (paths; those that do not exist are
 * skipped). */
int drv_out_why(const char *path, const char *const *inputs, int n, char *why, size_t len);
/* drv_out_why, the reason printed as "multiverse CMD: WHAT PATH: why" (WHAT:
 * the option or key that named it, e.g. "-o"; NULL: none). 0 or 2. */
int drv_out_check(const char *cmd, const char *what, const char *path, const char *const *inputs,
                  int n);

/* The files a job's experiment reads, as inputs for drv_out_check: each string
 * in `v` (at any depth) that names a regular file, relative to `base_dir`
 * (NULL: the current folder) unless absolute, appended to paths[*n] (at most
 * `max`; malloc'd strings, freed by the caller). */
void drv_out_json_inputs(const json_t *v, const char *base_dir, char **paths, int *n, int max);

/* A file can be made in folder `dir`: one is made and removed. 0, else errno. */
int drv_out_probe(const char *dir);

/* A file being written: `f` writes its temporary copy `tmp` (a hidden name
 * in the path's folder, see drv_out_is_tmp). */
typedef struct drv_out_t {
  char path[DRV_OUT_PATH_MAX + 1];
  char tmp[DRV_OUT_PATH_MAX + 300];
  FILE *f;
} drv_out_t;

/* Creates the temporary copy (never an existing file) and opens it. 0, or -1
 * with "PATH: why" in err. */
int drv_out_open(drv_out_t *o, const char *path, char *err, size_t errlen);
/* Closes the copy (a write error fails it) and renames it over the path; a
 * path that became a folder, device or other non-regular file meanwhile is
 * left alone. 0, or -1 with a message (the copy removed). */
int drv_out_commit(drv_out_t *o, char *err, size_t errlen);
/* Closes and removes the copy. */
void drv_out_abort(drv_out_t *o);
/* 1 if `name` (no folder) is a temporary copy drv_out_open makes: what a
 * crash leaves behind, for the run folder's clean-up. */
int drv_out_is_tmp(const char *name);

/* A results table written to `path` by the rule (ana_write on the copy). 0, or
 * -1 with a message. */
int drv_out_table(const ana_table_t *t, const char *path, char *err, size_t errlen);
/* Text written to `path` by the rule. 0, or -1 with a message. */
int drv_out_text(const char *path, const char *text, char *err, size_t errlen);

/* The run folder `dir` of job `job_name` (`run`, `plan`): one that exists
 * must hold this job's run and nothing a run does not make (manifest.jsonl
 * naming this job, shards/, logs/, out/ (a sink's files by experiment id),
 * progress.json, lock, the results file `output`; the job file may be there
 * too), unless `force`; its results file then passes drv_out_check against
 * the job file. 0, or 2 with a message. */
int drv_rundir_check(const char *cmd, const char *dir, const char *job_name, const char *output,
                     const char *job_path, int force);

#endif
