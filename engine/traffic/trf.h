/* trf: traffic read from files, validated against a topology: ns-3 HPCC flow
 * files (flow sets) and htsim connection matrices (task graphs). */
#ifndef TRF_H
#define TRF_H

#include <stddef.h>
#include <stdint.h>

#include "base/base_dec.h"
#include "tg/tg.h"
#include "topo/topo.h"

/* What a flow may be (docs/formats.md "Limits"). */
#define TRF_MAX_BYTES TG_MAX_BYTES /* per flow: 1 TiB */
/* 1e6 s, max_time_s's limit: a later flow could never start (tg.h). */
#define TRF_MAX_START_PS TG_MAX_START_PS
/* PRIORITY: ns-3's data queues 1..7 (its queue 0 has strict priority and no
 * PFC: control packets only), a traffic class with `classes` (docs/model.md);
 * 3 is its default data priority. */
#define TRF_PRIO 3
#define TRF_PRIO_MIN 1
#define TRF_PRIO_MAX 7

typedef struct trf_flow_t {
  int32_t src, dst; /* host node ids */
  uint32_t sport;   /* assigned as ns-3 does: 10000 + per-(src,dst) counter */
  uint32_t dport;
  uint32_t prio;    /* TRF_PRIO_MIN..TRF_PRIO_MAX */
  uint64_t bytes;   /* > 0 */
  int64_t start_ps; /* exact decimal conversion of start_seconds */
  int32_t line;     /* line in the file, for messages */
} trf_flow_t;

typedef struct trf_flows_t {
  int32_t n;
  trf_flow_t *f;         /* (n) in file order */
  int32_t ignored_lines; /* lines after the announced flows, ignored as ns-3 does */
} trf_flows_t;

/* Reads `count` then `src dst priority dport size start_seconds` per line.
 * Rejects (naming file:line) unknown nodes, switches as endpoints, src == dst,
 * a priority outside TRF_PRIO_MIN..MAX, zero sizes or sizes over TRF_MAX_BYTES, negative,
 * malformed or too late start times (TRF_MAX_START_PS), unreachable destinations, a
 * NUL byte, and fewer flows than the header announces; lines after the announced
 * flows are ignored, as ns-3 ignores them, and counted in ignored_lines. Returns 0 or
 * -1. */
int trf_read_ns3(const char *path, const topo_t *t, trf_flows_t *out, char *err, size_t errlen);
/* As trf_read_ns3, from the len bytes at text; `name` names it in messages. */
int trf_parse_ns3(const char *name, const char *text, size_t len, const topo_t *t, trf_flows_t *out,
                  char *err, size_t errlen);

/* Parses a non-negative decimal number of seconds ("2", "2.000001", "1e-3") into
 * ps exactly: base_dec_scaled(s, 12), BASE_DEC_TOO_LARGE past INT64_MAX ps. */
static inline int64_t trf_parse_seconds(const char *s) {
  return base_dec_scaled(s, 12);
}

/* Appends one flow task per flow, in file order (task i is line i's flow), with
 * its ports, priority, line and start; 0 or -1 when out of memory. */
int trf_to_tg(const trf_flows_t *fl, tg_t *g);

void trf_free(trf_flows_t *fl);

/* Appends an htsim connection matrix (csg-htsim's .cm) to g: a header
 * `Nodes N`, `Connections M`, optional `Triggers T`, then M lines
 * `SRC->DST [id I] (start PS | trigger K) size BYTES [send_done_trigger K]
 * [recv_done_trigger K] [prio P]` and T lines `trigger id K (oneshot |
 * multishot | barrier count C)`; '#' comments. Node i is topology node i (a
 * host). Flow line i becomes task g->n + i (start in ps, exact; ports as
 * ns-3 assigns them); then per trigger, join tasks on its target flows' hosts:
 * oneshot needs 1 signal, barrier C, and a multishot's i-th target (in file
 * order) its own join needing i + 1. A signal is an edge on a flow's end
 * (send_done_trigger) or recv (recv_done_trigger). Errors (and tg_check's)
 * name file:line. 0 or -1. */
int trf_read_cm(const char *path, const topo_t *t, tg_t *g, char *err, size_t errlen);

typedef enum trf_format_t {
  TRF_FORMAT_NS3 = 0,  /* a flow count, then a flow per line */
  TRF_FORMAT_CM = 1,   /* htsim: Nodes / Connections / Triggers header, SRC->DST lines */
  TRF_FORMAT_JSON = 2, /* a JSON task graph (tg_json.h) */
} trf_format_t;
/* The format of a `--flows` file by its first line that is neither blank nor a
 * '#' comment; -1 with a message if unreadable or none fits. */
int trf_detect(const char *path, char *err, size_t errlen);

#endif
