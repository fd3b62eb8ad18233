/* `multiverse collective`: the time, algbw and busbw of one NCCL collective
 * per size, as nccl-tests reports them: inside a server from the intra-server
 * model, across servers through the packet-level network; every size and
 * --sweep variant one experiment of one batch. */
#define _POSIX_C_SOURCE 200809L
#include <ctype.h>
#include <errno.h>
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "driver/drv_coll.h"
#include "train/trn.h"

#define COLL_MAX_SIZES 4096

static const char coll_usage[] =
    "usage: multiverse collective --op OP --bytes SIZES --gpus N [--gpu NAME]\n"
    "                             [--gpus-per-server G] [--nics-per-server K] [--nic-gbps R]\n"
    "                             [--topology TOPO] [--algo ring|tree] [--channels C]\n"
    "                             [--chunk-bytes B] [--set KEY=VALUE ...]\n"
    "                             [--sweep KEY=V1,V2,... ...] [--calibration FILE.json]\n"
    "                             [--presets FILE] [--backend cpu|cuda] [--threads T] [--json]\n"
    "  OP      allreduce, allgather, reducescatter, alltoall, broadcast, reduce, sendrecv\n"
    "  SIZES   nccl-tests sizes, comma-separated (1M,16M,1G: K, M, G, T are powers of 1024),\n"
    "          or MIN:MAX, every power of two times MIN up to MAX\n"
    "  N       GPUs; they fill servers of G GPUs in order (default: the GPU's server)\n"
    "  NAME    GPU type of the intra-server model and server shape (default h200)\n"
    "  TOPO    as `multiverse net`; default: a non-blocking rail-optimized fabric of the\n"
    "          servers' NICs (docs/collectives.md)\n"
    "                             [--results FILE.nc] [--run-dir DIR] [--memory GB]\n"
    "prints, per size (and variant), the time of one collective and its algbw and busbw\n"
    "(GB/s, nccl-tests' conventions); --json: one object per line with the network counters\n"
    "--results FILE.nc: every experiment's row in a NetCDF file; its run folder (FILE.run, or\n"
    "--run-dir DIR) keeps the finished batches, and rerunning the command continues there\n";

/* "1M" -> 1048576; 0 on error or past TG_MAX_BYTES (1 TiB, a flow's most). */
static uint64_t parse_size(const char *s, const char **end) {
  char *e;
  errno = 0;
  unsigned long long v = strtoull(s, &e, 10);
  if (e == s || errno || *s == '-') return 0;
  int shift = 0;
  switch (toupper((unsigned char)*e)) {
  case 'K':
    shift = 10;
    break;
  case 'M':
    shift = 20;
    break;
  case 'G':
    shift = 30;
    break;
  case 'T':
    shift = 40;
    break;
  default:
    break;
  }
  if (shift) e++;
  if (v == 0 || v > TG_MAX_BYTES >> shift) return 0;
  *end = e;
  return (uint64_t)v << shift;
}

static int parse_sizes(const char *s, drv_coll_args_t *a) {
  const char *e;
  uint64_t lo = parse_size(s, &e);
  if (lo && *e == ':') {
    uint64_t hi = parse_size(e + 1, &e);
    if (!hi || *e || hi < lo)
      return drv_fail(2, "multiverse collective: --bytes %s: expected MIN:MAX, MIN <= MAX <= 1T\n",
                      s);
    for (uint64_t x = lo; x <= hi && a->n_sizes < COLL_MAX_SIZES; x *= 2) {
      a->sizes[a->n_sizes++] = x;
      if (x > hi / 2) break;
    }
    return 0;
  }
  for (const char *p = s;;) {
    uint64_t v = parse_size(p, &e);
    if (!v || (*e && *e != ','))
      return drv_fail(2,
                      "multiverse collective: --bytes %s: expected sizes like 1M,16M,1G or "
                      "MIN:MAX (1 byte to 1T; K, M, G, T: powers of 1024)\n",
                      s);
    if (a->n_sizes == COLL_MAX_SIZES)
      return drv_fail(2, "multiverse collective: --bytes: more than %d sizes\n", COLL_MAX_SIZES);
    for (int k = 0; k < a->n_sizes; k++) /* it ran the same experiment twice */
      if (a->sizes[k] == v)
        return drv_fail(2,
                        "multiverse collective: --bytes %s: %llu bytes are given twice: give "
                        "each size once\n",
                        s, (unsigned long long)v);
    a->sizes[a->n_sizes++] = v;
    if (!*e) return 0;
    p = e + 1;
  }
}

