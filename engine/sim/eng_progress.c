/* Progress reports of long runs; see eng_progress.h. */
#define _POSIX_C_SOURCE 200809L
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "sim/eng_num.h"
#include "sim/eng_progress.h"

#define PRINT_S 2.0 /* s between lines on stderr */
#define COUNT_S 0.5 /* s between raises of the caller's counter */

/* The counter of the batch the calling thread runs, and what the current
 * world has added to it (other threads of the run reach it through pg). */
static _Thread_local int32_t *tl_counter;
static _Thread_local int32_t tl_published;

void eng_progress_attach(int32_t *counter) {
  tl_counter = counter;
  tl_published = 0;
}

/* Adds what `done` is above the world's published count. */
static void publish(int32_t *counter, int32_t *published, int32_t done) {
  int32_t was = __atomic_load_n(published, __ATOMIC_RELAXED);
  while (done > was)
    if (__atomic_compare_exchange_n(published, &was, done, 0, __ATOMIC_RELAXED, __ATOMIC_RELAXED)) {
      __atomic_fetch_add(counter, done - was, __ATOMIC_RELAXED);
      return;
    }
}

void eng_progress_raise(int32_t done) {
  if (tl_counter) publish(tl_counter, &tl_published, done);
}

int32_t *eng_progress_hold(void) {
  int32_t *counter = tl_counter;
  tl_counter = NULL;
  return counter;
}

void eng_progress_resume(int32_t *counter) {
  tl_counter = counter;
}

void eng_progress_detach(int32_t done) {
  eng_progress_raise(done);
  tl_counter = NULL;
}

void eng_progress_begin(eng_progress_t *pg) {
  long long on;
  pg->on = getenv("MULTIVERSE_PROGRESS") && eng_env_int("MULTIVERSE_PROGRESS", 0, 1, 0, &on) == 0
               ? (int)on
               : isatty(STDERR_FILENO);
  pg->start = pg->last = pg->last_count = omp_get_wtime();
  pg->counter = tl_counter;
  pg->published = &tl_published;
  pg->exact = 0;
}

int eng_progress_due(eng_progress_t *pg) {
  if (!pg->on && !pg->counter) return 0;
  double now = omp_get_wtime();
  return (pg->on && now - pg->last >= PRINT_S) || (pg->counter && now - pg->last_count >= COUNT_S);
}

/* Raises the counter; 1 if a line is due on stderr. */
static int counted(eng_progress_t *pg, int32_t done) {
  double now = omp_get_wtime();
  pg->last_count = now;
  if (pg->counter && !pg->exact) publish(pg->counter, pg->published, done);
  if (!pg->on || now - pg->last < PRINT_S) return 0;
  pg->last = now;
  return 1;
}

void eng_progress_report(eng_progress_t *pg, const int32_t *status, const int64_t *t, int32_t n) {
  int32_t done = 0;
  int64_t slowest = INT64_MAX;
  for (int32_t e = 0; e < n; e++) {
    if (status[e] != ENG_RUNNING)
      done++;
    else if (t[e] < slowest)
      slowest = t[e];
  }
  if (counted(pg, done))
    fprintf(stderr,
            "multiverse: %d/%d experiments done, the slowest at %.3f ms simulated, %.0f s\n", done,
            n, slowest == INT64_MAX ? 0.0 : (double)slowest / 1e9, pg->last - pg->start);
}

void eng_progress_count(eng_progress_t *pg, int32_t done, int32_t n) {
  if (counted(pg, done))
    fprintf(stderr, "multiverse: %d/%d experiments done, %.0f s\n", done, n, pg->last - pg->start);
}

void eng_progress_add(eng_progress_t *pg) {
  if (!pg->counter) return;
  __atomic_fetch_add(pg->published, 1, __ATOMIC_RELAXED);
  __atomic_fetch_add(pg->counter, 1, __ATOMIC_RELAXED);
}
