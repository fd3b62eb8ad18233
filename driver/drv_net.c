/* `multiverse net`: packet-level simulation of flow files (ns-3 HPCC flows, htsim
 * connection matrices, JSON task graphs) on one topology, every file an
 * experiment, all of them in one batch. */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "driver/drv_net.h"
#include "base/base_file.h"
#include "traffic/trf.h"

static const char net_usage[] =
    "usage: multiverse net --topology TOPO --flows FLOWS [--flows FLOWS2 ...] [--flows-from LIST]\n"
    "                      [--set KEY=VALUE ...] [--sweep KEY=V1,V2,... ...]\n"
    "                      [--backend cpu|cuda] [--threads N]\n"
    "                      [--json] [--trace-rates FLOW,...] [--trace-queues NODE:PEER,...]\n"
    "                      [--trace-exp N] [--trace-every-us US] -o OUTDIR [--force]\n"
    "                      [--results FILE.nc] [--run-dir DIR] [--memory GB] [--max-batch N]\n"
    "       multiverse net --ns3-config CONFIG [--ns3-fct-only] [--topology TOPO] [--flows FLOWS]\n"
    "                      [--set KEY=VALUE ...] [--backend ...] [-o OUTDIR]\n"
    "  TOPO   ns-3 HPCC topology file, or a .json file with a topology object\n"
    "  FLOWS  ns-3 HPCC flow file, htsim connection matrix (.cm) or JSON task graph\n"
    "         (told apart by content); each one is an experiment, all run as one batch\n"
    "  LIST   a file naming flow files, one per line (relative to its folder)\n"
    "  --set  network parameter (multiverse params, docs/parameters.md), e.g. --set pfc=false\n"
    "  --sweep KEY=V1,V2,...  every flow file runs once per value (several --sweep: every\n"
    "         combination, the first varying slowest), all in the same batch\n"
    "writes OUTDIR/fct-N.txt per experiment (ns-3 HPCC format; a task graph's flows in\n"
    "task order, and every task's times in OUTDIR/tasks-N.txt) and OUTDIR/summary.jsonl;\n"
    "prints one summary line per experiment (one JSON object per line with --json);\n"
    "CONFIG: an ns-3 HPCC simulator configuration (scratch/third.cc keys), run as ns-3\n"
    "would with the preset ns3_hpcc: its TOPOLOGY_FILE, FLOW_FILE and settings; writes its\n"
    "FCT_OUTPUT_FILE (paths relative to the current directory, as ns-3 reads them);\n"
    "--topology and --flows give what it does not name (SimAI.conf names neither); outputs\n"
    "it names that are not written here (TRACE_OUTPUT_FILE, PFC_OUTPUT_FILE, QLEN_MON_FILE,\n"
    "SimAI's monitors) are refused unless --ns3-fct-only (docs/ns3.md)\n"
    "--trace-*: time series of experiment N (default 0) in OUTDIR/trace-N.csv: bytes\n"
    "delivered and CC state of flows (task indices: file order), data queue of the port of NODE\n"
    "towards PEER, every US microseconds (default 10)\n"
    "OUTDIR: a new folder, or one without an earlier run; --force replaces an earlier run\n"
    "(docs/cli.md: Output folders). Each key is given once; `cc` applies before the other keys.\n"
    "--results FILE.nc: every experiment's row in a NetCDF file; its run folder (FILE.run, or\n"
    "--run-dir DIR) keeps the finished batches, and rerunning the command continues there.\n"
    "Under mpirun the experiments are shared among the ranks (docs/cli.md).\n";

typedef struct net_args_t {
  drv_pipe_t *pipe; /* its options: --run-dir, --results, --memory, --max-batch, --grace */
  const char *topo, *out, *presets, *ns3cfg;
  int ns3_fct_only; /* --ns3-fct-only: run a configuration whose other outputs are not written */
  char **flows; /* owned copies */
  int n_flows, cap_flows;
  const char *sets[DRV_MAX_SETS];
  int n_sets;
  const char *sweeps[DRV_MAX_SWEEPS]; /* KEY=V1,V2,... */
  int n_sweeps;
  eng_backend_t backend;
  int threads, json, force;
  const char *trace_rates, *trace_queues;
  int trace_exp, trace_opts; /* trace_opts: --trace-exp or --trace-every-us given */
  int64_t trace_every;       /* ps; 0: the default */
} net_args_t;

