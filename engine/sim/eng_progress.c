/* Progress reports of long runs; see eng_progress.h. */
#define _POSIX_C_SOURCE 200809L
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "sim/eng_num.h"
#include "sim/eng_progress.h"

void eng_progress_begin(eng_progress_t *pg) {
  long long on;
  pg->on = getenv("MULTIVERSE_PROGRESS") && eng_env_int("MULTIVERSE_PROGRESS", 0, 1, 0, &on) == 0
               ? (int)on
               : isatty(STDERR_FILENO);
  pg->start = pg->last = omp_get_wtime();
}

int eng_progress_due(eng_progress_t *pg) {
  return pg->on && omp_get_wtime() - pg->last >= 2.0;
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
  pg->last = omp_get_wtime();
  fprintf(stderr, "multiverse: %d/%d experiments done, the slowest at %.3f ms simulated, %.0f s\n",
          done, n, slowest == INT64_MAX ? 0.0 : (double)slowest / 1e9, pg->last - pg->start);
}

void eng_progress_count(eng_progress_t *pg, int32_t done, int32_t n) {
  pg->last = omp_get_wtime();
  fprintf(stderr, "multiverse: %d/%d experiments done, %.0f s\n", done, n, pg->last - pg->start);
}
