/* driver: the main thread's wait for a batch's end (drv_wake.h), a
 * condition variable on the monotonic clock. */
#define _POSIX_C_SOURCE 200809L
#include <time.h>

#include "base/base_units.h"
#include "driver/drv_wake.h"

int drv_wake_init(drv_wake_t *k) {
  pthread_condattr_t a;
  k->pending = 0;
  if (pthread_condattr_init(&a)) return -1;
  int rc = pthread_condattr_setclock(&a, CLOCK_MONOTONIC) || pthread_cond_init(&k->cv, &a);
  pthread_condattr_destroy(&a);
  if (rc) return -1;
  if (pthread_mutex_init(&k->mu, NULL)) {
    pthread_cond_destroy(&k->cv);
    return -1;
  }
  return 0;
}

void drv_wake_free(drv_wake_t *k) {
  pthread_cond_destroy(&k->cv);
  pthread_mutex_destroy(&k->mu);
}

void drv_wake_signal(drv_wake_t *k) {
  pthread_mutex_lock(&k->mu);
  k->pending++;
  pthread_cond_signal(&k->cv);
  pthread_mutex_unlock(&k->mu);
}

void drv_wake_wait(drv_wake_t *k, double s) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  long long ns = (long long)t.tv_nsec + (long long)(s * BASE_NS_PER_S);
  t.tv_sec += (time_t)(ns / 1000000000LL);
  t.tv_nsec = (long)(ns % 1000000000LL);
  pthread_mutex_lock(&k->mu);
  while (!k->pending)
    if (pthread_cond_timedwait(&k->cv, &k->mu, &t)) break; /* timed out (or an error) */
  k->pending = 0;
  pthread_mutex_unlock(&k->mu);
}
