/* The launch shape of a batch in the CUDA backend (eng_cuda.cu includes it
 * after the kernels): the experiment kernel for a block size and cluster, how
 * many of a shape are resident at once, the lane groups in the order blocks
 * take them, and the launch mode with its shape (eng_shape.c models the
 * makespan). Host code. */
/* An experiment's shape, to put experiments alike side by side in lanes. */
typedef struct cu_shape_t {
  int32_t nodes, ports, tasks, flows, e;
} cu_shape_t;

static int cu_shape_cmp(const void *a, const void *b) {
  const cu_shape_t *x = (const cu_shape_t *)a, *y = (const cu_shape_t *)b;
  if (x->nodes != y->nodes) return x->nodes < y->nodes ? -1 : 1;
  if (x->ports != y->ports) return x->ports < y->ports ? -1 : 1;
  if (x->tasks != y->tasks) return x->tasks < y->tasks ? -1 : 1;
  if (x->flows != y->flows) return x->flows < y->flows ? -1 : 1;
  return x->e < y->e ? -1 : x->e > y->e;
}

/* The lane groups of a world (cu_lanes): its experiments ordered by shape
 * (node, port, task and flow counts, then index), cut into groups of 1 << lg;
 * the last group's missing lanes hold -1. The groups in the order blocks take
 * them: the heaviest first (its heaviest lane's work, eng_shape_work), so that
 * the last to start are the lightest. NULL if out of memory. */
static int32_t *cu_lane_groups(const eng_world_t *w, const double *work, int32_t lg,
                               int32_t *n_groups) {
  const int32_t n = w->n_exps, L = 1 << lg;
  *n_groups = (n + L - 1) / L;
  cu_shape_t *sh = (cu_shape_t *)malloc(sizeof(cu_shape_t) * (size_t)(n ? n : 1));
  const size_t slots = (size_t)*n_groups * (size_t)L;
  int32_t *g = (int32_t *)malloc(sizeof(int32_t) * (slots ? slots : 1));
  int32_t *by = (int32_t *)malloc(sizeof(int32_t) * (slots ? slots : 1));
  int32_t *order = (int32_t *)malloc(sizeof(int32_t) * (size_t)(*n_groups ? *n_groups : 1));
  double *gw = (double *)malloc(sizeof(double) * (size_t)(*n_groups ? *n_groups : 1));
  if (!sh || !g || !by || !order || !gw) goto fail;
  for (int32_t e = 0; e < n; e++)
    sh[e] = (cu_shape_t){w->c.exp_n_nodes[e], w->c.exp_n_ports[e], w->c.exp_n_tasks[e],
                         w->c.exp_n_flows[e], e};
  qsort(sh, (size_t)n, sizeof *sh, cu_shape_cmp);
  for (size_t i = 0; i < slots; i++)
    by[i] = i < (size_t)n ? sh[i].e : -1;
  for (int32_t q = 0; q < *n_groups; q++) {
    gw[q] = 0;
    for (int32_t l = 0; l < L; l++)
      if (by[q * L + l] >= 0 && work[by[q * L + l]] > gw[q]) gw[q] = work[by[q * L + l]];
  }
  if (eng_shape_order(gw, *n_groups, order)) goto fail;
  for (int32_t q = 0; q < *n_groups; q++)
    for (int32_t l = 0; l < L; l++)
      g[q * L + l] = by[order[q] * L + l];
  free(sh);
  free(by);
  free(order);
  free(gw);
  return g;
fail:
  free(sh);
  free(g);
  free(by);
  free(order);
  free(gw);
  return NULL;
}

/* A knob's value from the environment: an integer in [lo, hi], else dflt
 * (read whole: eng_env_int; the driver refuses a bad value when it starts). */
static int cu_env_int(const char *name, int lo, int hi, int dflt) {
  long long x;
  eng_env_int(name, lo, hi, dflt, &x);
  return (int)x;
}

typedef void (*cu_exp_kern_t)(int32_t, int32_t, const int32_t *, const int32_t *, const int32_t *,
                              int32_t *, int32_t *);

/* How an experiment kernel steps switches: a thread each (in key order), a
 * warp each (switch warps, MULTIVERSE_CUDA_SWITCH_WARPS), or a thread each
 * with the block's pool for their certified windows (MULTIVERSE_CUDA_POOL). */
enum { CU_K_PLAIN, CU_K_SWITCH_WARPS, CU_K_POOL };

/* The experiment kernel for blocks of T threads, o of them per SM, of kind
 * `sw` (CU_K_*), one lane group per cluster of C blocks (clusters with switch
 * warps: one a SM; a pool: blocks of 512, or of 768 or 1,024 one a SM). */
