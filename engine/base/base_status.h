/* base: what became of an experiment, the one list every module names it
 * from (engine/train's verdicts and results, the results' `status` variable,
 * reports, merge, plan): X(ENUM, name), in the order of its values. */
#ifndef BASE_STATUS_H
#define BASE_STATUS_H

#define BASE_STATUSES(X)                                                                           \
  X(OK, ok)               /* ran, or built and to be run */                                        \
  X(OOM, oom)             /* did not fit in GPU memory, or the training memory model says so */    \
  X(INVALID, invalid)     /* its configuration is inconsistent (found before it ran) */            \
  X(FAILED, failed)       /* it ran and failed */                                                  \
  X(TIMED_OUT, timed_out) /* it reached its simulated-time limit */

typedef enum base_status_t {
#define BASE_STATUS_ENUM(e, name) BASE_##e,
  BASE_STATUSES(BASE_STATUS_ENUM)
#undef BASE_STATUS_ENUM
      BASE_STATUS_N
} base_status_t;

#endif
