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

#include "sim/eng_file.h"
#include "driver/drv.h"
#include "sim/eng_num.h"
#include "traffic/trf.h"

static const char net_usage[] =
    "usage: multiverse net --topology TOPO --flows FLOWS [--flows FLOWS2 ...] [--flows-from LIST]\n"
    "                      [--set KEY=VALUE ...] [--sweep KEY=V1,V2,... ...]\n"
    "                      [--backend cpu|cuda] [--threads N]\n"
    "                      [--json] [--trace-rates FLOW,...] [--trace-queues NODE:PEER,...]\n"
    "                      [--trace-exp N] [--trace-every-us US] -o OUTDIR [--force]\n"
    "       multiverse net --ns3-config CONFIG [--set KEY=VALUE ...] [--backend ...] [-o OUTDIR]\n"
    "  TOPO   ns-3 HPCC topology file, or a .json file with a topology object\n"
    "  FLOWS  ns-3 HPCC flow file, htsim connection matrix (.cm) or JSON task graph\n"
    "         (told apart by content); each one is an experiment, all run as one batch\n"
    "  LIST   a file naming flow files, one per line (relative to its folder)\n"
    "  --set  network parameter (docs/parameters.md), e.g. --set pfc=false\n"
    "  --sweep KEY=V1,V2,...  every flow file runs once per value (several --sweep: every\n"
    "         combination, the first varying slowest), all in the same batch\n"
    "writes OUTDIR/fct-N.txt per experiment (ns-3 HPCC format; a task graph's flows in\n"
    "task order, and every task's times in OUTDIR/tasks-N.txt) and OUTDIR/summary.jsonl;\n"
    "prints one summary line per experiment (one JSON object per line with --json);\n"
    "CONFIG: an ns-3 HPCC simulator configuration (scratch/third.cc keys), run as ns-3\n"
    "would with the preset ns3_hpcc: its TOPOLOGY_FILE, FLOW_FILE and settings; writes its\n"
    "FCT_OUTPUT_FILE (paths relative to the current directory, as ns-3 reads them)\n"
    "--trace-*: time series of experiment N (default 0) in OUTDIR/trace-N.csv: bytes\n"
    "delivered and CC state of flows (task indices: file order), data queue of the port of NODE\n"
    "towards PEER, every US microseconds (default 10)\n"
    "OUTDIR: a new folder, or one without an earlier run; --force replaces an earlier run\n"
    "(docs/cli.md: Output folders). Each key is given once; `cc` applies before the other keys.\n";

typedef struct net_args_t {
  const char *topo, *out, *presets, *ns3cfg;
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
  FILE *f = eng_fopen_input(list, "r", why, sizeof why);
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
                strcmp(o, "--help") != 0;
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
      a->trace_every = trf_parse_decimal(v, 6); /* whole ps, 1 ps to 1e6 s */
      if (a->trace_every < 1 || a->trace_every > TG_MAX_START_PS)
        return drv_fail(2,
                        "multiverse net: --trace-every-us %s: expected a time from 0.000001 to "
                        "1e12 us (1 ps to 1e6 s, whole ps)\n",
                        v);
      a->trace_opts = 1;
    } else if (strcmp(o, "--json") == 0 || strcmp(o, "--force") == 0) {
      *(o[2] == 'j' ? &a->json : &a->force) = 1;
      continue;
    } else if (!takes) {
      fputs(net_usage, stdout);
      return -1;
    } else {
      return drv_fail(2, "multiverse net: unknown option %s (multiverse net --help)\n", o);
    }
    i++;
  }
  if (a->ns3cfg && (a->topo || a->n_flows || a->n_sweeps))
    return drv_fail(2, "multiverse net: --ns3-config names the topology and flows: no --topology, "
                       "--flows or --sweep (multiverse net --help)\n");
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
  if (drv_ns3_config(a->ns3cfg, &ps, cfg, err, sizeof err) ||
      drv_ns3_files(cfg, a->ns3cfg, err, sizeof err))
    return drv_fail(2, "multiverse net: %s\n", err);
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
 * link, scratch/third.cc get_nic_rate). */
static int net_ns3_window(const topo_t *t, const job_presets_t *ps, eng_params_t *p) {
  int64_t nic = 0, rtt = eng_largest_base_rtt(t, p);
  for (int32_t i = 0; i < t->n_nodes && !nic; i++)
    if (!t->is_switch[i] && t->port_off[i + 1] > t->port_off[i])
      nic = t->links[t->ports[t->port_off[i]].link].rate_bps;
  if (rtt < 0 || nic <= 0) return drv_fail(2, "multiverse net: no two hosts are connected\n");
  uint64_t bytes = (uint64_t)(rtt / 1000) * (uint64_t)nic / 8000000000ULL;
  char kv[80], err[512];
  snprintf(kv, sizeof kv, "dcqcn_window_kb=%.17g", (double)bytes / 1024);
  if (job_param_set(ps, p, kv, err, sizeof err)) return drv_fail(2, "multiverse net: %s\n", err);
  return 0;
}