static int net_add_flows(net_args_t *a, const char *path) {
  if (a->n_flows == a->cap_flows) {
    int cap = a->cap_flows ? 2 * a->cap_flows : 16;
    char **f = realloc(a->flows, (size_t)cap * sizeof *f);
    if (!f) return drv_fail(2, "multiverse net: out of memory\n");
    a->flows = f;
    a->cap_flows = cap;
  }
  a->flows[a->n_flows] = strdup(path);
  return a->flows[a->n_flows++] ? 0 : drv_fail(2, "multiverse net: out of memory\n");
}

/* --flows-from LIST: one flow file per line (relative to LIST's folder unless
 * absolute); blank lines and lines starting with '#' are skipped. */
static int net_flows_from(net_args_t *a, const char *list) {
  char why[128];
  FILE *f = base_fopen_input(list, "r", why, sizeof why);
  if (!f) return drv_fail(2, "multiverse net: cannot open %s: %s\n", list, why);
  const char *slash = strrchr(list, '/');
  int dir_len = slash ? (int)(slash - list + 1) : 0;
  char line[4096], path[8192];
  int rc = 0;
  for (int no = 1; !rc && fgets(line, sizeof line, f); no++) {
    size_t n = strcspn(line, "\r\n");
    line[n] = 0;
    const char *p = line + strspn(line, " \t");
    if (!*p || *p == '#') continue;
    if (n == sizeof line - 1) {
      rc = drv_fail(2, "multiverse net: %s:%d: line too long\n", list, no);
      break;
    }
    snprintf(path, sizeof path, "%.*s%s", *p == '/' ? 0 : dir_len, list, p);
    rc = net_add_flows(a, path);
  }
  fclose(f);
  if (!rc && a->n_flows == 0) rc = drv_fail(2, "multiverse net: %s: no flow files listed\n", list);
  return rc;
}