static cu_exp_kern_t cu_exp_kernel(int32_t T, int o, int sw, int32_t C) {
  if (sw == CU_K_POOL && C > 1)
    return o >= 2    ? k_experiments_cl<false, 2, true>
           : T > 512 ? k_experiments_cl<false, 1, true, 1024>
                     : k_experiments_cl<false, 1, true>;
  if (sw == CU_K_POOL)
    return T > 768   ? k_experiments_po<1, 1024>
           : T > 512 ? k_experiments_po<1, 768>
           : o >= 2  ? k_experiments_po<2>
                     : k_experiments_po<1>;
  if (C > 1)
    return sw       ? k_experiments_cl<true, 1>
           : o >= 2 ? k_experiments_cl<false, 2>
                    : k_experiments_cl<false, 1>;
  if (sw) return k_experiments_sw;
  return T > 256 ? (o >= 2 ? k_experiments_512_2 : k_experiments_512_1)
       : T <= 128 ? k_experiments_128_4
       : o <= 2   ? k_experiments_256_2
       : o == 3   ? k_experiments_256_3
                  : k_experiments_256_4;
}

/* Blocks of T threads per SM the experiment kernel is compiled for
 * (MULTIVERSE_CUDA_BLOCKS_PER_SM; 2 measured best on an H200 with blocks of
 * 256, tests/bench/RESULTS.md). */
static int cu_blocks_per_sm(int32_t T) {
  return cu_env_int("MULTIVERSE_CUDA_BLOCKS_PER_SM", 1, 4, T > 256 ? 1 : 2);
}

/* Threads of a block of the pool's kernel one a SM, in clusters of C (1: a
 * block a lane group): 512 (128 registers a thread, 16 warps), 768 (80
 * registers, 24 warps; blocks only) or 1,024 (64 registers, 32 warps),
 * MULTIVERSE_CUDA_POOL_THREADS; unset, 1,024 for blocks, 512 on clusters
 * (64 WebSearch variants on clusters of 2: 4.90 s of kernel in 512, 5.03 s
 * in 1,024; H100, session 39). The planner's lanes,
 * waves and clusters stay those of blocks of 512. More warps hide more of the
 * loads' latency, on which row 1's warps wait most, and spread a group's rows
 * thinner, though fewer registers spill: on an H100, 256 WebSearch DCQCN
 * variants took 14.03 s of kernel in blocks of 1,024, 14.34 s in 768, 15.93 s
 * in 512; HPCC 20.61 s against 22.79 s (tests/bench/RESULTS.md, session 38). */
static int32_t cu_pool_threads(int32_t C) {
  const int t = cu_env_int("MULTIVERSE_CUDA_POOL_THREADS", 512, 1024, C > 1 ? 512 : 1024);
  return t > 768 || (C > 1 && t > 512) ? 1024 : t > 512 ? 768 : 512; /* the driver checks it */
}

/* A launch of blocks of T threads in clusters of C (*at: its one attribute;
 * none for C = 1). */
static cudaLaunchConfig_t cu_cluster_config(int32_t T, int32_t C, cudaLaunchAttribute *at) {
  cudaLaunchConfig_t cfg = {};
  at->id = cudaLaunchAttributeClusterDimension;
  at->val.clusterDim.x = (unsigned)C;
  at->val.clusterDim.y = at->val.clusterDim.z = 1;
  cfg.blockDim = dim3((unsigned)T);
  cfg.attrs = at;
  cfg.numAttrs = C > 1 ? 1 : 0;
  return cfg;
}

/* Dynamic shared memory of a block of T threads of the experiment kernel of
 * kind sw: with switch warps, each warp's port phases' words (cu_ph_head);
 * with a pool, the pool. */
static size_t cu_sw_smem(int32_t T, int sw) {
  return sw == CU_K_SWITCH_WARPS ? CU_PH_HEAD_BYTES(T) : sw == CU_K_POOL ? sizeof(cu_pool_t) : 0;
}

/* How many clusters of C blocks of T threads of kernel kern (with switch
 * warps: sw) are resident at once (clusters sit within a GPC, so fewer fit
 * than SMs / C: 15 of 8 blocks of 512 and 30 of 4 on an H200); -1 on a CUDA
 * error. */
static int cu_clusters_fit(cu_exp_kern_t kern, int32_t T, int32_t C, int sw, int32_t n_groups) {
  cudaLaunchAttribute at;
  cudaLaunchConfig_t cfg = cu_cluster_config(T, C, &at);
  cfg.gridDim = dim3((unsigned)(C * n_groups));
  cfg.dynamicSmemBytes = cu_sw_smem(T, sw);
  cfg.numAttrs = 1; /* the occupancy of clusters, also of 1 */
  int clusters = 0;
  return cudaOccupancyMaxActiveClusters(&clusters, (void *)kern, &cfg) == cudaSuccess ? clusters : -1;
}

