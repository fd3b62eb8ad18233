/* base: serialisation times on the two clocks of docs/model.md (Units): exact
 * picoseconds, or whole nanoseconds truncated as the ns-3 HPCC simulator's
 * clock truncates them (ser_floor_ns). Shared by links and pacing. */
#ifndef BASE_CLOCK_H
#define BASE_CLOCK_H

#include <math.h>
#include <stdint.h>

#include "base/base_hd.h"

/* ceil(bytes * 8 * 10^12 / rate) ps. */
ENG_INLINE int64_t base_ser_ps(int64_t bytes, uint64_t rate) {
  return (int64_t)(((uint64_t)bytes * 8000000000000ULL + rate - 1) / rate);
}

/* ns-3's transmission time, in ps: the double bytes * 8 / rate seconds, made a
 * time of whole ns by truncation, at least 1 ns. The quotient is exact to a
 * fraction of an ns except where bytes * 8 * 10^9 / rate is an integer n; the
 * double quotient then lies on either side of it and truncates to n or n - 1
 * (the sign of its residual, computed exactly with one fused multiply-add). */
ENG_INLINE int64_t base_ser_floor_ns(int64_t bytes, uint64_t rate) {
  uint64_t bits = (uint64_t)bytes * 8, num = bits * 1000000000ULL, ns = num / rate;
  if (num % rate == 0 && ns > 0) {
    double d = (double)bits / (double)rate;
    if (fma(d, (double)rate, -(double)bits) < 0) ns--;
  }
  return ns ? (int64_t)ns * 1000 : 1000;
}

/* Serialisation of `bytes` at `rate` bit/s on the experiment's clock. */
ENG_INLINE int64_t base_ser_clock(int64_t bytes, uint64_t rate, int32_t floor_ns) {
  return floor_ns ? base_ser_floor_ns(bytes, rate) : base_ser_ps(bytes, rate);
}

#endif
