/* driver: what a rank's main thread waits on between its looks at MPI,
 * signals and progress: a worker's batch ending signals it, so that the wait
 * returns at once instead of at the next look. */
#ifndef DRV_WAKE_H
#define DRV_WAKE_H

#include <pthread.h>

typedef struct drv_wake_t {
  pthread_mutex_t mu;
  pthread_cond_t cv; /* on CLOCK_MONOTONIC */
  int pending;       /* signals since the last wait */
} drv_wake_t;

/* 0, or -1 (pthread). */
int drv_wake_init(drv_wake_t *k);
void drv_wake_free(drv_wake_t *k);
/* A batch ended (any thread). */
void drv_wake_signal(drv_wake_t *k);
/* Waits until a signal or s seconds pass; a signal since the last wait
 * returns at once. */
void drv_wake_wait(drv_wake_t *k, double s);

#endif
