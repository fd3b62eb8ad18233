/* driver: the `multiverse` program's commands and their shared helpers. The
 * driver sees the engine through eng.h and parameters through jobs/job.h.
 * Exit codes: 0 every experiment ok; 1 some experiment failed, timed out or
 * was invalid (its summary row says why; the others ran); 2 bad usage or
 * input, or the batch could not be built or run (nothing was written). */
#ifndef DRV_H
#define DRV_H

#include <stdio.h>

#include "jobs/job.h"
#include "sim/eng.h"
#include "topo/topo.h"

#define DRV_MAX_SETS 256
#define DRV_MAX_SWEEPS 16
#define DRV_MAX_EXPS 1000000

/* Prints the message to stderr (unless drv_quiet) and returns rc. */
int drv_fail(int rc, const char *fmt, ...);
extern int drv_quiet;

/* The network presets file to read: `path`, else $MULTIVERSE_PRESETS/network.json
 * (written into buf), else the source tree's jobs/presets/network.json. */
const char *drv_presets_file(const char *path, char *buf, size_t len);

/* The presets file (`path`, else $MULTIVERSE_PRESETS/network.json, else the
 * source tree's jobs/presets/network.json) and the parameters of the `--set`s
 * applied to its defaults (not checked: each experiment is validated). 0 or 2
 * with a message. */
int drv_load_params(const char *path, const char *const *sets, int n_sets, job_presets_t *ps,
                    eng_params_t *p);

/* The parameter sets of `--sweep KEY=V1,V2,...` (n_sweeps of them): every
 * combination of the swept values applied on top of `base`, the first --sweep
 * varying slowest. Fills *n, *out (n parameter sets) and *labels (n strings
 * "cc=dcqcn lb=spray", "" without sweeps). 0, or 2 with a message naming the
 * command `cmd`. */
int drv_sweep(const char *cmd, const char *const *sweeps, int n_sweeps, const job_presets_t *ps,
              const eng_params_t *base, int *n, eng_params_t **out, char ***labels);

/* Reads a `--flows` file into g, by its content (trf_detect): an ns-3 HPCC flow
 * file, an htsim connection matrix or a JSON task graph, checked against the
 * topology; *format is its trf_format_t. 0, or 2 with a one-line message
 * "multiverse CMD: FILE:LINE: ..." (g may then hold a partial graph). */
int drv_read_flows(const char *cmd, const char *path, const topo_t *t, tg_t *g, int *format);
/* The same, the message ("FILE:LINE: ...") in err: 0 or -1. */
int drv_load_flows(const char *path, const topo_t *t, tg_t *g, int *format, char *err,
                   size_t errlen);
/* An ns-3 HPCC simulator configuration as `multiverse net` runs it. */
#define DRV_NS3_SETS 64
typedef struct drv_ns3_config_t {
  char topology[4096], flows[4096], fct[4096]; /* TOPOLOGY_FILE, FLOW_FILE, FCT_OUTPUT_FILE */
  char sets[DRV_NS3_SETS][1600];               /* KEY=VALUE, applied in order */
  int n_sets;
  /* DCQCN with HAS_WIN 1 and GLOBAL_T 1: the window is the network's largest
   * BDP (the topology gives it: drv_ns3_window) */
  int dcqcn_global_window;
} drv_ns3_config_t;

/* Reads an ns-3 HPCC configuration (drv_ns3cfg.c): the preset ns3_hpcc and
 * each key as parameters; keys we do not model are named, all in one error.
 * 0 or -1 with a message. */
int drv_ns3_config(const char *path, drv_ns3_config_t *o, char *err, size_t errlen);

/* What one experiment of `multiverse net` reports. */
typedef struct drv_net_report_t {
  int index;
  const char *flows_path;
  const char *sweep; /* "cc=dcqcn lb=spray" of --sweep, or NULL */
  const topo_t *topo;
  const tg_t *tasks; /* its tasks, in file order */
  int graph;         /* 1: a task graph (.cm, JSON): flows in task order, tasks-N.txt */
  const eng_params_t *params;
  uint64_t id;
  double wall_s; /* the batch's wall time */
  eng_backend_t backend;
} drv_net_report_t;

/* Writes the experiment's FCT file (ns-3 HPCC format: the flows that
 * finished, in finish order) to `path`; none if it was invalid. 0 or 2. */
int drv_net_fct(const eng_batch_t *b, const drv_net_report_t *r, const char *path);

/* Writes OUTDIR/fct-N.txt (fct-N.partial.txt unless ok; none if invalid), one
 * JSON line to `summary` and the summary line to stdout. Returns 1 unless the
 * experiment is ok, 2 if a file cannot be written. Without OUTDIR (NULL) and
 * `summary` (NULL) only the line is printed. */
int drv_net_write(const eng_batch_t *b, const drv_net_report_t *r, const char *outdir, int json,
                  FILE *summary);

/* --trace-rates "0,3" (file-order flows) and --trace-queues "5:12" (port of
 * node 5 towards node 12) into a trace description; 0 or 2 with a message. */
int drv_trace_parse(const char *rates, const char *queues, double every_us, const topo_t *t,
                    int32_t n_flows, eng_trace_desc_t *out);
/* Writes OUTDIR/trace-E.csv. */
int drv_trace_write(const eng_batch_t *b, int e, const eng_trace_desc_t *tr, const topo_t *t,
                    const char *outdir);

int drv_net(int argc, char **argv);
int drv_calibrate(int argc, char **argv);
int drv_collective(int argc, char **argv);

#endif