/* 0; 2 after printing an error; -1 after printing the help. */
static int net_parse(int argc, char **argv, net_args_t *a) {
  for (int i = 0; i < argc; i++) {
    const char *o = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
    int takes = strcmp(o, "--json") != 0 && strcmp(o, "--force") != 0 && strcmp(o, "-h") != 0 &&
                strcmp(o, "--help") != 0 && strcmp(o, "--ns3-fct-only") != 0;
    long long x;
    if (takes && !v)
      return drv_fail(2, "multiverse net: %s needs a value (multiverse net --help)\n", o);
    if (strcmp(o, "--topology") == 0)
      a->topo = v;
    else if (strcmp(o, "--flows") == 0) {
      if (net_add_flows(a, v)) return 2;
    } else if (strcmp(o, "--flows-from") == 0) {
      if (net_flows_from(a, v)) return 2;
    } else if (strcmp(o, "-o") == 0 || strcmp(o, "--out") == 0)
      a->out = v;
    else if (strcmp(o, "--presets") == 0)
      a->presets = v;
    else if (strcmp(o, "--ns3-config") == 0)
      a->ns3cfg = v;
    else if (strcmp(o, "--set") == 0) {
      if (a->n_sets == DRV_MAX_SETS) return drv_fail(2, "multiverse net: too many --set\n");
      a->sets[a->n_sets++] = v;
    } else if (strcmp(o, "--sweep") == 0) {
      if (a->n_sweeps == DRV_MAX_SWEEPS) return drv_fail(2, "multiverse net: too many --sweep\n");
      if (!strchr(v, '='))
        return drv_fail(2, "multiverse net: --sweep %s: expected KEY=V1,V2,...\n", v);
      a->sweeps[a->n_sweeps++] = v;
    } else if (strcmp(o, "--backend") == 0) {
      int be;
      if (drv_opt_backend("net", v, 0, &be)) return 2;
      a->backend = (eng_backend_t)be;
    } else if (strcmp(o, "--threads") == 0) {
      if (drv_opt_int("net", o, v, 1, DRV_MAX_THREADS, &x)) return 2;
      a->threads = (int)x;
    } else if (strcmp(o, "--trace-rates") == 0) {
      a->trace_rates = v;
    } else if (strcmp(o, "--trace-queues") == 0) {
      a->trace_queues = v;
    } else if (strcmp(o, "--trace-exp") == 0) {
      if (drv_opt_int("net", o, v, 0, DRV_MAX_EXPS - 1, &x)) return 2;
      a->trace_exp = (int)x;
      a->trace_opts = 1;
    } else if (strcmp(o, "--trace-every-us") == 0) {
      a->trace_every = base_dec_scaled(v, 6); /* whole ps, 1 ps to 1e6 s */
      if (a->trace_every < 1 || a->trace_every > TG_MAX_START_PS)
        return drv_fail(2,
                        "multiverse net: --trace-every-us %s: expected a time from 0.000001 to "
                        "1e12 us (1 ps to 1e6 s, whole ps)\n",
                        v);
      a->trace_opts = 1;
    } else if (strcmp(o, "--json") == 0 || strcmp(o, "--force") == 0) {
      *(o[2] == 'j' ? &a->json : &a->force) = 1;
      continue;
    } else if (strcmp(o, "--ns3-fct-only") == 0) {
      a->ns3_fct_only = 1;
      continue;
    } else if (!takes) {
      fputs(net_usage, stdout);
      return -1;
    } else {
      int used = drv_pipe_opt(a->pipe, o, v);
      if (used == 2) return 2;
      if (!used)
        return drv_fail(2, "multiverse net: unknown option %s (multiverse net --help)\n", o);
    }
    i++;
  }
  if (a->ns3cfg && (a->n_sweeps || a->n_flows > 1))
    return drv_fail(2, "multiverse net: --ns3-config is one experiment: no --sweep, one --flows at "
                       "most (multiverse net --help)\n");
  if (a->ns3_fct_only && !a->ns3cfg)
    return drv_fail(2, "multiverse net: --ns3-fct-only goes with --ns3-config\n");
  if (!a->ns3cfg && (!a->topo || !a->n_flows || !a->out))
    return drv_fail(2, "multiverse net: --topology, --flows (or --flows-from) and -o are required "
                       "(multiverse net --help)\n");
  if (a->trace_opts && !a->trace_rates && !a->trace_queues)
    return drv_fail(2, "multiverse net: --trace-exp and --trace-every-us need --trace-rates or "
                       "--trace-queues (what to trace)\n");
  return drv_opt_keys_once("net", "--set", a->sets, a->n_sets);
}

/* --ns3-config: its topology, flows and settings (before the --sets). */
static int net_ns3(net_args_t *a, drv_ns3_config_t *cfg) {
  static job_presets_t ps; /* to name a refused value by its line */
  char err[2400], def[4096];
  if (job_presets_load(drv_presets_file(a->presets, def, sizeof def), &ps, err, sizeof err))
    return drv_fail(2, "multiverse net: %s\n", err);
  if (drv_ns3_config(a->ns3cfg, &ps, cfg, err, sizeof err))
    return drv_fail(2, "multiverse net: %s\n", err);
  /* the command line gives what the configuration does not name (SimAI.conf names no
   * topology: SimAI takes it on its command line), or replaces it */
  const char *cli[2] = {a->topo, a->n_flows ? a->flows[0] : NULL};
  char *slot[2] = {cfg->topology, cfg->flows};
  static const char *const what[2][2] = {{"TOPOLOGY_FILE", "--topology"}, {"FLOW_FILE", "--flows"}};
  for (int k = 0; k < 2; k++) {
    if (!slot[k][0] && !cli[k])
      return drv_fail(2, "multiverse net: %s: no %s: give %s\n", a->ns3cfg, what[k][0],
                      what[k][1]);
    if (cli[k]) snprintf(slot[k], sizeof cfg->topology, "%s", cli[k]);
  }
  if (cfg->unwritten[0] && !a->ns3_fct_only)
    return drv_fail(2,
                    "multiverse net: %s: not written here: %s; give --ns3-fct-only to run it "
                    "writing FCT_OUTPUT_FILE alone (docs/ns3.md)\n",
                    a->ns3cfg, cfg->unwritten);
  if (drv_ns3_files(cfg, a->ns3cfg, err, sizeof err))
    return drv_fail(2, "multiverse net: %s\n", err);
  for (int i = 0; i < a->n_flows; i++)
    free(a->flows[i]);
  a->n_flows = 0;
  if (cfg->n_sets + a->n_sets > DRV_MAX_SETS)
    return drv_fail(2, "multiverse net: too many --set\n");
  memmove(a->sets + cfg->n_sets, a->sets, (size_t)a->n_sets * sizeof a->sets[0]);
  for (int i = 0; i < cfg->n_sets; i++)
    a->sets[i] = cfg->sets[i];
  a->n_sets += cfg->n_sets;
  a->topo = cfg->topology;
  return net_add_flows(a, cfg->flows);
}