static int parse_count(const char *o, const char *v, int64_t lo, int64_t hi, int64_t *out) {
  long long x;
  if (drv_opt_int("collective", o, v, lo, hi, &x)) return 2;
  *out = x;
  return 0;
}

/* 0; 2 after printing an error; -1 after printing the help. */
static int coll_parse(int argc, char **argv, drv_coll_args_t *a) {
  static const char *const flags[] = {"--json", "-h", "--help", NULL};
  for (int i = 0; i < argc; i++) {
    const char *o = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
    int flag = 0;
    for (int k = 0; flags[k]; k++)
      flag |= strcmp(o, flags[k]) == 0;
    if (!flag && !v)
      return drv_fail(2, "multiverse collective: %s needs a value (multiverse collective --help)\n",
                      o);
    int64_t x = 0;
    if (strcmp(o, "--json") == 0) {
      a->json = 1;
      continue;
    } else if (flag) {
      fputs(coll_usage, stdout);
      return -1;
    } else if (strcmp(o, "--op") == 0) {
      if ((a->kind = coll_kind_parse(v)) < 0)
        return drv_fail(2,
                        "multiverse collective: --op %s: expected allreduce, allgather, "
                        "reducescatter, alltoall, broadcast, reduce or sendrecv\n",
                        v);
    } else if (strcmp(o, "--bytes") == 0) {
      if (parse_sizes(v, a)) return 2;
    } else if (strcmp(o, "--gpus") == 0) {
      if (parse_count(o, v, 2, 1 << 24, &x)) return 2;
      a->gpus = (int32_t)x;
    } else if (strcmp(o, "--gpu") == 0) {
      a->gpu_name = v;
    } else if (strcmp(o, "--gpus-per-server") == 0) {
      if (parse_count(o, v, 1, COLL_MAX_SERVER_GPUS, &x)) return 2;
      a->gps = (int32_t)x;
    } else if (strcmp(o, "--nics-per-server") == 0) {
      if (parse_count(o, v, 1, 1024, &x)) return 2;
      a->nics = (int32_t)x;
    } else if (strcmp(o, "--nic-gbps") == 0) {
      if (drv_opt_real("collective", o, v, 1, 1e6, "Gb/s", &a->nic_gbps)) return 2;
    } else if (strcmp(o, "--topology") == 0) {
      a->topo = v;
    } else if (strcmp(o, "--algo") == 0) {
      if (strcmp(v, "ring") && strcmp(v, "tree"))
        return drv_fail(2, "multiverse collective: --algo %s: expected ring or tree\n", v);
      a->algo = strcmp(v, "tree") == 0 ? COLL_TREE : COLL_RING;
    } else if (strcmp(o, "--channels") == 0) {
      if (parse_count(o, v, 1, 1024, &x)) return 2;
      a->channels = (int32_t)x;
    } else if (strcmp(o, "--chunk-bytes") == 0) {
      const char *e;
      if (!(a->chunk = parse_size(v, &e)) || *e)
        return drv_fail(2, "multiverse collective: --chunk-bytes %s: expected 1 byte to 1T\n", v);
    } else if (strcmp(o, "--set") == 0) {
      if (a->n_sets == DRV_MAX_SETS) return drv_fail(2, "multiverse collective: too many --set\n");
      a->sets[a->n_sets++] = v;
    } else if (strcmp(o, "--sweep") == 0) {
      if (a->n_sweeps == DRV_MAX_SWEEPS)
        return drv_fail(2, "multiverse collective: too many --sweep\n");
      if (!strchr(v, '='))
        return drv_fail(2, "multiverse collective: --sweep %s: expected KEY=V1,V2,...\n", v);
      a->sweeps[a->n_sweeps++] = v;
    } else if (strcmp(o, "--calibration") == 0) {
      a->calibration = v;
    } else if (strcmp(o, "--presets") == 0) {
      a->presets = v;
    } else if (strcmp(o, "--backend") == 0) {
      int be;
      if (drv_opt_backend("collective", v, 0, &be)) return 2;
      a->backend = (eng_backend_t)be;
    } else if (strcmp(o, "--threads") == 0) {
      if (parse_count(o, v, 1, DRV_MAX_THREADS, &x)) return 2;
      a->threads = (int32_t)x;
    } else {
      int used = drv_pipe_opt(a->pipe, o, v);
      if (used == 2) return 2;
      if (!used)
        return drv_fail(
            2, "multiverse collective: unknown option %s (multiverse collective --help)\n", o);
    }
    i++;
  }
  if (a->topo && a->nic_gbps > 0) /* it was ignored, and the header showed it */
    return drv_fail(2,
                    "multiverse collective: --nic-gbps: the links of --topology %s set the "
                    "rates; give one of them\n",
                    a->topo);
  if (a->kind < 0 || !a->n_sizes || !a->gpus)
    return drv_fail(2, "multiverse collective: --op, --bytes and --gpus are required "
                       "(multiverse collective --help)\n");
  if (a->algo == COLL_TREE && a->kind != COLL_ALLREDUCE)
    return drv_fail(2, "multiverse collective: --algo tree: only for allreduce\n");
  if (a->kind == COLL_SENDRECV && a->gpus != 2)
    return drv_fail(2, "multiverse collective: --op sendrecv: needs --gpus 2\n");
  return drv_opt_keys_once("collective", "--set", a->sets, a->n_sets);
}

