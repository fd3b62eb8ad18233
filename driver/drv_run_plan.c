/* driver: `multiverse run` before the work: rank 0 loads and checks the job,
 * prepares the run folder (lock, --force, leftovers of a crash, manifest),
 * reads the results it holds and the costs file, sizes every experiment and
 * broadcasts all of it; every rank builds the same cost model and opens its
 * kind. */
#define _POSIX_C_SOURCE 200809L
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include "driver/drv.h"
#include "driver/drv_run.h"

/* mkdir -p */
static int mkdirs(const char *path) {
  char buf[4096];
  snprintf(buf, sizeof buf, "%s", path);
  for (char *c = buf + 1; *c; c++)
    if (*c == '/') {
      *c = '\0';
      if (mkdir(buf, 0777) && errno != EEXIST) return -1;
      *c = '/';
    }
  return mkdir(buf, 0777) && errno != EEXIST ? -1 : 0;
}

/* Removes the files of dir that are temporary copies (drv_out_is_tmp; or,
 * with `tail`, whose names end in it). 0, or -1 with the first that stays in
 * err. */
static int remove_files(const char *dir, const char *tail, char *err, size_t errlen) {
  DIR *d = opendir(dir);
  struct dirent *e;
  size_t m = tail ? strlen(tail) : 0;
  char path[8192];
  int rc = 0;
  while (d && (e = readdir(d))) {
    size_t n = strlen(e->d_name);
    int tmp = drv_out_is_tmp(e->d_name) || (n > 4 && strcmp(e->d_name + n - 4, ".tmp") == 0);
    if (!tmp && (!tail || e->d_name[0] == '.' || n < m || strcmp(e->d_name + n - m, tail) != 0))
      continue;
    snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
    if (remove(path) && errno != ENOENT && !rc) {
      snprintf(err, errlen, "%s: %s", path, strerror(errno));
      rc = -1;
    }
  }
  if (d) closedir(d);
  return rc;
}

/* The run folder: created, locked against a second run, cleaned (with
 * --force the old shards, then the results file; one that cannot be removed
 * stops the run before anything is lost). 0 or 2. */
static int run_folder(drv_run_t *r, const char *dir) {
  const char *cmd = r->pipe->cmd;
  char sub[4200], err[8400];
  snprintf(sub, sizeof sub, "%s/shards", dir);
  if (mkdirs(sub))
    return drv_fail(2, "multiverse %s: cannot create %s: %s\n", cmd, sub, strerror(errno));
  snprintf(sub, sizeof sub, "%s/logs", dir);
  if (mkdirs(sub))
    return drv_fail(2, "multiverse %s: cannot create %s: %s\n", cmd, sub, strerror(errno));
  snprintf(sub, sizeof sub, "%s/out", dir);
  if (r->pipe->sink.write && mkdirs(sub))
    return drv_fail(2, "multiverse %s: cannot create %s: %s\n", cmd, sub, strerror(errno));
  snprintf(sub, sizeof sub, "%s/lock", dir);
  r->lock_fd = open(sub, O_RDWR | O_CREAT, 0666);
  if (r->lock_fd < 0 || flock(r->lock_fd, LOCK_EX | LOCK_NB))
    return drv_fail(2, "multiverse %s: %s is in use by another run (%s)\n", cmd, dir,
                    r->lock_fd < 0 ? strerror(errno) : "locked");
  remove_files(dir, NULL, err, sizeof err); /* copies a crash left half written */
  snprintf(sub, sizeof sub, "%s/shards", dir);
  if (remove_files(sub, r->o.force ? ".nc" : NULL, err, sizeof err))
    return drv_fail(2,
                    "multiverse %s: --force: cannot delete the old shard %s; nothing ran (the "
                    "results file is kept)\n",
                    cmd, err);
  snprintf(sub, sizeof sub, "%s/out", dir);
  if (remove_files(sub, r->o.force ? "" : NULL, err, sizeof err))
    return drv_fail(2, "multiverse %s: --force: cannot delete %s; nothing ran\n", cmd, err);
  if (r->o.force) {
    snprintf(sub, sizeof sub, "%s/%s", dir, job_sweep_output(r->job.sw));
    if (remove(sub) && errno != ENOENT)
      return drv_fail(2, "multiverse %s: --force: cannot delete %s: %s; nothing ran\n", cmd,
                      sub, strerror(errno));
  }
  return 0;
}

/* The largest memory any worker's batch may use. */
static int64_t largest_budget(const drv_run_t *r) {
  int64_t most = 0;
  for (int32_t i = 0; i < r->n_slots; i++)
    if (r->slots[i].mem_budget > most) most = r->slots[i].mem_budget;
  return most;
}