/* DCQCN with HAS_WIN 1 and GLOBAL_T 1: every flow's window is ns-3's maxBdp,
 * the largest base RTT (whole ns) times the NIC rate (the first host's first
 * link, scratch/third.cc get_nic_rate): one more --set. */
static int net_ns3_window(const topo_t *t, const eng_params_t *p, char *kv, size_t len) {
  int64_t nic = 0, rtt = eng_largest_base_rtt(t, p);
  for (int32_t i = 0; i < t->n_nodes && !nic; i++)
    if (!t->is_switch[i] && t->port_off[i + 1] > t->port_off[i])
      nic = t->links[t->ports[t->port_off[i]].link].rate_bps;
  if (rtt < 0 || nic <= 0) return drv_fail(2, "multiverse net: no two hosts are connected\n");
  uint64_t bytes = (uint64_t)(rtt / 1000) * (uint64_t)nic / 8000000000ULL;
  snprintf(kv, len, "dcqcn_window_kb=%.17g", (double)bytes / 1024);
  return 0;
}

/* What the sink and the finish need: the experiments' flow files and swept
 * values as given, the trace, the output folder. */
typedef struct net_t {
  net_args_t a;
  drv_ns3_config_t *cfg;
  eng_trace_desc_t trace; /* of experiment a.trace_exp; every == 0: none */
  int64_t trace_first;    /* the first experiment with its id (the one that runs) */
  long n_combo;
  int *distinct; /* (n_flows) the job's flow file of each --flows (a file given twice: one) */
  drv_outdir_t od;
  int finished; /* net_finish ran */
} net_t;

static void net_prepare(void *ctx, int64_t index, drv_exp_t *x) {
  net_t *n = ctx;
  if (n->trace.every && index == n->trace_first) {
    x->desc.trace = &n->trace;
    x->desc.validated = 0; /* the batch checks the trace */
  }
}

static int net_write(void *ctx, const drv_sink_exp_t *ev, char *err, size_t errlen) {
  net_t *n = ctx;
  return drv_net_sink(ev, n->trace.every ? &n->trace : NULL, err, errlen);
}

/* An experiment's rendering (drv_net_render): its summary line, its line for
 * standard output, its messages, and what it returned (-1: out of memory). */
typedef struct net_lines_t {
  char *text[3]; /* summary, stdout, stderr */
  size_t len[3];
  int rc;
} net_lines_t;

static void render_one(const net_t *n, const drv_end_t *end, const char *out, int64_t e,
                       net_lines_t *l) {
  const net_args_t *a = &n->a;
  FILE *f[3];
  int oom = 0;
  for (int i = 0; i < 3; i++) {
    l->text[i] = NULL;
    l->len[i] = 0;
    oom |= !(f[i] = open_memstream(&l->text[i], &l->len[i]));
  }
  if (oom) {
    for (int i = 0; i < 3; i++)
      if (f[i]) fclose(f[i]);
    l->rc = -1;
    return;
  }
  char *label = drv_sweep_label(a->sweeps, a->n_sweeps, (long)(e % n->n_combo));
  int64_t je = n->distinct[e / n->n_combo] * n->n_combo + e % n->n_combo; /* in the job */
  drv_net_render_t r = {.out = out,
                        .id = end->job->id[je],
                        .index = (int)e,
                        .flows_path = a->flows[e / n->n_combo],
                        .sweep = label && *label ? label : NULL,
                        .outdir = a->out ? n->od.stage : NULL,
                        .trace = n->trace.every && e == a->trace_exp,
                        .json = a->json,
                        .may_link = a->pipe->temp_run_dir};
  l->rc = label ? drv_net_render(&r, f[0], f[1], f[2])
                : drv_fail_to(f[2], 2, "multiverse net: out of memory\n");
  free(label);
  for (int i = 0; i < 3; i++)
    if (fclose(f[i])) l->rc = -1; /* a stream that could not grow */
}