/* The server shape: the options, else the GPU preset's server (NICs in the
 * preset's ratio to GPUs when --gpus-per-server differs from it). */
static int coll_shape(drv_coll_args_t *a) {
  trn_presets_t tp;
  char err[1024];
  const char *name = a->gpu_name ? a->gpu_name : "h200";
  snprintf(a->gpu, sizeof a->gpu, "%s", name);
  int have = a->gps && a->nics && (a->nic_gbps > 0 || a->topo); /* --topology: its rates */
  if (trn_presets_load(&tp, NULL, err, sizeof err)) {
    if (!have) return drv_fail(2, "multiverse collective: %s\n", err);
  } else {
    const trn_gpu_t *g = trn_preset_gpu(&tp, name);
    if (g) {
      snprintf(a->gpu, sizeof a->gpu, "%s", g->name);
      if (!a->gps) a->gps = (int32_t)g->gpus_per_server;
      if (!a->nics) {
        int64_t k = (int64_t)a->gps * g->nics_per_server / g->gpus_per_server;
        a->nics = (int32_t)(k > 0 ? k : 1);
      }
      if (!(a->nic_gbps > 0)) a->nic_gbps = g->nic_gbps;
    }
    trn_presets_free(&tp);
    if (!g && !have)
      return drv_fail(2,
                      "multiverse collective: --gpu %s: not a GPU of the presets (gpus.json); "
                      "give --gpus-per-server, --nics-per-server and --nic-gbps\n",
                      name);
  }
  if (a->gpus > a->gps && a->gpus % a->gps)
    return drv_fail(2,
                    "multiverse collective: --gpus %d spans servers of %d GPUs: it must be a "
                    "multiple of %d\n",
                    a->gpus, a->gps, a->gps);
  a->servers = (a->gpus + a->gps - 1) / a->gps;
  a->per = a->gpus < a->gps ? a->gpus : a->gps;
  return 0;
}

/* The topology: --topology, else rail-optimized with one group of all servers
 * and as many spines as servers (every rail switch as many uplinks as hosts). */