/* Experiment ids: the canonical experiment ({"kind":"network","network":{
 * "topology": TOPO, "flows": FLOWS, every parameter}}, paths as given) and the
 * content of the files it names (jobs/job_id.c). */
static int net_ids(const net_args_t *a, int n_combo, const eng_params_t *combo, uint64_t *ids) {
  char err[1024];
  int rc = 0;
  job_digests_t *cache = job_digests_new();
  if (!cache) return drv_fail(2, "multiverse net: out of memory\n");
  for (int e = 0; !rc && e < a->n_flows * n_combo; e++) {
    job_exp_t x = {.topology_file = (char *)a->topo, /* borrowed, not freed */
                   .flows_file = a->flows[e / n_combo],
                   .params = combo[e % n_combo]};
    if (job_exp_id(&x, NULL, cache, &ids[e], err, sizeof err))
      rc = drv_fail(2, "multiverse net: %s\n", err);
  }
  job_digests_free(cache);
  return rc;
}

int drv_net(int argc, char **argv) {
  net_args_t a = {0};
  char err[1024];
  int rc = 2;
  topo_t topo = {0};
  job_presets_t *ps = malloc(sizeof *ps);
  static drv_ns3_config_t cfg;
  eng_params_t params, *combo = NULL;
  char **labels = NULL;
  int n_combo = 0, n_exps = 0;
  tg_t *tasks = NULL;
  int *graph = NULL; /* per flows file: 1 for a task graph (.cm, JSON) */
  uint64_t *ids = NULL;
  eng_exp_desc_t *ex = NULL;
  eng_batch_t *b = NULL;
  eng_trace_desc_t trace = {0};
  FILE *summary = NULL;
  drv_outdir_t od;
  char path[4096];
  if (!ps) {
    drv_fail(2, "multiverse net: out of memory\n");
    goto fail_args;
  }
  int parsed = net_parse(argc, argv, &a);
  if (parsed) {
    rc = parsed < 0 ? 0 : 2; /* --help: printed */
    goto fail_args;
  }
  if (a.ns3cfg && net_ns3(&a, &cfg)) goto fail_args;
  if (drv_outdir_check(&od, "net", a.out, a.force)) goto fail_args; /* cfg.fct: drv_ns3_files */
  if (drv_load_params(a.presets, a.sets, a.n_sets, ps, &params)) goto fail_args;
  if (drv_sweep("net", a.sets, a.n_sets, a.sweeps, a.n_sweeps, ps, &n_combo, &combo, &labels))
    goto fail_args;
  if ((long)a.n_flows * n_combo > DRV_MAX_EXPS) {
    drv_fail(2, "multiverse net: %d flow files x %d combinations: over %d experiments\n", a.n_flows,
             n_combo, DRV_MAX_EXPS);
    goto fail_args;
  }
  n_exps = a.n_flows * n_combo;
  if ((a.trace_rates || a.trace_queues) && (a.trace_exp < 0 || a.trace_exp >= n_exps)) {
    drv_fail(2, "multiverse net: --trace-exp %d: there are %d experiments\n", a.trace_exp, n_exps);
    goto fail_args;
  }
  if (a.backend == ENG_BACKEND_CUDA && !eng_cuda_available()) {
    drv_fail(2, "multiverse net: --backend cuda: %s\n", eng_cuda_unavailable_reason());
    goto fail_args;
  }
  if (topo_load(a.topo, &topo, err, sizeof err)) {
    drv_fail(2, "multiverse net: %s\n", err);
    goto fail_topo;
  }
  if (topo.ignored_lines)
    fprintf(stderr,
            "multiverse net: %s: %d lines after the %d links announced ignored, as ns-3 "
            "ignores them\n",
            a.topo, topo.ignored_lines, topo.n_links);
  if (cfg.dcqcn_global_window && net_ns3_window(&topo, ps, &combo[0])) goto fail_topo;
  tasks = calloc((size_t)a.n_flows, sizeof *tasks);
  ex = calloc((size_t)n_exps, sizeof *ex);
  ids = calloc((size_t)n_exps, sizeof *ids);
  graph = calloc((size_t)a.n_flows, sizeof *graph);
  if (!tasks || !ex || !ids || !graph) {
    drv_fail(2, "multiverse net: out of memory\n");
    goto fail_tasks;
  }
  for (int i = 0; i < a.n_flows; i++) {
    int fmt;
    if (drv_read_flows("net", a.flows[i], &topo, &tasks[i], &fmt)) goto fail_tasks;
    graph[i] = fmt != TRF_FORMAT_NS3;
  }
  if (net_ids(&a, n_combo, combo, ids)) goto fail_tasks;
  for (int e = 0; e < n_exps; e++)
    ex[e] = (eng_exp_desc_t){
        .topo = &topo, .tasks = &tasks[e / n_combo], .params = &combo[e % n_combo], .seed = ids[e]};
  if (a.trace_rates || a.trace_queues) {
    if (drv_trace_parse(a.trace_rates, a.trace_queues, a.trace_every, &topo,
                        tasks[a.trace_exp / n_combo].n, &trace))
      goto fail_tasks;
    ex[a.trace_exp].trace = &trace;
  }
  eng_batch_desc_t bd = {n_exps, ex};
  if (eng_batch_create(&bd, &b, err, sizeof err)) {
    drv_fail(2, "multiverse net: %s\n", err);
    goto fail_tasks;
  }
  if (eng_env_flag("MULTIVERSE_VERBOSE"))
    fprintf(stderr, "world: %lld bytes, %.0f per experiment\n", (long long)eng_batch_bytes(b),
            (double)eng_batch_bytes(b) / n_exps);
  eng_run_desc_t run = {a.backend, a.threads};
  if (drv_outdir_begin(&od, argc, argv)) goto fail_run;
  double t0 = omp_get_wtime();
  if (eng_batch_run(b, &run, err, sizeof err)) {
    drv_fail(2, "multiverse net: %s\n", err);
    drv_outdir_end(&od, DRV_OUT_NOTHING);
    goto fail_run;
  }
  double wall = omp_get_wtime() - t0;
  const char *outdir = a.out ? od.stage : NULL; /* results: staged */
  snprintf(path, sizeof path, "%s/summary.jsonl", a.out ? od.stage : ".");
  summary = a.out ? fopen(path, "w") : NULL;
  if (a.out && !summary) {
    drv_fail(2, "multiverse net: cannot write %s: %s\n", path, strerror(errno));
    drv_outdir_end(&od, DRV_OUT_FAILED);
    goto fail_run;
  }
  rc = 0;
  for (int e = 0; e < n_exps; e++) {
    int i = e / n_combo, c = e % n_combo;
    drv_net_report_t r = {e,         a.flows[i], labels[c][0] ? labels[c] : NULL,
                          &topo,     &tasks[i],  graph[i],
                          &combo[c], ids[e],     wall,
                          a.backend};
    int wr = drv_net_write(b, &r, outdir, a.json, summary);
    if (wr > rc) rc = wr;
  }
  if (summary && fclose(summary)) rc = drv_fail(2, "multiverse net: cannot write %s\n", path);
  if (trace.every && a.out && drv_trace_write(b, a.trace_exp, &trace, &topo, outdir)) rc = 2;
  if (drv_outdir_end(&od, rc == 2 ? DRV_OUT_FAILED : DRV_OUT_DONE)) rc = 2;
  if (a.ns3cfg) { /* the FCT file the configuration names, by the output rule */
    drv_net_report_t r = {0,        a.flows[0], NULL,   &topo, &tasks[0],
                          graph[0], &combo[0],  ids[0], wall,  a.backend};
    drv_out_t fo;
    if (drv_out_open(&fo, cfg.fct, err, sizeof err)) {
      rc = drv_fail(2, "multiverse net: %s\n", err);
    } else if (drv_net_fct(b, &r, fo.tmp)) {
      drv_out_abort(&fo);
      rc = 2;
    } else if (drv_out_commit(&fo, err, sizeof err)) {
      rc = drv_fail(2, "multiverse net: %s\n", err);
    }
  }
fail_run:
  eng_batch_destroy(b);
fail_tasks:
  for (int i = 0; tasks && i < a.n_flows; i++) /* calloc'd: unread ones are empty */
    tg_free(&tasks[i]);
  free(tasks);
  free(graph);
  free(ex);
  free(ids);
  free((void *)trace.flows);
  free((void *)trace.ports);
fail_topo:
  topo_free(&topo);
fail_args:
  for (int i = 0; i < a.n_flows; i++)
    free(a.flows[i]);
  free(a.flows);
  for (int c = 0; labels && c < n_combo; c++)
    free(labels[c]);
  free(labels);
  free(combo);
  free(ps);
  return rc;
}