/* Every experiment rendered on the rank's threads, a stretch at a time, and
 * their lines written in order: summary.jsonl, standard output, messages.
 * Rendering stops after the stretch of the first experiment that cannot be
 * read or written (2); lines stop with it. Returns the worst. */
static int render_all(const net_t *n, const drv_end_t *end, const char *out, FILE *summary) {
  const int64_t total = (int64_t)n->a.n_flows * n->n_combo, stretch = 4096;
  net_lines_t *l = calloc((size_t)(total < stretch ? total : stretch) + 1, sizeof *l);
  if (!l) return drv_fail(2, "multiverse net: out of memory\n");
  int rc = 0;
  for (int64_t e0 = 0; e0 < total && rc < 2; e0 += stretch) {
    const int64_t m = total - e0 < stretch ? total - e0 : stretch;
#pragma omp parallel for schedule(dynamic, 8) num_threads(end->threads)
    for (int64_t i = 0; i < m; i++)
      render_one(n, end, out, e0 + i, &l[i]);
    for (int64_t i = 0; i < m; i++) {
      if (rc < 2 && l[i].rc < 0) {
        rc = drv_fail(2, "multiverse net: out of memory\n");
      } else if (rc < 2) {
        if (summary) fwrite(l[i].text[0], 1, l[i].len[0], summary);
        fwrite(l[i].text[1], 1, l[i].len[1], stdout);
        if (!drv_quiet) fwrite(l[i].text[2], 1, l[i].len[2], stderr);
        if (l[i].rc > rc) rc = l[i].rc;
      }
      for (int k = 0; k < 3; k++) {
        free(l[i].text[k]);
        l[i].text[k] = NULL;
      }
    }
  }
  free(l);
  return rc;
}

/* Rank 0 at the end: every experiment's files, summary and line, in the
 * order of --flows and --sweep; the ns-3 configuration's FCT file. */
static int net_finish(void *ctx, const drv_end_t *end) {
  net_t *n = ctx;
  const net_args_t *a = &n->a;
  char out[4300], path[4300];
  n->finished = 1;
  if (end->stopped > 0 && end->stopped < DRV_STOP_ERROR) return drv_outdir_stopped(&n->od, end->stopped);
  if (end->stopped) {
    drv_outdir_end(&n->od, DRV_OUT_FAILED);
    return 2;
  }
  snprintf(out, sizeof out, "%s/out", end->run_dir);
  snprintf(path, sizeof path, "%s/summary.jsonl", a->out ? n->od.stage : ".");
  FILE *summary = a->out ? fopen(path, "w") : NULL;
  if (a->out && !summary) {
    drv_outdir_end(&n->od, DRV_OUT_FAILED);
    return drv_fail(2, "multiverse net: cannot write %s: %s\n", path, strerror(errno));
  }
  int rc = render_all(n, end, out, summary);
  fflush(stdout);
  if (summary && fclose(summary)) rc = drv_fail(2, "multiverse net: cannot write %s\n", path);
  if (drv_outdir_end(&n->od, rc == 2 ? DRV_OUT_FAILED : DRV_OUT_DONE)) rc = 2;
  /* The FCT file the configuration names (checked by drv_ns3_files). */
  if (a->ns3cfg && rc < 2 && drv_net_fct_copy(out, end->job->id[0], n->cfg->fct)) rc = 2;
  return rc > end->status ? rc : end->status;
}

/* The job of the command line: base = the topology and the --sets; a grid
 * over the flow files (outermost) and the --sweeps, in their order. */