/* Rank 0: the job, the folder, the costs, the plan. Returns the code to broadcast. */
static int plan_rank0(drv_run_t *r, char *dir, size_t len) {
  const drv_pipe_t *p = r->pipe;
  job_sweep_errs_t errs = {0};
  char err[2048];
  drv_kind_opts_t ko = {.base_dir = p->job_dir,
                        .presets = r->o.presets,
                        .calibration = r->o.calibration,
                        .describe = 1};
  if (drv_job_open(r->o.job, p->job_text, &ko, &r->job, &errs)) {
    fputs(errs.text ? errs.text : "", stderr);
    fprintf(stderr, "multiverse %s: %d problem%s; nothing ran\n", p->cmd, errs.n,
            errs.n == 1 ? "" : "s");
    job_sweep_errs_free(&errs);
    return 2;
  }
  if (p->results && *p->results) { /* --results FILE.nc: not a file the command reads */
    const char **in = calloc((size_t)p->n_inputs + 1, sizeof *in);
    if (!in) return drv_fail(2, "multiverse %s: out of memory\n", p->cmd);
    in[0] = r->job.path;
    for (int i = 0; i < p->n_inputs; i++)
      in[i + 1] = p->inputs[i];
    int bad = drv_out_check(p->cmd, "--results", p->results, in, p->n_inputs + 1);
    free(in);
    if (bad) return 2;
  }
  drv_run_dir(&r->o, &r->job, dir, len);
  if (drv_rundir_check(p->cmd, dir, job_sweep_name(r->job.sw), job_sweep_output(r->job.sw),
                       r->job.path, r->o.force) ||
      run_folder(r, dir))
    return 2;
  drv_done_t done;
  drv_done_read(dir, &done, stderr);
  r->attempt = drv_next_attempt(dir);
  int rc = 0;
  if (drv_manifest_write(dir, &r->job, err, sizeof err))
    rc = drv_fail(2, "multiverse %s: %s\n", p->cmd, err);
  else if (drv_costs_load(&r->costs, r->o.costs, stderr, err, sizeof err))
    rc = drv_fail(2, "multiverse %s: %s\n", p->cmd, err);
  else if (drv_plan_make(&r->job, &done, &r->o, largest_budget(r), &r->plan, err, sizeof err))
    rc = drv_fail(2, "multiverse %s: %s\n", p->cmd, err);
  drv_done_free(&done);
  return rc;
}

/* Is this model of the costs file one of these workers'? */
static int worker_model(const drv_run_t *r, const char *model) {
  size_t n = strcspn(model, "|");
  for (int32_t i = 0; i < r->n_slots; i++)
    if (strlen(r->slots[i].name) == n && strncmp(r->slots[i].name, model, n) == 0) return 1;
  return 0;
}

static void encode(drv_run_t *r, drv_buf_t *b, int code, const char *dir) {
  const drv_plan_t *p = &r->plan;
  drv_buf_i64(b, code);
  if (code) return;
  drv_buf_i64(b, job_sweep_n_stages(r->job.sw));
  drv_buf_i64(b, r->attempt);
  drv_buf_i64(b, r->job.count);
  drv_buf_i64(b, r->job.distinct);
  drv_buf_i64(b, p->skipped);
  drv_buf_i64(b, p->n_rows);
  drv_buf_i64(b, p->n_rows + p->n_todo);
  drv_buf_str(b, dir);
  drv_buf_str(b, r->job.path);
  drv_buf_str(b, r->job.dir);
  drv_buf_str(b, r->job.kind->name);
  drv_buf_str(b, job_sweep_name(r->job.sw));
  drv_buf_i64(b, p->n_todo);
  for (int64_t t = 0; t < p->n_todo; t++) {
    int64_t i = p->todo[t];
    drv_buf_i64(b, i);
    drv_buf_i64(b, (int64_t)r->job.id[i]);
    drv_buf_str(b, r->job.canon[i]);
    drv_buf_bytes(b, &p->feat[t], sizeof p->feat[t]);
    drv_buf_i64(b, p->mem[t]);
    drv_buf_i64(b, p->key[t]);
  }
  drv_buf_i64(b, p->n_keys);
  for (int32_t k = 0; k < p->n_keys; k++)
    drv_buf_str(b, p->keys[k]);
  /* The cost model's sources: the presets and the costs file's records. */
  char *presets = json_dumps(r->costs.presets, JSON_COMPACT);
  if (!presets) DRV_ABORT("out of memory");
  drv_buf_str(b, presets);
  free(presets);
  drv_buf_i64(b, r->costs.run);
  int32_t n_models = 0;
  for (int32_t m = 0; m < r->costs.n_models; m++)
    n_models += worker_model(r, r->costs.models[m].name);
  drv_buf_i64(b, n_models);
  for (int32_t m = 0; m < r->costs.n_models; m++) {
    const drv_model_t *mo = &r->costs.models[m];
    if (!worker_model(r, mo->name)) continue;
    drv_buf_str(b, mo->name);
    drv_buf_i64(b, mo->n);
    drv_buf_bytes(b, mo->rec, (size_t)mo->n * sizeof *mo->rec);
    drv_buf_bytes(b, mo->run, (size_t)mo->n * sizeof *mo->run);
  }
}

