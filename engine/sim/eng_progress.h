/* Progress of a long run: on stderr (when it is a terminal, or with
 * MULTIVERSE_PROGRESS=1) experiments done and the simulated time reached, at
 * most every two seconds; and, when the caller gave eng_run_desc_t.finished,
 * experiments done raised in that counter about every half second (or at
 * once where a backend knows each end). Both backends call it between
 * windows. */
#ifndef ENG_PROGRESS_H
#define ENG_PROGRESS_H

#include "sim/eng_world.h"

typedef struct eng_progress_t {
  int on;
  double start, last, last_count; /* s, wall clock */
  int32_t *counter;               /* the caller's, or NULL */
  int32_t *published;             /* what this world has added to it */
  int exact;                      /* 1: the backend calls eng_progress_add at each end */
} eng_progress_t;

/* The counter the runs of the calling thread raise, from now (NULL: none). */
void eng_progress_attach(int32_t *counter);
/* Raises it to `done` experiments of this world if it is below. */
void eng_progress_raise(int32_t done);
/* Stops the calling thread's runs raising it (returned) until
 * eng_progress_resume(it): a world that runs experiments again (eng_world_run,
 * after an overflow) counts them once, where they first ended. */
int32_t *eng_progress_hold(void);
void eng_progress_resume(int32_t *counter);
/* Raises it to `done` experiments of this world if it is below, and detaches. */
void eng_progress_detach(int32_t done);

void eng_progress_begin(eng_progress_t *pg);
/* 1 if a report is due now (the caller then fetches status and t). */
int eng_progress_due(eng_progress_t *pg);
/* Reports from experiment statuses and window starts (host copies, n_exps). */
void eng_progress_report(eng_progress_t *pg, const int32_t *status, const int64_t *t, int32_t n);
/* Reports `done` of n experiments (when their statuses are not at hand). */
void eng_progress_count(eng_progress_t *pg, int32_t done, int32_t n);
/* One more experiment ended (any thread; a backend that calls it sets exact). */
void eng_progress_add(eng_progress_t *pg);

#endif