static char *net_job(const net_args_t *a, const int *distinct, const eng_params_t *params,
                     const job_presets_t *ps, long *n_combo) {
  json_t *net = json_object(), *grid = json_object(), *files = json_array();
  json_t *job = json_pack("{s:s,s:{s:s,s:o},s:{s:o}}", "name", "net", "base", "kind", "network",
                          "network", net, "sweep", "grid", grid);
  char *text = NULL;
  if (!job || !files || json_object_set_new(net, "topology", json_string(a->topo)) ||
      drv_sets_json(a->sets, a->n_sets, params, net)) {
    drv_fail(2, "multiverse net: out of memory\n");
    goto done;
  }
  for (int i = 0; i < a->n_flows; i++) /* each file once */
    if (distinct[i] == (int)json_array_size(files))
      json_array_append_new(files, json_string(a->flows[i]));
  json_object_set(grid, "network.flows", files);
  if (drv_sweep("net", a->sets, a->n_sets, a->sweeps, a->n_sweeps, ps, grid, n_combo)) goto done;
  if (!(text = json_dumps(job, JSON_COMPACT | JSON_PRESERVE_ORDER)))
    drv_fail(2, "multiverse net: out of memory\n");
done:
  json_decref(files);
  json_decref(job);
  return text;
}

/* A flow file with long-lived flows (htsim's size 0) runs them until the experiment's
 * end, which the user gives (htsim's -end): 0, or 2 after a message. */
static int net_open(const net_args_t *a, const char *path, const tg_t *g) {
  int32_t n = 0;
  for (int32_t i = 0; i < g->n; i++)
    n += g->t[i].kind == TG_FLOW && g->t[i].open;
  if (!n) return 0;
  for (int i = 0; i < a->n_sets; i++)
    if (strncmp(a->sets[i], "max_time_s=", 11) == 0) return 0;
  for (int i = 0; i < a->n_sweeps; i++)
    if (strncmp(a->sweeps[i], "max_time_s=", 11) == 0) return 0;
  return drv_fail(2,
                  "multiverse net: %s: %d flows of size 0 send until the experiment's end: give it, "
                  "--set max_time_s=SECONDS (htsim's -end; 0.001 by default there)\n",
                  path, n);
}

/* Every input read before anything runs, so that a mistake is one line naming
 * the file and line (exit 2): the topology, every flow file (once: a file given
 * twice is one experiment, its results reported at both places), the trace's
 * selection. */
static int net_check(net_t *n, const eng_params_t *params, char *ns3_kv, size_t kv_len) {
  net_args_t *a = &n->a;
  topo_t topo = {0};
  char err[1024];
  int rc = 0;
  if (topo_load(a->topo, &topo, err, sizeof err)) return drv_fail(2, "multiverse net: %s\n", err);
  if (topo.ignored_lines)
    fprintf(stderr, "multiverse net: %s: %d lines after the %d links announced ignored, as ns-3 "
                    "ignores them\n",
            a->topo, topo.ignored_lines, topo.n_links);
  if (n->cfg && n->cfg->dcqcn_global_window) rc = net_ns3_window(&topo, params, ns3_kv, kv_len);
  int files = 0;
  for (int i = 0; i < a->n_flows && !rc; i++) {
    int k = 0;
    while (k < i && strcmp(a->flows[i], a->flows[k]) != 0)
      k++;
    n->distinct[i] = k < i ? n->distinct[k] : files++;
    tg_t g = {0};
    int fmt;
    if (!rc && (drv_read_flows("net", a->flows[i], &topo, &g, &fmt) || net_open(a, a->flows[i], &g)))
      rc = 2;
    if (!rc && (a->trace_rates || a->trace_queues) && i == a->trace_exp / n->n_combo &&
        drv_trace_parse(a->trace_rates, a->trace_queues, a->trace_every, &topo, g.n, &n->trace))
      rc = 2;
    tg_free(&g);
  }
  topo_free(&topo);
  return rc;
}

