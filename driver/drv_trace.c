/* Time series of `multiverse net --trace-*`: parsing the selections and
 * writing trace-N.csv. */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "driver/drv.h"

#define TRACE_MAX_SAMPLES 200000

int drv_trace_parse(const char *rates, const char *queues, double every_us, const topo_t *t,
                    int32_t n_flows, eng_trace_desc_t *out) {
  int32_t *flows = calloc(1024, sizeof *flows), *ports = calloc(1024, sizeof *ports);
  out->flows = flows;
  out->ports = ports;
  if (!flows || !ports) return drv_fail(2, "multiverse net: out of memory\n");
  for (const char *s = rates; s && *s;) {
    char *end;
    long i = strtol(s, &end, 10);
    if (end == s || i < 0 || i >= n_flows || out->n_flows == 1024)
      return drv_fail(
          2, "multiverse net: --trace-rates %s: expected flow indices 0..%d, comma-separated\n",
          rates, n_flows - 1);
    flows[out->n_flows++] = (int32_t)i;
    s = *end == ',' ? end + 1 : end;
    if (*end && *end != ',')
      return drv_fail(2, "multiverse net: --trace-rates %s: bad list\n", rates);
  }
  for (const char *s = queues; s && *s;) {
    char *end, *end2;
    long a = strtol(s, &end, 10), b = *end == ':' ? strtol(end + 1, &end2, 10) : -1;
    int lp = (a >= 0 && a < t->n_nodes && b >= 0 && b < t->n_nodes)
                 ? topo_port_to(t, (int32_t)a, (int32_t)b)
                 : -1;
    if (*end != ':' || lp < 0 || out->n_ports == 1024)
      return drv_fail(
          2, "multiverse net: --trace-queues %s: expected NODE:PEER pairs of linked nodes\n",
          queues);
    ports[out->n_ports++] = t->port_off[a] + lp;
    s = *end2 == ',' ? end2 + 1 : end2;
    if (*end2 && *end2 != ',')
      return drv_fail(2, "multiverse net: --trace-queues %s: bad list\n", queues);
  }
  out->every = (int64_t)((every_us > 0 ? every_us : 10.0) * 1e6);
  out->max_samples = TRACE_MAX_SAMPLES;
  return 0;
}

int drv_trace_write(const eng_batch_t *b, int e, const eng_trace_desc_t *tr, const topo_t *t,
                    const char *outdir) {
  char path[4096];
  snprintf(path, sizeof path, "%s/trace-%d.csv", outdir, e);
  FILE *f = fopen(path, "w");
  if (!f) return drv_fail(2, "multiverse net: cannot write %s: %s\n", path, strerror(errno));
  fprintf(f, "time_us");
  for (int32_t i = 0; i < tr->n_flows; i++)
    fprintf(f, ",flow%d_delivered_bytes,flow%d_cc", tr->flows[i], tr->flows[i]);
  for (int32_t i = 0; i < tr->n_ports; i++)
    fprintf(f, ",queue_%d_%d_bytes", t->ports[tr->ports[i]].node, t->ports[tr->ports[i]].peer);
  fprintf(f, "\n");
  int32_t nser = 1 + 2 * tr->n_flows + tr->n_ports;
  for (int32_t k = 0; k < eng_trace_samples(b, e); k++) {
    fprintf(f, "%.6f", eng_trace_value(b, e, k, 0) / 1e6);
    for (int32_t s = 1; s < nser; s++)
      fprintf(f, ",%.17g", eng_trace_value(b, e, k, s));
    fprintf(f, "\n");
  }
  if (fclose(f)) return drv_fail(2, "multiverse net: cannot write %s\n", path);
  return 0;
}
