/* driver: the `multiverse` program's commands and their shared helpers. The
 * driver sees the engine through eng.h and parameters through jobs/job.h.
 * One exit status for every command that runs experiments (net, collective,
 * train, run: the pipeline of drv_run.h, docs/cli.md):
 *   0       every experiment has its result, each ok or oom;
 *   1       every experiment has its result, some invalid, failed or timed
 *           out (each row says why; the others ran), or run --only-failed
 *           left some without;
 *   2       bad usage or input (one line naming the file and line, the JSON
 *           path or the option; nothing runs), a run folder in use, or
 *           results that could not be written;
 *   128+N   stopped by signal N: every finished batch is kept, rerunning
 *           continues. */
#ifndef DRV_H
#define DRV_H

#include <stdio.h>

#include "driver/drv_out.h"
#include "jobs/job.h"
#include "sim/eng.h"
#include "topo/topo.h"

#define DRV_MAX_SETS 256
#define DRV_MAX_SWEEPS 16
#define DRV_MAX_EXPS 1000000
/* --threads: more threads than this gain nothing and can exhaust the OpenMP
 * runtime (100,000 crashed it). */
#define DRV_MAX_THREADS 1024

/* The environment variables (drv_env.c): each value whole and in range,
 * MULTIVERSE_PRESETS a folder; 0, or 2 after one line naming the variable. */
int drv_env_check(void);

/* A costs file's name (--costs, MULTIVERSE_COSTS): "none" or a path that
 * ends in ".json" (and is more than that). */
int drv_costs_name_ok(const char *path);

/* Prints the message to stderr (unless drv_quiet) and returns rc. */
int drv_fail(int rc, const char *fmt, ...);
/* The same to stream f (stderr: unless drv_quiet; another stream, a message
 * kept to be printed later in order, always). */
int drv_fail_to(FILE *f, int rc, const char *fmt, ...);
extern int drv_quiet;

/* The network presets file to read: `path`, else $MULTIVERSE_PRESETS/network.json
 * (written into buf), else the source tree's jobs/presets/network.json. */
const char *drv_presets_file(const char *path, char *buf, size_t len);

/* The presets file (`path`, else $MULTIVERSE_PRESETS/network.json, else the
 * source tree's jobs/presets/network.json) and the parameters of the `--set`s
 * applied to its defaults, `cc` first (job_params_set_list; each key's range
 * is checked, combinations are when each experiment is validated). 0 or 2
 * with a message. */
int drv_load_params(const char *path, const char *const *sets, int n_sets, job_presets_t *ps,
                    eng_params_t *p);

/* The `--set`s (each key once, already applied to p by drv_load_params) as the
 * members of a job's `network` object: a preset's name as given (cc, preset),
 * else the key's canonical value in p. 0, or -1 when out of memory. */
int drv_sets_json(const char *const *sets, int n_sets, const eng_params_t *p, json_t *obj);

/* `--sweep KEY=V1,V2,...` (n_sweeps of them, lists of any length) as the axes
 * of a job's grid: grid["network.KEY"] = [values as a job writes them], every
 * value checked as a `--set` (with the --sets, cc first; a swept value replaces
 * a --set of its key). A key swept twice, an empty value, a value given twice
 * (or two texts of one value: 4096 and 4096.0) is an error. *combos: the
 * combinations (the first --sweep varies slowest). 0, or 2 with a message
 * naming the command `cmd`. */
int drv_sweep(const char *cmd, const char *const *sets, int n_sets, const char *const *sweeps,
              int n_sweeps, const job_presets_t *ps, json_t *grid, long *combos);
/* "cc=dcqcn lb=spray": the values of combination c, as given (malloc'd; "" without
 * sweeps; NULL when out of memory). */
char *drv_sweep_label(const char *const *sweeps, int n_sweeps, long c);

/* The `sweep` object of a summary: {"KEY": "VALUE", ...} of a label "KEY=VALUE
 * ..." (the values as given); NULL when out of memory. */
json_t *drv_sweep_json(const char *label);

