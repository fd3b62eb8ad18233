/* `multiverse plan JOB.json`: what `multiverse run` would do, without running:
 * every problem of the job in one pass, the experiments that cannot run and
 * why, those with results already, and the batches with their estimated
 * makespan against the lower bound. */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "driver/drv.h"
#include "driver/drv_jobs.h"

static void plan_print(const drv_job_t *j, const drv_plan_t *p, const drv_machine_t *m, int ranks,
                       const char *dir, int list) {
  const shd_plan_t *s = &p->plan;
  char id[17];
  printf("%s: %lld experiments of kind %s, %lld distinct", j->path, (long long)j->count,
         j->kind->name, (long long)j->distinct);
  if (j->count > j->distinct)
    printf(" (%lld repeat an earlier one and share its run)", (long long)(j->count - j->distinct));
  printf("\nrun folder %s: %lld distinct experiments have results already\n", dir,
         (long long)p->skipped);
  if (p->n_rows)
    printf("cannot run (%lld; they become rows with their reason):\n", (long long)p->n_rows);
  for (int64_t k = 0; k < p->n_rows; k++) {
    int64_t i = p->row_index[k];
    drv_id_text(j->id[i], id);
    printf("  experiment %lld (%s): %s: ", (long long)i, id, ana_status_name(p->row_status[k]));
    for (const char *c = p->row_message[k]; *c; c++) /* one problem a line, the later indented */
      if (*c == '\n')
        fputs(c[1] ? "\n      " : "", stdout);
      else
        putchar(*c);
    putchar('\n');
  }
  double hops = 0;
  for (int32_t b = 0; b < s->n_batches; b++)
    for (int32_t k = 0; k < s->batches[b].n; k++)
      hops += p->hops[s->members[s->batches[b].first + k]];
  printf("to run: %lld experiments, %.4g packet-hops (estimate), in %d batches on %d rank%s "
         "(%s, %d thread%s each, %.3g GiB per batch)\n",
         (long long)(p->n_todo - s->n_oom), hops, s->n_batches, ranks, ranks == 1 ? "" : "s",
         drv_backend_name(m->backend), m->threads, m->threads == 1 ? "" : "s",
         (double)m->mem_budget / 1073741824.0);
  printf("estimated makespan %.4g s, lower bound %.4g s (%.4fx); cost = packet-hops / %.3g per s\n",
         p->makespan, p->bound, p->bound > 0 ? p->makespan / p->bound : 1.0, p->hops_per_s);
  for (int st = 1; st <= job_sweep_n_stages(j->sw); st++) { /* known when the stage before ends */
    const job_refine_t *r = job_sweep_stage(j->sw, st);
    char *set = json_dumps(r->set, JSON_COMPACT | JSON_SORT_KEYS);
    if (r->keep_pct > 0)
      printf("then refine stage %d: the best %.4g %% of stage %d's ok experiments by %s (%s is "
             "better), again with %s\n",
             st, r->keep_pct, st - 1, r->metric, r->maximize ? "higher" : "lower", set ? set : "?");
    else
      printf("then refine stage %d: the best %lld of stage %d's ok experiments by %s (%s is "
             "better), again with %s\n",
             st, (long long)r->keep, st - 1, r->metric, r->maximize ? "higher" : "lower",
             set ? set : "?");
    free(set);
  }
  if (!list) return;
  int32_t *rank_of = malloc(((size_t)s->n_batches + 1) * sizeof *rank_of);
  if (!rank_of) abort();
  shd_makespan(s, ranks, rank_of);
  printf("batch  experiments   cost_s  memory_MiB  rank  first\n");
  for (int32_t b = 0; b < s->n_batches; b++)
    printf("%5d  %11d  %7.4g  %10.4g  %4d  %lld\n", b, s->batches[b].n, s->batches[b].cost,
           (double)s->batches[b].mem / 1048576.0, rank_of[b],
           (long long)p->todo[s->members[s->batches[b].first]]);
  free(rank_of);
}

int drv_plan(int argc, char **argv) {
  drv_opts_t o;
  int rc = drv_opts_parse("plan", argc, argv, &o);
  if (rc) return rc < 0 ? 0 : rc;
  drv_job_t j;
  job_sweep_errs_t errs = {0};
  char dir[4096], err[1024];
  if (drv_job_load(o.job, o.presets, &j, &errs)) {
    fputs(errs.text ? errs.text : "", stderr);
    fprintf(stderr, "multiverse plan: %d problem%s\n", errs.n, errs.n == 1 ? "" : "s");
    job_sweep_errs_free(&errs);
    drv_job_free(&j);
    return 2;
  }
  drv_machine_t m;
  drv_plan_t p = {0};
  drv_done_t done = {0};
  rc = drv_machine(&o, 0, 1, &m, err, sizeof err);
  if (rc) {
    drv_fail(2, "multiverse plan: %s\n", err);
  } else {
    drv_run_dir(&o, &j, dir, sizeof dir);
    drv_done_read(dir, &done, stderr);
    if (drv_rundir_check("plan", dir, job_sweep_name(j.sw), job_sweep_output(j.sw), j.path,
                         o.force)) {
      rc = 2;
    } else if (drv_plan_make(&j, &done, &o, &m, o.ranks, &p, err, sizeof err)) {
      rc = drv_fail(2, "multiverse plan: %s\n", err);
    } else {
      plan_print(&j, &p, &m, o.ranks, dir, o.list_batches);
      rc = p.n_rows ? 1 : 0;
    }
  }
  drv_done_free(&done);
  drv_plan_free(&p);
  drv_job_free(&j);
  return rc;
}