/* *C: the most blocks of 512 per lane group (8, 4 or 2) with which all
 * n_groups groups are resident at once, else 1. On an H200 16 WebSearch
 * experiments ran in 2.1 s on clusters of 4, 2.8 s of 2, 3.8 s alone, 3.9 s on
 * clusters of 8 (two waves). */
static int cu_cluster_auto(int sw, int32_t n_groups, int32_t *C, char *err, size_t errlen) {
  for (*C = 8; *C > 1; *C /= 2) {
    int clusters =
        cu_clusters_fit(cu_exp_kernel(512, cu_blocks_per_sm(512), sw, *C), 512, *C, sw, n_groups);
    if (clusters < 0) {
      snprintf(err, errlen, "cannot size clusters of %d blocks: %s", *C, cudaGetErrorString(cudaGetLastError()));
      return -1;
    }
    if (clusters >= n_groups) break;
  }
  return 0;
}

/* Experiments of one launch shape the device steps at once: resident blocks
 * of T threads of the kernel for O a SM, or whole clusters of C; 0 where none
 * fits. */
static int32_t cu_resident(int32_t T, int32_t C, int O, int sms, int32_t n_groups) {
  cu_exp_kern_t kern = cu_exp_kernel(T, O, 0, C);
  int got = 0;
  if (C > 1) {
    got = cu_clusters_fit(kern, T, C, 0, n_groups);
  } else if (cudaOccupancyMaxActiveBlocksPerMultiprocessor(&got, kern, T, 0) == cudaSuccess) {
    got *= sms;
  } else {
    got = -1;
  }
  if (got < 0) cudaGetLastError(); /* a shape the device refuses is not taken */
  return got > 0 ? got : 0;
}

/* The launch shape of least modelled makespan (eng_shape_pick) for a world's
 * experiments, one per block or cluster: blocks of 128, 256 or 512 threads, or
 * clusters of 2, 4 or 8 blocks of 512; those of 512 in the kernels for one
 * and for 2 a SM (eng_shape_list; MULTIVERSE_CUDA_BLOCKS_PER_SM: only its
 * own). 0 with *T, *C and *O (the blocks a SM of the kernel), or -1 (none
 * fits, or out of memory). */
static int cu_shape(const eng_world_t *w, const double *work, int32_t most, int sms, int32_t *T,
                    int32_t *C, int *O) {
  eng_shape_t s[ENG_SHAPES];
  const int ns = eng_shape_list(s, cu_env_int("MULTIVERSE_CUDA_BLOCKS_PER_SM", 1, 4, 0));
  const int32_t n = w->n_exps;
  int32_t *order = (int32_t *)malloc(sizeof(int32_t) * (size_t)(n ? n : 1));
  double *wd = (double *)malloc(sizeof(double) * (size_t)(n ? n : 1));
  int best = -1;
  if (order && wd && !eng_shape_order(work, n, order)) {
    for (int32_t i = 0; i < n; i++)
      wd[i] = work[order[i]];
    for (int i = 0; i < ns; i++)
      s[i].resident = cu_resident(s[i].threads, s[i].cluster, s[i].per_sm, sms, n);
    best = eng_shape_pick(s, ns, wd, n, most);
  }
  free(order);
  free(wd);
  if (best < 0) return -1;
  *T = s[best].threads;
  *C = s[best].cluster;
  *O = s[best].per_sm;
  if (eng_env_flag("MULTIVERSE_VERBOSE")) {
    fprintf(stderr, "cuda: launch shapes (threads x blocks, kernel's blocks a SM: resident, "
                    "modelled makespan or - where not counted):");
    for (int i = 0; i < ns; i++) {
      char score[32] = "-";
      if (s[i].score > 0) snprintf(score, sizeof score, "%.4g", s[i].score);
      fprintf(stderr, " %dx%d/%d: %d, %s%s", s[i].threads, s[i].cluster, s[i].per_sm, s[i].resident,
              score, i == best ? " (taken)" : "");
    }
    fprintf(stderr, "\n");
  }
  return 0;
}

/* Launch mode of a world: MULTIVERSE_CUDA_LAUNCH, else persistent mode for up
 * to 8 experiments or any of more than 2,048 nodes, else experiment mode; *T
 * its block size (MULTIVERSE_CUDA_BLOCK: 128, 256 or 512), *lg the log2 of its
 * lanes (MULTIVERSE_LANES: 1, 2, 4, 8, 16 or 32) and *C its blocks per
 * cluster (MULTIVERSE_CUDA_CLUSTER). */
