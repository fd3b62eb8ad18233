/* driver: the `multiverse` program's commands and their shared helpers.
 * Exit codes: 0 all experiments ok, 1 some experiment failed or timed out,
 * 2 bad usage or input (nothing was run). */
#ifndef DRV_H
#define DRV_H

#include <stdio.h>

#include "sim/eng_params.h"
#include "sim/eng_world.h"
#include "topo/topo.h"
#include "traffic/trf.h"

/* Prints the message to stderr and returns rc. */
int drv_fail(int rc, const char *fmt, ...);

/* Network defaults (presets file: `path`, else $MULTIVERSE_PRESETS, else the
 * source tree's jobs/presets) with `--set` overrides applied and checked. */
int drv_load_params(const char *path, const char *const *sets, int n_sets, eng_params_t *p);

/* What one experiment of `multiverse net` reports. */
typedef struct drv_net_report_t {
  int index;
  const char *flows_path;
  const char *sweep; /* "cc=dcqcn lb=spray" of --sweep, or NULL */
  const topo_t *topo;
  const trf_flows_t *flows;
  const eng_params_t *params;
  uint64_t id;
  double wall_s; /* the batch's wall time */
  eng_backend_t backend;
} drv_net_report_t;

/* Writes OUTDIR/fct-N.txt (fct-N.partial.txt unless ok), one JSON line to
 * `summary` and the summary line to stdout. Returns 1 unless the experiment is
 * ok, 2 if a file cannot be written. */
int drv_net_write(const eng_world_t *w, const drv_net_report_t *r, const char *outdir, int json,
                  FILE *summary);

/* --trace-rates "0,3" (file-order flows) and --trace-queues "5:12" (port of
 * node 5 towards node 12) into a trace description; 0 or 2 with a message. */
int drv_trace_parse(const char *rates, const char *queues, double every_us, const topo_t *t,
                    const trf_flows_t *fl, eng_trace_desc_t *out);
/* Writes OUTDIR/trace-E.csv. */
int drv_trace_write(const eng_world_t *w, int e, const eng_trace_desc_t *tr, const topo_t *t,
                    const char *outdir);

int drv_net(int argc, char **argv);
int drv_calibrate(int argc, char **argv);

#endif