static int coll_topology(drv_coll_args_t *a, topo_t *t) {
  char err[1024];
  if (a->topo) {
    if (topo_load(a->topo, t, err, sizeof err))
      return drv_fail(2, "multiverse collective: %s\n", err);
  } else {
    json_t *o = json_pack("{s:s,s:i,s:i,s:i,s:f,s:f}", "kind", "rail_optimized", "servers",
                          a->servers, "nics_per_server", a->nics, "spines", a->servers, "link_gbps",
                          a->nic_gbps, "host_gbps", a->nic_gbps);
    if (!o) return drv_fail(2, "multiverse collective: out of memory\n");
    int rc = topo_from_json(o, "default topology", t, err, sizeof err);
    a->topo_json = json_dumps(o, JSON_COMPACT | JSON_SORT_KEYS);
    json_decref(o);
    if (rc) /* the default fabric is made from the options: name them */
      return drv_fail(2,
                      "multiverse collective: --gpus %d: %d server%s of %d GPUs and %d NICs: the "
                      "default topology cannot hold them (%s)\n",
                      a->gpus, a->servers, a->servers > 1 ? "s" : "", a->gps, a->nics, err);
  }
  int64_t need = (int64_t)a->servers * a->nics;
  if (t->n_hosts < need)
    return drv_fail(2,
                    "multiverse collective: %s: %d hosts, and %d servers of %d NICs need %lld "
                    "(hosts server * nics + nic)\n",
                    a->topo ? a->topo : "default topology", t->n_hosts, a->servers, a->nics,
                    (long long)need);
  return 0;
}

/* Every size makes a graph (not kept): a size the collective cannot take is a
 * mistake of the command line, before anything runs. */
static int coll_sizes_check(const drv_coll_args_t *a, const coll_model_t *m, int64_t sync_ps) {
  char err[1024];
  int32_t *gpus = malloc((size_t)a->gpus * sizeof *gpus), *done = malloc((size_t)a->gpus * sizeof *done);
  int rc = gpus && done ? 0 : drv_fail(2, "multiverse collective: out of memory\n");
  for (int32_t i = 0; !rc && i < a->gpus; i++)
    gpus[i] = i;
  coll_cluster_t cl = {.gpus_per_server = a->gps,
                       .nics_per_server = a->nics,
                       .gpu = a->gpu,
                       .model = m,
                       .sync_ps = sync_ps};
  for (int s = 0; !rc && s < a->n_sizes; s++) {
    for (int k = 0; k < s && !rc; k++)
      if (a->sizes[k] == a->sizes[s])
        rc = drv_fail(2, "multiverse collective: --bytes: %llu is given twice\n",
                      (unsigned long long)a->sizes[s]);
    tg_t g = {.max = drv_graph_max_tasks()}; /* sizes before work: half the memory */
    coll_desc_t d = {.kind = a->kind,
                     .algo = a->algo,
                     .bytes = a->sizes[s],
                     .channels = a->channels,
                     .chunk_bytes = a->chunk};
    if (!rc && coll_append(&g, &cl, &d, a->gpus, gpus, NULL, done, err, sizeof err))
      rc = (g.max > 0 && g.n >= g.max) || strstr(err, "out of memory")
               ? drv_fail(2,
                          "multiverse collective: --gpus %d: the collective's task graph passes "
                          "what this process's memory holds (%d tasks and flows built): fewer "
                          "GPUs, or more GPUs per server\n",
                          a->gpus, g.n)
               : drv_fail(2, "multiverse collective: --bytes %llu: %s\n",
                          (unsigned long long)a->sizes[s], err);
    tg_free(&g);
  }
  free(gpus);
  free(done);
  return rc;
}

/* The job of the command line: base = the collective, its servers and the
 * network; a grid over the --sweeps (in their order) and the sizes (fastest). */