typedef enum cu_mode_t { CU_EXPERIMENTS, CU_PERSISTENT, CU_SYSTEMS } cu_mode_t;

static cu_mode_t cu_mode(const eng_world_t *w, const double *work, int32_t *T, int32_t *lg,
                         int32_t *C, int *O) {
  int32_t most = 0;
  for (int32_t e = 0; e < w->n_exps; e++)
    if (w->c.exp_n_nodes[e] > most) most = w->c.exp_n_nodes[e];
  int dev = 0, sms = 132;
  if (cudaGetDevice(&dev) != cudaSuccess ||
      cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev) != cudaSuccess)
    cudaGetLastError();
  /* Block size from a group's node rows (128, 256 or 512 threads; 512 of 128
   * registers fit an SM), and lanes: the fewest that let every group be
   * resident at once (one wave), at most 32. A block steps L experiments in
   * about the time of one (tests/bench/RESULTS.md, the lanes ablation), but
   * only resident blocks run: 144 experiments of 45 nodes fit at once in
   * blocks of 128 without lanes. Groups of more than one experiment in blocks
   * of 512 count 2 a SM where one would not hold them all, and those of the
   * block's pool then run one a SM (eng_shape_lanes); one experiment a block
   * leaves its blocks per SM to the launch-shape model (cu_shape). */
  const int t = cu_env_int("MULTIVERSE_CUDA_BLOCK", 128, 512, 0);
  const int forced = cu_env_int("MULTIVERSE_LANES", 1, 32, 0);
  const eng_lanes_t ln = eng_shape_lanes(w->n_exps, most, sms, t, forced,
                                         cu_env_int("MULTIVERSE_CUDA_BLOCKS_PER_SM", 1, 4, 0));
  const int lanes = ln.lanes;
  *T = ln.threads;
  for (*lg = 0; (2 << *lg) <= lanes; (*lg)++) {
  }
  /* Clusters: 0 asks cu_run_experiments for the most blocks per group (up to
   * 8) that still let every group be resident at once, when there is one
   * experiment per group of 512 threads. */
  const int c_env = cu_env_int("MULTIVERSE_CUDA_CLUSTER", 1, 8, 0);
  *C = c_env ? c_env : lanes == 1 && *T == 512 ? 0 : 1;
  /* Persistent mode for a few experiments: on an H200 one or 8 WebSearch
   * experiments (400 nodes) ran in 1.6 s there, 2.0 s on clusters of 8 SMs
   * (tests/bench/RESULTS.md, the GPU engine); it also steps every experiment
   * through every window of any (96 training experiments of 45 nodes took
   * 135.8 s there, all 144 took 97.8 s a block each: the whole node). From 9
   * experiments on, where each fits a block without lanes (and no knob says
   * otherwise), the launch shape is the one of least modelled makespan: the
   * heaviest experiments take their groups first, and an experiment's nodes
   * spread over more warps run faster (tests/bench/RESULTS.md, launch
   * shapes). */
  const char *m = getenv("MULTIVERSE_CUDA_LAUNCH");
  if (m && strcmp(m, "systems") == 0) return CU_SYSTEMS;
  if (m && strcmp(m, "persistent") == 0) return CU_PERSISTENT;
  int o_shape = 0;
  const int shaped = w->n_exps > 8 && most <= 4 * 512 && lanes == 1 && !forced && !t && !c_env &&
                     !cu_env_int("MULTIVERSE_CUDA_SWITCH_WARPS", 0, 1, 0) &&
                     cu_shape(w, work, most, sms, T, C, &o_shape) == 0;
  /* Blocks a SM: the model's where it chose the shape; else for the block
   * size taken: clusters (of blocks of 512 whatever *T says:
   * cu_run_experiments) run the kernel built for one a SM, not the one for 2
   * that the 128 threads asked first would have chosen. */
  *O = shaped ? o_shape : ln.per_sm ? ln.per_sm : cu_blocks_per_sm(*C != 1 ? 512 : *T);
  if (shaped || (m && strcmp(m, "experiment") == 0)) return CU_EXPERIMENTS;
  /* A block size, cluster or lanes asked for is a shape of the experiment
   * mode: the persistent kernel has none (66 proxies of the training sweep
   * took 45 s there where 132 took 20 s in blocks of 512; 128 WebSearch HPCC
   * variants with MULTIVERSE_LANES=2 66.1 s, where lanes of 1 took 12.4 s,
   * H100, session 34). */
  const int enough =
      w->n_exps >= sms || t || c_env || lanes > 1 || (w->n_exps > 8 && (*T < 512 || *C != 1));
  return enough && most <= 4 * 512 ? CU_EXPERIMENTS : CU_PERSISTENT;
}
