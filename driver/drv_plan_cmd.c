/* `multiverse plan JOB.json`: what `multiverse run` would do, without running:
 * every problem of the job in one pass, the experiments that cannot run and
 * why, those with results already, and the plan of the others over N ranks
 * like this one: its batches (each on the worker that would take it) and
 * makespan, by the cost model of the costs file. */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/base_units.h"
#include "driver/drv.h"
#include "driver/drv_jobs.h"

/* The run's plan played out by the cost model: each worker, when it is free
 * first (ties: the lower), takes the batch the plan gives it; printed. */
static void plan_batches(const drv_sched_t *s, const drv_plan_t *p) {
  uint8_t *taken = calloc((size_t)s->n_exps + 1, 1);
  int32_t *members = malloc(((size_t)s->n_exps + 1) * sizeof *members);
  double *at = calloc((size_t)s->n_workers + 1, sizeof *at);
  if (!taken || !members || !at) abort();
  printf("batch  worker  experiments     cost_s  memory_MiB  start_s  first\n");
  for (int32_t b = 0;; b++) {
    int32_t me = -1;
    for (int32_t w = 0; w < s->n_workers; w++)
      if (isfinite(at[w]) && (me < 0 || at[w] < at[me])) me = w;
    if (me < 0) break;
    double now = at[me];
    for (int32_t w = 0; w < s->n_workers; w++)
      s->workers[w].free_at = at[w] > now && isfinite(at[w]) ? at[w] - now : 0;
    shd_sched_t v = drv_sched_view(s, taken);
    shd_pick_t pick = {.members = members};
    if (shd_sched(&v, me, &pick, NULL)) abort();
    if (pick.n == 0) { /* nothing for its kind: free when the next other is */
      double next = INFINITY;
      for (int32_t w = 0; w < s->n_workers; w++)
        if (w != me && at[w] > now && at[w] < next) next = at[w];
      at[me] = next;
      b--;
      continue;
    }
    int64_t mem = 0;
    for (int32_t m = 0; m < pick.n; m++) {
      taken[members[m]] = 1;
      mem += s->mem[members[m]];
    }
    printf("%5d  %6d  %11d  %9.4g  %10.4g  %7.4g  %lld\n", b, me, pick.n, pick.cost,
           (double)mem / BASE_BYTES_PER_MIB, now, (long long)p->todo[members[0]]);
    at[me] = now + pick.cost;
  }
  for (int32_t w = 0; w < s->n_workers; w++)
    s->workers[w].free_at = 0;
  free(taken);
  free(members);
  free(at);
}

/* What the cost model reads of each experiment to run: its features (exact,
 * %.17g), memory (bytes) and cost key. */
static void plan_exps(const drv_job_t *j, const drv_plan_t *p) {
  char id[17];
  printf("experiment  id                memory_bytes");
  for (int q = 0; q < SHD_F_N; q++)
    printf("  %s", shd_coef_names[q]);
  printf("  key\n");
  for (int64_t k = 0; k < p->n_todo; k++) {
    drv_id_text(j->id[p->todo[k]], id);
    printf("%10lld  %s  %12lld", (long long)p->todo[k], id, (long long)p->mem[k]);
    for (int q = 0; q < SHD_F_N; q++)
      printf("  %.17g", p->feat[k].x[q]);
    printf("  %s\n", p->keys[p->key[k]]);
  }
}

static void plan_print(const drv_job_t *j, const drv_plan_t *p, const drv_sched_t *s,
                       const drv_machine_t *m, const drv_costs_t *c, int ranks, const char *dir,
                       int list, int list_exps) {
  char id[17], what[256];
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
    for (const char *ch = p->row_message[k]; *ch; ch++) /* one problem a line, the later indented */
      if (*ch == '\n')
        fputs(ch[1] ? "\n      " : "", stdout);
      else
        putchar(*ch);
    putchar('\n');
  }
  int32_t batches = 0;
  double makespan = drv_plan_outlook(s, NULL, &batches);
  drv_machine_text(m, what, sizeof what);
  printf("to run: %lld experiments, %.4g packet-hops (estimate), in %d batches on %d rank%s "
         "(%s each, %.3g GiB per batch)\n",
         (long long)p->n_todo, p->hops, batches, ranks, ranks == 1 ? "" : "s", what,
         (double)m->mem_budget / BASE_BYTES_PER_GIB);
  int32_t measured = 0;
  for (int32_t k = 0; k < s->n_names * s->n_keys; k++)
    measured += s->fit[k].used;
  printf("estimated makespan %.4g s; cost model: %s", makespan, c->presets_path);
  if (measured)
    printf(" refitted to %d measured batches of %s\n", measured, c->path);
  else
    printf(" (%s: no measured batch of these workers)\n", c->path[0] ? c->path : "no costs file");
  for (int32_t k = 0; k < s->n_names * s->n_keys; k++) {
    const double *co = s->coef + (size_t)k * SHD_C_N;
    printf("  %s:", s->models[k].name);
    for (int q = 0; q < SHD_C_CONTENTION; q++)
      printf(" %s %.3g", shd_coef_names[q], co[q]);
    printf(" s, %s %.3g%s\n", shd_coef_names[SHD_C_CONTENTION], co[SHD_C_CONTENTION],
           s->fit[k].used ? "" : " (the presets')");
  }
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
  if (list) plan_batches(s, p);
  if (list_exps) plan_exps(j, p);
}

