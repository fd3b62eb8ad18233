/* The run loop's wait for a batch's end (driver/drv_wake.c): a signal given
 * before the wait, or by another thread during it, ends a wait of an hour
 * (were it lost, the test would sleep past ctest's timeout and fail), each
 * signal once; with none, the wait returns after its time. */
#define _POSIX_C_SOURCE 200809L
#include <time.h>

#include "driver/drv_wake.h"
#include "mvtest.h"

static double now(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

static void *later(void *arg) {
  struct timespec nap = {0, 50000000};
  nanosleep(&nap, NULL);
  drv_wake_signal(arg);
  return NULL;
}

int main(void) {
  drv_wake_t k;
  CHECK(drv_wake_init(&k) == 0);
  /* Nothing pending: the wait lasts its time (0.05 s), no less. */
  double t0 = now();
  drv_wake_wait(&k, 0.05);
  CHECK(now() - t0 >= 0.049);
  /* Two batches ended before the wait: one wait takes both. */
  drv_wake_signal(&k);
  drv_wake_signal(&k);
  drv_wake_wait(&k, 3600);
  CHECK_EQ_I64(k.pending, 0);
  /* ... and the next wait sees none: it lasts its time again. */
  t0 = now();
  drv_wake_wait(&k, 0.02);
  CHECK(now() - t0 >= 0.019);
  /* A batch ends on another thread while the main one waits. */
  for (int i = 0; i < 3; i++) {
    pthread_t th;
    CHECK(pthread_create(&th, NULL, later, &k) == 0);
    drv_wake_wait(&k, 3600);
    pthread_join(th, NULL);
    CHECK_EQ_I64(k.pending, 0);
  }
  drv_wake_free(&k);
  return mvtest_end();
}