/* Option values (drv_opt.c): an integer written in decimal digits, or a
 * decimal number (no spaces, '+', hexadecimal, inf or nan), in [lo, hi]; 0,
 * or 2 with "multiverse CMD: OPT VALUE: expected ..." naming the range (and
 * `unit`). */
int drv_opt_int(const char *cmd, const char *opt, const char *v, long long lo, long long hi,
                long long *out);
int drv_opt_real(const char *cmd, const char *opt, const char *v, double lo, double hi,
                 const char *unit, double *out);
/* --backend's value: "cpu" or "cuda" (and "auto", -1, where auto_ok); 0, or 2
 * with "multiverse CMD: --backend VALUE: expected ...". */
int drv_opt_backend(const char *cmd, const char *v, int auto_ok, int *out);
/* Each key of n "KEY=VALUE" texts given once (`what`: "--set"); 0 or 2. */
int drv_opt_keys_once(const char *cmd, const char *what, const char *const *kvs, int n);

/* An output folder (-o; docs/cli.md: Output folders): drv_outdir_check before
 * anything runs, drv_outdir_begin right before the run, results written into
 * `stage`, drv_outdir_end after. With dir NULL every step does nothing. */
#define DRV_OUT_MARKER ".multiverse-run"  /* the command that wrote the folder */
#define DRV_OUT_INCOMPLETE "INCOMPLETE"   /* while a run writes; stays if it stopped */
#define DRV_OUT_STAGE ".multiverse-stage" /* results until they are complete */
typedef struct drv_outdir_t {
  const char *cmd, *dir;
  int force;
  int earlier; /* it holds an earlier run (cleared by drv_outdir_begin: --force) */
  int created; /* drv_outdir_begin made the folder */
  int no_signals; /* the caller handles SIGINT and SIGTERM (drv_outdir_stopped) */
  char stage[DRV_OUT_PATH_MAX + 32]; /* DIR/.multiverse-stage */
} drv_outdir_t;
enum { DRV_OUT_DONE = 0, DRV_OUT_FAILED = 1, DRV_OUT_NOTHING = 2 };

/* 1 if `name` is a file a run writes (fct-N.txt, summary.jsonl, ...). */
int drv_out_ours(const char *name);
/* DIR is a folder where files can be made, or can be made in an existing
 * folder; a folder holding an earlier run (what a run writes) is refused
 * unless `force`, and then if it holds anything else too. 0 or 2. */
int drv_outdir_check(drv_outdir_t *o, const char *cmd, const char *dir, int force);
/* Clears the earlier run (with --force), makes the folder and the stage. */
int drv_outdir_prepare(drv_outdir_t *o);
/* drv_outdir_prepare, then writes the marker (the command line) and
 * INCOMPLETE, and arms SIGINT and SIGTERM: either then prints one line on
 * stderr, notes it in INCOMPLETE and exits 130 or 143. 0 or 2. */
int drv_outdir_begin(drv_outdir_t *o, int argc, char **argv);
/* DRV_OUT_DONE: moves the staged results in, removes INCOMPLETE; FAILED:
 * leaves INCOMPLETE and the stage; NOTHING (nothing ran): removes what
 * drv_outdir_begin made, the folder too if it made it. Disarms the signals.
 * 0 or 2. */
int drv_outdir_end(drv_outdir_t *o, int outcome);
/* After the run stopped on signal `sig`: INCOMPLETE notes it, one line on
 * stderr says so; returns 128 + sig (2 if the folder cannot be finished). */
int drv_outdir_stopped(drv_outdir_t *o, int sig);

/* Reads a `--flows` file into g, by its content (trf_detect): an ns-3 HPCC flow
 * file, an htsim connection matrix or a JSON task graph, checked against the
 * topology; *format is its trf_format_t. 0, or 2 with a one-line message
 * "multiverse CMD: FILE:LINE: ..." (g may then hold a partial graph). */
int drv_read_flows(const char *cmd, const char *path, const topo_t *t, tg_t *g, int *format);
/* The same, the message ("FILE:LINE: ...") in err: 0 or -1. */
int drv_load_flows(const char *path, const topo_t *t, tg_t *g, int *format, char *err,
                   size_t errlen);