static void *must(void *p) {
  if (!p) DRV_ABORT("out of memory reading the plan");
  return p;
}

/* Every rank: the cost model from rank 0's presets and records and every
 * rank's workers. */
static void decode_costs(drv_run_t *r, drv_buf_t *b, char **keys, int32_t n_keys) {
  char *presets = drv_buf_get_str(b), err[1024];
  json_error_t je;
  drv_costs_t c = {0};
  c.presets = json_loads(presets, 0, &je);
  free(presets);
  if (!c.presets) DRV_ABORT("the presets in the plan do not parse");
  snprintf(c.presets_path, sizeof c.presets_path, "%s",
           r->rank == 0 ? r->costs.presets_path : "batching.json");
  c.run = (int32_t)drv_buf_get_i64(b);
  c.n_models = (int32_t)drv_buf_get_i64(b);
  c.models = must(calloc((size_t)c.n_models + 1, sizeof *c.models));
  for (int32_t m = 0; m < c.n_models; m++) {
    drv_model_t *mo = &c.models[m];
    mo->name = drv_buf_get_str(b);
    mo->n = mo->cap = (int32_t)drv_buf_get_i64(b);
    mo->rec = must(malloc(((size_t)mo->n + 1) * sizeof *mo->rec));
    mo->run = must(malloc(((size_t)mo->n + 1) * sizeof *mo->run));
    drv_buf_get_bytes(b, mo->rec, (size_t)mo->n * sizeof *mo->rec);
    drv_buf_get_bytes(b, mo->run, (size_t)mo->n * sizeof *mo->run);
  }
  if (drv_sched_init(&r->sched, r->slots, r->n_slots, keys, n_keys, &c, r->o.max_batch, err,
                     sizeof err)) {
    if (r->rank == 0) fprintf(stderr, "multiverse %s: %s\n", r->pipe->cmd, err);
    r->code = 2;
  }
  /* A command by hand (net, train, collective on one rank): each kind's
   * share in one batch while memory (and --max-batch) allow, as before the
   * pipeline. */
  for (int32_t k = 0; r->o.one_batch && k < r->sched.n_classes; k++) {
    r->sched.cls[k].target = 1e300;
    r->sched.cls[k].max_batch = r->o.max_batch;
  }
  drv_costs_free(&c);
}

static void decode(drv_run_t *r, drv_buf_t *b) {
  r->code = (int)drv_buf_get_i64(b);
  if (r->code) return;
  r->n_stages = (int)drv_buf_get_i64(b);
  r->attempt = (int)drv_buf_get_i64(b);
  r->total = drv_buf_get_i64(b);
  r->distinct = drv_buf_get_i64(b);
  r->skipped = drv_buf_get_i64(b);
  r->n_rows = drv_buf_get_i64(b);
  r->to_run = drv_buf_get_i64(b);
  r->run_dir = drv_buf_get_str(b);
  r->job_path = drv_buf_get_str(b);
  r->job_dir = drv_buf_get_str(b);
  r->kind_name = drv_buf_get_str(b);
  r->name = drv_buf_get_str(b);
  r->n_todo = drv_buf_get_i64(b);
  size_t n = (size_t)r->n_todo + 1;
  r->index = must(malloc(n * sizeof *r->index));
  r->id = must(malloc(n * sizeof *r->id));
  r->canon = must(calloc(n, sizeof *r->canon));
  shd_feat_t *feat = must(malloc(n * sizeof *feat));
  int64_t *mem = must(malloc(n * sizeof *mem));
  int32_t *key = must(malloc(n * sizeof *key));
  for (int64_t t = 0; t < r->n_todo; t++) {
    r->index[t] = drv_buf_get_i64(b);
    r->id[t] = (uint64_t)drv_buf_get_i64(b);
    r->canon[t] = drv_buf_get_str(b);
    drv_buf_get_bytes(b, &feat[t], sizeof feat[t]);
    mem[t] = drv_buf_get_i64(b);
    key[t] = (int32_t)drv_buf_get_i64(b);
  }
  int32_t n_keys = (int32_t)drv_buf_get_i64(b);
  char **keys = must(calloc((size_t)n_keys + 1, sizeof *keys));
  for (int32_t k = 0; k < n_keys; k++)
    keys[k] = drv_buf_get_str(b);
  for (int64_t t = 0; t < r->n_todo; t++)
    if (key[t] < 0 || key[t] >= n_keys) DRV_ABORT("an experiment's cost key outside the plan");
  decode_costs(r, b, keys, n_keys);
  for (int32_t k = 0; k < n_keys; k++)
    free(keys[k]);
  free(keys);
  r->sched.n_exps = (int32_t)r->n_todo;
  r->sched.feat = feat;
  r->sched.mem = mem;
  r->sched.key = key;
  if (!r->code) r->makespan = drv_plan_outlook(&r->sched, NULL, &r->n_batches);
}

