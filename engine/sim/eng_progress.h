/* Progress of a long run on stderr (when it is a terminal, or with
 * MULTIVERSE_PROGRESS=1): experiments done and the simulated time reached, at
 * most every two seconds. Both backends call it between windows. */
#ifndef ENG_PROGRESS_H
#define ENG_PROGRESS_H

#include "sim/eng_world.h"

typedef struct eng_progress_t {
  int on;
  double start, last; /* s, wall clock */
} eng_progress_t;

void eng_progress_begin(eng_progress_t *pg);
/* 1 if a report is due now (the caller then fetches status and t). */
int eng_progress_due(eng_progress_t *pg);
/* Reports from experiment statuses and window starts (host copies, n_exps). */
void eng_progress_report(eng_progress_t *pg, const int32_t *status, const int64_t *t, int32_t n);
/* Reports `done` of n experiments (when their statuses are not at hand). */
void eng_progress_count(eng_progress_t *pg, int32_t done, int32_t n);

#endif