/* The same; *ignored: lines after an ns-3 flow file's announced flows (ns-3
 * ignores them). drv_read_flows says how many on stderr. */
int drv_load_flows_counted(const char *path, const topo_t *t, tg_t *g, int *format,
                           int32_t *ignored, char *err, size_t errlen);
/* An ns-3 HPCC simulator configuration as `multiverse net` runs it. */
#define DRV_NS3_SETS 64
typedef struct drv_ns3_config_t {
  char topology[4096], flows[4096], fct[4096]; /* TOPOLOGY_FILE, FLOW_FILE, FCT_OUTPUT_FILE */
  int topology_line, flows_line, fct_line;     /* their lines (0: absent, the default) */
  char sets[DRV_NS3_SETS][1600];               /* KEY=VALUE, applied in order */
  int n_sets;
  /* DCQCN with HAS_WIN 1 and GLOBAL_T 1: the window is the network's largest
   * BDP (the topology gives it: drv_ns3_window) */
  int dcqcn_global_window;
  /* Output files the configuration names that are not written here (ns-3's packet
   * trace, PFC log and queue monitor, SimAI's monitors): "KEY FILE (what), ..." */
  char unwritten[1600];
} drv_ns3_config_t;

/* Reads an ns-3 HPCC configuration (drv_ns3cfg.c): the preset ns3_hpcc and
 * each key as parameters. Every value is read whole in its range (flags
 * exactly 0 or 1) and, with presets `ps` (NULL: not), applied as `net` will:
 * a refused one is named by its line and key; keys and values we do not model
 * are named, all in one error. 0 or -1 with a message. */
int drv_ns3_config(const char *path, const job_presets_t *ps, drv_ns3_config_t *o, char *err,
                   size_t errlen);
/* The settings of an ns-3 configuration (SimAI.conf too) for a training job's
 * network: its parameters as drv_ns3_config gives them (its files and outputs are
 * not the job's). 0 or -1 with a message naming the file. */
int drv_ns3_settings(const char *path, const job_presets_t *ps, drv_ns3_config_t *o, char *err,
                     size_t errlen);
/* Applies a training job's `network` object to p: its ns3_config (an ns-3 or SimAI
 * configuration, relative to base_dir) first, then its parameter keys (job_params_apply,
 * `skip` left out). 0 or -1 with a message naming `where`. */
int drv_train_network(const job_presets_t *ps, const char *base_dir, eng_params_t *p,
                      const json_t *net, const char *const *skip, const char *where, char *err,
                      size_t errlen);
/* trn_exp_env_t.apply of both training front ends (ctx: a drv_train_net_t). */
typedef struct drv_train_net_t {
  const job_presets_t *ps;
  const char *base_dir; /* the job file's folder */
} drv_train_net_t;
int drv_train_apply(const void *ctx, eng_params_t *p, const json_t *net, const char *const *skip,
                    const char *where, char *err, size_t errlen);
/* Its files, before anything runs: TOPOLOGY_FILE and FLOW_FILE regular files,
 * FCT_OUTPUT_FILE by the output rule against them and the configuration
 * `path` (ns-3's default fct.txt is not replaced). 0 or -1 with a message
 * naming the configuration's line. */
int drv_ns3_files(const drv_ns3_config_t *o, const char *path, char *err, size_t errlen);

/* --trace-rates "0,3" (file-order flows) and --trace-queues "5:12" (port of
 * node 5 towards node 12; NULL: none; every element digits only) into a trace
 * description sampled every `every_ps` (0: 10 us); 0 or 2 with a message. */
int drv_trace_parse(const char *rates, const char *queues, int64_t every_ps, const topo_t *t,
                    int32_t n_flows, eng_trace_desc_t *out);

int drv_net(int argc, char **argv);
int drv_calibrate(int argc, char **argv);
int drv_collective(int argc, char **argv);
int drv_params(int argc, char **argv);
int drv_train(int argc, char **argv);

#endif