void drv_run_plan(drv_run_t *r) {
  drv_buf_t b = {0};
  char dir[4096], err[1024];
  r->lock_fd = -1;
  if (r->rank == 0) encode(r, &b, plan_rank0(r, dir, sizeof dir), dir);
  drv_buf_bcast(&b);
  decode(r, &b);
  drv_buf_free(&b);
  if (r->code) return;
  r->kind = drv_kind_find(r->kind_name);
  if (!r->kind) DRV_ABORT("the plan names a kind this rank does not know");
  if (r->rank == 0) {
    r->k = r->job.k; /* its caches are warm */
    return;
  }
  r->k = r->kind->open(&(drv_kind_opts_t){.base_dir = r->job_dir,
                                           .presets = r->o.presets,
                                           .calibration = r->o.calibration},
                       err, sizeof err);
  if (!r->k) {
    fprintf(stderr, "multiverse %s: rank %d: %s\n", r->pipe->cmd, r->rank, err);
    DRV_ABORT("a rank cannot open what rank 0 opened (is the job's folder shared?)");
  }
}

/* Forgets the decoded plan (before the next stage's). */
static void forget(drv_run_t *r) {
  for (int64_t t = 0; r->canon && t < r->n_todo; t++)
    free(r->canon[t]);
  free(r->canon);
  free(r->index);
  free(r->id);
  drv_sched_free(&r->sched);
  free(r->run_dir);
  free(r->job_path);
  free(r->job_dir);
  free(r->kind_name);
  free(r->name);
  r->canon = NULL;
  r->index = NULL;
  r->id = NULL;
  r->run_dir = r->job_path = r->job_dir = r->kind_name = r->name = NULL;
  r->n_todo = 0;
}

/* Rank 0: refine stage s: its experiments from the results so far, the
 * manifest with them, and the plan of those without results. */
static int stage_rank0(drv_run_t *r, int s) {
  char err[2048];
  drv_opts_t o = r->o;
  o.force = o.only_failed = 0; /* the stages before ran in this run */
  if (drv_refine_stage(&r->job, r->run_dir, s, stdout, err, sizeof err))
    return drv_fail(2, "multiverse %s: %s\n", r->pipe->cmd, err);
  drv_done_t done;
  drv_done_read(r->run_dir, &done, stderr);
  r->attempt = drv_next_attempt(r->run_dir);
  drv_plan_free(&r->plan);
  drv_costs_free(&r->costs); /* the costs file as the stage before left it */
  int rc = 0;
  if (drv_manifest_write(r->run_dir, &r->job, err, sizeof err) ||
      drv_costs_load(&r->costs, r->o.costs, NULL, err, sizeof err) ||
      drv_plan_make(&r->job, &done, &o, largest_budget(r), &r->plan, err, sizeof err))
    rc = drv_fail(2, "multiverse %s: %s\n", r->pipe->cmd, err);
  drv_done_free(&done);
  return rc;
}

void drv_run_stage(drv_run_t *r, int s) {
  drv_buf_t b = {0};
  if (r->rank == 0) {
    char *dir = strdup(r->run_dir);
    if (!dir) DRV_ABORT("out of memory");
    encode(r, &b, stage_rank0(r, s), dir);
    free(dir);
  }
  drv_buf_bcast(&b);
  forget(r);
  decode(r, &b);
  drv_buf_free(&b);
}

void drv_run_free(drv_run_t *r) {
  forget(r);
  free(r->slots);
  if (r->rank == 0) {
    drv_plan_free(&r->plan);
    drv_costs_free(&r->costs);
    drv_job_free(&r->job); /* closes the kind's state too */
  } else if (r->k) {
    r->kind->close(r->k);
  }
  if (r->lock_fd >= 0) close(r->lock_fd);
}