int drv_net(int argc, char **argv) {
  static drv_ns3_config_t cfg;
  static net_t n;
  static drv_pipe_t p = {.cmd = "net"};
  net_args_t *a = &n.a;
  a->pipe = &p;
  p.o.backend = ENG_BACKEND_CPU;
  job_presets_t *ps = malloc(sizeof *ps);
  eng_params_t params;
  char *job = NULL, ns3_kv[128] = "";
  const char **inputs = NULL;
  int rc = 2;
  if (!ps) return drv_fail(2, "multiverse net: out of memory\n");
  drv_quiet = drv_launcher_rank() > 0; /* one copy of each message under mpirun */
  int parsed = net_parse(argc, argv, a);
  if (parsed) {
    rc = parsed < 0 ? 0 : 2; /* --help: printed */
    goto done;
  }
  if (a->ns3cfg && net_ns3(a, &cfg)) goto done;
  n.cfg = a->ns3cfg ? &cfg : NULL;
  if (drv_outdir_check(&n.od, "net", a->out, a->force)) /* cfg.fct: drv_ns3_files */
    goto done;
  if (drv_load_params(a->presets, a->sets, a->n_sets, ps, &params)) goto done;
  json_t *probe = json_object(); /* the sweeps checked before the inputs are read */
  int bad = !probe || drv_sweep("net", a->sets, a->n_sets, a->sweeps, a->n_sweeps, ps, probe,
                                &n.n_combo);
  json_decref(probe);
  if (bad) goto done;
  if ((long)a->n_flows * n.n_combo > DRV_MAX_EXPS) {
    drv_fail(2, "multiverse net: %d flow files x %ld combinations: over %d experiments\n",
             a->n_flows, n.n_combo, DRV_MAX_EXPS);
    goto done;
  }
  long n_exps = a->n_flows * n.n_combo;
  if ((a->trace_rates || a->trace_queues) && (a->trace_exp < 0 || a->trace_exp >= n_exps)) {
    drv_fail(2, "multiverse net: --trace-exp %d: there are %ld experiments\n", a->trace_exp,
             n_exps);
    goto done;
  }
  if (a->backend == ENG_BACKEND_CUDA && !eng_cuda_available()) {
    drv_fail(2, "multiverse net: --backend cuda: %s\n", eng_cuda_unavailable_reason());
    goto done;
  }
  if (!(n.distinct = calloc((size_t)a->n_flows + 1, sizeof *n.distinct))) {
    drv_fail(2, "multiverse net: out of memory\n");
    goto done;
  }
  if (net_check(&n, &params, ns3_kv, sizeof ns3_kv)) goto done;
  if (ns3_kv[0]) { /* DCQCN's global window: one more --set */
    if (a->n_sets == DRV_MAX_SETS) {
      drv_fail(2, "multiverse net: too many --set\n");
      goto done;
    }
    a->sets[a->n_sets++] = ns3_kv;
    if (drv_load_params(a->presets, a->sets, a->n_sets, ps, &params)) goto done;
  }
  if (!(job = net_job(a, n.distinct, &params, ps, &n.n_combo))) goto done;
  /* The experiment a trace follows, as the job numbers it. */
  n.trace_first = (int64_t)n.distinct[a->trace_exp / n.n_combo] * n.n_combo + a->trace_exp % n.n_combo;
  p.o.job = "net";
  p.o.presets = a->presets;
  p.o.backend = a->backend;
  p.o.threads = a->threads;
  p.job_text = job;
  p.job_dir = ".";
  if (!(inputs = calloc((size_t)a->n_flows + 3, sizeof *inputs))) {
    drv_fail(2, "multiverse net: out of memory\n");
    goto done;
  }
  for (int i = 0; i < a->n_flows; i++) /* what --results may not overwrite */
    inputs[p.n_inputs++] = a->flows[i];
  inputs[p.n_inputs++] = a->topo;
  if (a->ns3cfg) inputs[p.n_inputs++] = a->ns3cfg;
  p.inputs = inputs;
  if (drv_pipe_front(&p)) goto done;
  p.sink = (drv_sink_t){.ctx = &n, .prepare = net_prepare, .write = net_write};
  p.finish = net_finish;
  p.finish_ctx = &n;
  n.od.no_signals = 1;
  if (drv_launcher_rank() <= 0 && drv_outdir_begin(&n.od, argc, argv)) goto done;
  drv_quiet = 0;
  rc = drv_pipe_run(&p, argc, argv);
  if (!n.finished) drv_outdir_end(&n.od, DRV_OUT_NOTHING); /* nothing ran */
done:
  free(job);
  free(inputs);
  free(n.distinct);
  for (int i = 0; i < a->n_flows; i++)
    free(a->flows[i]);
  free(a->flows);
  free((void *)n.trace.flows);
  free((void *)n.trace.ports);
  free(ps);
  return rc;
}
