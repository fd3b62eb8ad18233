/* Time series of `multiverse net --trace-*`: parsing the selections
 * (drv_net_out.c writes them). */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "driver/drv.h"

#define TRACE_MAX_SAMPLES 200000
#define TRACE_MAX_SERIES 1024 /* flows, and ports, per trace */

/* A non-negative decimal integer at *s (digits only), advancing *s; -1 if
 * none or past INT32_MAX. */
static long trace_index(const char **s) {
  long v = 0;
  const char *p = *s;
  for (; *p >= '0' && *p <= '9' && v <= INT32_MAX; p++)
    v = v * 10 + (*p - '0');
  if (p == *s || v > INT32_MAX) return -1;
  *s = p;
  return v;
}

int drv_trace_parse(const char *rates, const char *queues, int64_t every_ps, const topo_t *t,
                    int32_t n_flows, eng_trace_desc_t *out) {
  int32_t *flows = calloc(TRACE_MAX_SERIES, sizeof *flows);
  int32_t *ports = calloc(TRACE_MAX_SERIES, sizeof *ports);
  out->flows = flows;
  out->ports = ports;
  if (!flows || !ports) return drv_fail(2, "multiverse net: out of memory\n");
  for (const char *s = rates; s;) {
    long i = trace_index(&s);
    if (i < 0 || i >= n_flows || (*s && *s != ','))
      return drv_fail(2,
                      "multiverse net: --trace-rates %s: expected flow indices 0..%d, "
                      "comma-separated\n",
                      rates, n_flows - 1);
    if (out->n_flows == TRACE_MAX_SERIES)
      return drv_fail(2, "multiverse net: --trace-rates: at most %d flows\n", TRACE_MAX_SERIES);
    flows[out->n_flows++] = (int32_t)i;
    s = *s ? s + 1 : NULL;
  }
  for (const char *s = queues; s;) {
    long a = trace_index(&s), b = *s == ':' ? (s++, trace_index(&s)) : -1;
    int lp = (a >= 0 && a < t->n_nodes && b >= 0 && b < t->n_nodes)
                 ? topo_port_to(t, (int32_t)a, (int32_t)b)
                 : -1;
    if (lp < 0 || (*s && *s != ','))
      return drv_fail(
          2, "multiverse net: --trace-queues %s: expected NODE:PEER pairs of linked nodes\n",
          queues);
    if (out->n_ports == TRACE_MAX_SERIES)
      return drv_fail(2, "multiverse net: --trace-queues: at most %d ports\n", TRACE_MAX_SERIES);
    ports[out->n_ports++] = t->port_off[a] + lp;
    s = *s ? s + 1 : NULL;
  }
  out->every = every_ps > 0 ? every_ps : 10000000; /* 10 us */
  out->max_samples = TRACE_MAX_SAMPLES;
  return 0;
}
