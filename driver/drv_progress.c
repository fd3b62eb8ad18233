/* driver: progress of a run on rank 0: done/total (experiments that ended in
 * batches still running included), experiments per second, the ETA of the
 * cost model's plan and failures on stderr (rewritten in place on a
 * terminal, plain lines otherwise), and RUNDIR/progress.json rewritten
 * atomically. */
#define _POSIX_C_SOURCE 200809L
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <jansson.h>

#include "driver/drv_run.h"

void drv_progress_begin(drv_progress_t *p) {
  snprintf(p->json, sizeof p->json, "%s/progress.json", p->run_dir);
  p->tty = isatty(STDERR_FILENO);
  p->t0 = omp_get_wtime();
  p->last_line = p->last_json = -1e9;
  p->line_open = 0;
}

/* "1 h 02 min", "3 min 05 s", "42 s" */
static void span(double s, char *buf, size_t len) {
  long t = (long)(s + 0.5);
  if (t >= 3600)
    snprintf(buf, len, "%ld h %02ld min", t / 3600, t / 60 % 60);
  else if (t >= 60)
    snprintf(buf, len, "%ld min %02ld s", t / 60, t % 60);
  else
    snprintf(buf, len, "%ld s", t);
}

static void write_json(const drv_progress_t *p, const char *state, double elapsed, double rate,
                       double eta) {
  char err[4300], now[64];
  ana_now(now, sizeof now);
  json_t *o =
      json_pack("{s:s,s:s,s:I,s:I,s:I,s:I,s:I,s:I,s:I,s:i,s:i,s:f,s:f,s:f,s:s}", "state", state,
                "job", p->job, "total", (json_int_t)p->total, "distinct", (json_int_t)p->distinct,
                "skipped", (json_int_t)p->skipped, "to_run", (json_int_t)p->to_run, "done",
                (json_int_t)p->done, "running", (json_int_t)p->running, "not_ok",
                (json_int_t)p->not_ok, "ranks", p->ranks, "workers", p->workers, "elapsed_s",
                elapsed, "experiments_per_s", rate, "eta_s", eta, "updated", now);
  char *text = o ? json_dumps(o, JSON_PRESERVE_ORDER) : NULL;
  json_decref(o);
  char *line = text ? malloc(strlen(text) + 2) : NULL;
  if (line) {
    sprintf(line, "%s\n", text);
    drv_out_text(p->json, line, err, sizeof err); /* a later one may succeed */
  }
  free(line);
  free(text);
}

void drv_progress_show(drv_progress_t *p, int64_t done, int64_t running, int64_t not_ok,
                       const char *state, int final) {
  double now = omp_get_wtime(), elapsed = now - p->t0;
  if (done > p->to_run) done = p->to_run;
  p->done = done;
  p->running = running < done ? running : done;
  p->not_ok = not_ok;
  double rate = elapsed > 0 ? (double)done / elapsed : 0;
  double eta = p->eta_model >= 0 ? p->eta_model : rate > 0 ? (double)(p->to_run - done) / rate : -1;
  if (final) eta = 0;
  if (final || now - p->last_json >= 1.0) {
    write_json(p, state, elapsed, rate, eta);
    p->last_json = now;
  }
  /* A line a little before every_s has passed, so that the gaps between
   * lines (the caller looks every 0.2 s) stay within it. */
  double early = p->every_s / 4 < 0.3 ? p->every_s / 4 : 0.3;
  if (p->quiet || (!final && now - p->last_line < (p->tty ? 0.5 : p->every_s - early))) return;
  p->last_line = now;
  char e[64] = "?", t[64], in[64] = "";
  if (eta >= 0) span(eta, e, sizeof e);
  span(elapsed, t, sizeof t);
  if (p->running > 0 && !final)
    snprintf(in, sizeof in, " (%lld in running batches)", (long long)p->running);
  fprintf(stderr, "%smultiverse run: %lld/%lld experiments%s, %lld not ok, %.3g/s, %s %s%s",
          p->tty ? "\r\033[K" : "", (long long)done, (long long)p->to_run, in, (long long)not_ok,
          rate, final ? "took" : "ETA", final ? t : e, p->tty && !final ? "" : "\n");
  p->line_open = p->tty && !final;
  fflush(stderr);
}