static char *coll_job(const drv_coll_args_t *a, const eng_params_t *params,
                      const job_presets_t *ps) {
  json_t *net = json_object(), *grid = json_object(), *sizes = json_array();
  json_t *job = json_pack(
      "{s:s,s:{s:s,s:{s:s,s:i,s:s,s:i,s:I},s:{s:s,s:i,s:i,s:f},s:o},s:{s:o}}", "name",
      "collective", "base", "kind", "collective", "collective", "op", coll_name(a->kind), "gpus",
      a->gpus, "algo", a->algo == COLL_TREE ? "tree" : "ring", "channels", a->channels,
      "chunk_bytes", (json_int_t)a->chunk, "cluster", "gpu", a->gpu, "gpus_per_server", a->gps,
      "nics_per_server", a->nics, "nic_gbps", a->nic_gbps, "network", net, "sweep", "grid", grid);
  char *text = NULL;
  long combos;
  if (!job || !sizes || (a->topo && json_object_set_new(net, "topology", json_string(a->topo))) ||
      drv_sets_json(a->sets, a->n_sets, params, net) ||
      (a->calibration && json_object_set_new(json_object_get(job, "base"), "calibration",
                                             json_string(a->calibration)))) {
    drv_fail(2, "multiverse collective: out of memory\n");
    goto done;
  }
  if (drv_sweep("collective", a->sets, a->n_sets, a->sweeps, a->n_sweeps, ps, grid, &combos))
    goto done;
  if (combos * a->n_sizes > DRV_MAX_EXPS) {
    drv_fail(2, "multiverse collective: over %d experiments\n", DRV_MAX_EXPS);
    goto done;
  }
  for (int s = 0; s < a->n_sizes; s++)
    json_array_append_new(sizes, json_integer((json_int_t)a->sizes[s]));
  json_object_set(grid, "collective.bytes", sizes);
  if (!(text = json_dumps(job, JSON_COMPACT | JSON_PRESERVE_ORDER)))
    drv_fail(2, "multiverse collective: out of memory\n");
done:
  json_decref(sizes);
  json_decref(job);
  return text;
}

typedef struct coll_run_t {
  drv_coll_args_t *a;
  coll_model_t model;
} coll_run_t;

static int coll_write(void *ctx, const drv_sink_exp_t *ev, char *err, size_t errlen) {
  (void)ctx;
  return drv_coll_sink(ev, err, errlen);
}

static int coll_finish(void *ctx, const drv_end_t *end) {
  coll_run_t *c = ctx;
  char out[4300];
  if (end->stopped) return end->status;
  snprintf(out, sizeof out, "%s/out", end->run_dir);
  drv_coll_report_t r = {.a = c->a, .model = &c->model, .job = end->job, .out = out};
  int rc = drv_coll_print(&r);
  fflush(stdout);
  return rc > end->status ? rc : end->status;
}

int drv_collective(int argc, char **argv) {
  static drv_coll_args_t a = {.kind = -1};
  static coll_run_t c = {.a = &a};
  static drv_pipe_t p = {.cmd = "collective"};
  char err[1024];
  int rc = 2;
  job_presets_t *ps = malloc(sizeof *ps);
  eng_params_t params;
  topo_t topo = {0};
  char *job = NULL;
  a.pipe = &p;
  a.sizes = malloc(COLL_MAX_SIZES * sizeof *a.sizes);
  drv_quiet = drv_launcher_rank() > 0; /* one copy of each message under mpirun */
  if (!ps || !a.sizes) {
    drv_fail(2, "multiverse collective: out of memory\n");
    goto done;
  }
  int parsed = coll_parse(argc, argv, &a);
  if (parsed) {
    rc = parsed < 0 ? 0 : 2;
    goto done;
  }
  if (coll_shape(&a) || drv_load_params(a.presets, a.sets, a.n_sets, ps, &params)) goto done;
  if (a.backend == ENG_BACKEND_CUDA && !eng_cuda_available()) {
    drv_fail(2, "multiverse collective: --backend cuda: %s\n", eng_cuda_unavailable_reason());
    goto done;
  }
  if (coll_model_load_default(&c.model, NULL, a.calibration, err, sizeof err)) {
    drv_fail(2, "multiverse collective: %s\n", err);
    goto done;
  }
  if (coll_topology(&a, &topo) || coll_sizes_check(&a, &c.model, params.sync)) goto done;
  if (!(job = coll_job(&a, &params, ps))) goto done;
  p.o.job = "collective";
  p.o.presets = a.presets;
  p.o.backend = a.backend;
  p.o.threads = a.threads;
  p.job_text = job;
  p.job_dir = ".";
  if (drv_pipe_front(&p)) goto done;
  p.sink = (drv_sink_t){.ctx = &c, .write = coll_write};
  p.finish = coll_finish;
  p.finish_ctx = &c;
  drv_quiet = 0;
  rc = drv_pipe_run(&p, argc, argv);
done:
  topo_free(&topo);
  coll_model_free(&c.model);
  free(job);
  free(a.sizes);
  free(a.topo_json);
  free(ps);
  return rc;
}