/* This machine's workers, `ranks` times. */
static drv_slot_desc_t *plan_slots(const drv_machine_t *m, int ranks, int32_t *n) {
  drv_slot_desc_t *w = calloc((size_t)ranks * (size_t)m->n_workers + 1, sizeof *w);
  if (!w) abort();
  *n = 0;
  for (int r = 0; r < ranks; r++)
    for (int i = 0; i < m->n_workers; i++) {
      w[*n] = (drv_slot_desc_t){.rank = r,
                                .backend = m->w[i].backend,
                                .threads = m->w[i].threads,
                                .mem_budget = m->w[i].mem_budget};
      snprintf(w[(*n)++].name, sizeof w->name, "%s", m->w[i].name);
    }
  return w;
}

int drv_plan(int argc, char **argv) {
  drv_opts_t o;
  int rc = drv_opts_parse("plan", argc, argv, &o);
  if (rc) return rc < 0 ? 0 : rc;
  drv_job_t j;
  job_sweep_errs_t errs = {0};
  char dir[4096], err[1024];
  if (drv_job_open(o.job, NULL, &(drv_kind_opts_t){.presets = o.presets, .describe = 1}, &j,
                   &errs)) {
    fputs(errs.text ? errs.text : "", stderr);
    fprintf(stderr, "multiverse plan: %d problem%s\n", errs.n, errs.n == 1 ? "" : "s");
    job_sweep_errs_free(&errs);
    drv_job_free(&j);
    return 2;
  }
  drv_machine_t m;
  drv_plan_t p = {0};
  drv_done_t done = {0};
  drv_costs_t c = {0};
  drv_sched_t s = {0};
  drv_slot_desc_t *slots = NULL;
  rc = drv_machine(&o, 0, 1, &m, err, sizeof err);
  if (rc) {
    drv_fail(2, "multiverse plan: %s\n", err);
  } else if (drv_costs_load(&c, o.costs, stderr, err, sizeof err)) {
    rc = drv_fail(2, "multiverse plan: %s\n", err);
  } else {
    int32_t n = 0;
    int64_t most = 0;
    slots = plan_slots(&m, o.ranks, &n);
    for (int32_t i = 0; i < n; i++)
      most = slots[i].mem_budget > most ? slots[i].mem_budget : most;
    drv_run_dir(&o, &j, dir, sizeof dir);
    drv_done_read(dir, &done, stderr);
    if (drv_rundir_check("plan", dir, job_sweep_name(j.sw), job_sweep_output(j.sw), j.path,
                         o.force)) {
      rc = 2;
    } else if (drv_plan_make(&j, &done, &o, most, &p, err, sizeof err) ||
               drv_sched_init(&s, slots, n, p.keys, p.n_keys, &c, o.max_batch, err, sizeof err)) {
      rc = drv_fail(2, "multiverse plan: %s\n", err);
    } else {
      s.n_exps = (int32_t)p.n_todo;
      s.feat = p.feat, s.mem = p.mem, s.key = p.key; /* lent: not freed with s */
      plan_print(&j, &p, &s, &m, &c, o.ranks, dir, o.list_batches, o.list_exps);
      s.feat = NULL, s.mem = NULL, s.key = NULL;
      rc = p.n_rows ? 1 : 0;
    }
  }
  free(slots);
  drv_sched_free(&s);
  drv_costs_free(&c);
  drv_done_free(&done);
  drv_plan_free(&p);
  drv_job_free(&j);
  return rc;
}
