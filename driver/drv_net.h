/* driver: `multiverse net` as a front-end of the pipeline: its sink (per
 * experiment id, what the worker that ran it writes into RUNDIR/out) and the
 * rendering of its outputs from them at the end (drv_net_out.c). */
#ifndef DRV_NET_H
#define DRV_NET_H

#include <stdio.h>

#include "driver/drv.h"
#include "driver/drv_kind_net.h"
#include "driver/drv_run.h"

/* Writes ev's ID.fct, ID.tasks (a task graph), ID.trace.csv (when it carries
 * `trace`) and ID.json (its summary) into ev->out_dir. 0 or -1 with a message. */
int drv_net_sink(const drv_sink_exp_t *ev, const eng_trace_desc_t *trace, char *err,
                 size_t errlen);

/* One experiment of the job as `multiverse net` reports it. */
typedef struct drv_net_render_t {
  const char *out; /* RUNDIR/out */
  uint64_t id;
  int index;
  const char *flows_path;
  const char *sweep;  /* "cc=dcqcn lb=spray" of --sweep, or NULL */
  const char *outdir; /* where fct-N.txt, tasks-N.txt, trace-N.csv go; NULL: none */
  int trace;          /* it has the time series */
  int json;           /* a JSON line on stdout instead of the summary line */
  int may_link;       /* the run folder is removed at the end: link its files (drv_sink_place) */
} drv_net_render_t;

/* Writes its files into outdir (fct-N.txt, fct-N.partial.txt unless ok; none if
 * invalid), its JSON line to `summary` (NULL: none), its line for standard
 * output to `out` and a message why to `msg`. Returns 0 when it is ok, 1 when
 * not, 2 when a file cannot be read or written. Experiments render on several
 * threads at once, each into streams of its own. */
int drv_net_render(const drv_net_render_t *r, FILE *summary, FILE *out, FILE *msg);
/* Copies experiment id's FCT file to `to`; 0 or 2. */
int drv_net_fct_copy(const char *out, uint64_t id, const char *to);

#endif
