/* trf: flow sets (traffic) read from ns-3 HPCC flow files, validated against a
 * topology. */
#ifndef TRF_H
#define TRF_H

#include <stddef.h>
#include <stdint.h>

#include "tg/tg.h"
#include "topo/topo.h"

typedef struct trf_flow_t {
  int32_t src, dst; /* host node ids */
  uint32_t sport;   /* assigned as ns-3 does: 10000 + per-(src,dst) counter */
  uint32_t dport;
  uint32_t prio;    /* as read; carried to the output only */
  uint64_t bytes;   /* > 0 */
  int64_t start_ps; /* exact decimal conversion of start_seconds */
  int32_t line;     /* line in the file, for messages */
} trf_flow_t;

typedef struct trf_flows_t {
  int32_t n;
  trf_flow_t *f; /* (n) in file order */
} trf_flows_t;

/* Reads `count` then `src dst priority dport size start_seconds` per line.
 * Rejects (naming file:line) unknown nodes, switches as endpoints, src == dst,
 * zero sizes, negative or malformed start times, unreachable destinations, and a
 * line count that differs from the header. Returns 0 or -1. */
int trf_read_ns3(const char *path, const topo_t *t, trf_flows_t *out, char *err, size_t errlen);

/* Parses a non-negative decimal number of seconds ("2", "2.000001", "1e-3") into
 * ps exactly (digits past the ps are an error); -1 on error. */
int64_t trf_parse_seconds(const char *s);

/* Appends one flow task per flow, in file order (task i is line i's flow), with
 * its ports, priority, line and start; 0 or -1 when out of memory. */
int trf_to_tg(const trf_flows_t *fl, tg_t *g);

void trf_free(trf_flows_t *fl);

#endif
