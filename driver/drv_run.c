/* The pipeline every command that runs experiments goes through: signals, the
 * ranks (MPI when a launcher started the process), where each rank runs, rank
 * 0's plan, the ranks' loop over the shared counter, rank 0's merge, the
 * command's finish and one exit status (drv.h). `multiverse run JOB.json` is
 * the pipeline on a job file. */
#define _POSIX_C_SOURCE 200809L
#include <dirent.h>
#include <errno.h>
#include <omp.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "driver/drv.h"
#include "driver/drv_run.h"
#include "sim/eng_num.h"

volatile sig_atomic_t drv_stop_signal;

static void on_signal(int sig) {
  drv_stop_signal = sig;
}

static void catch_signals(void) {
  struct sigaction sa;
  memset(&sa, 0, sizeof sa);
  sa.sa_handler = on_signal;
  sigemptyset(&sa.sa_mask);
  sigaction(SIGTERM, &sa, NULL);
  sigaction(SIGUSR1, &sa, NULL);
  sigaction(SIGINT, &sa, NULL);
}

int drv_pipe_opt(drv_pipe_t *p, const char *opt, const char *v) {
  static const char *const ours[] = {"--run-dir", "--results", "--memory", "--max-batch",
                                     "--grace"};
  int known = 0;
  for (size_t k = 0; k < sizeof ours / sizeof *ours; k++)
    known |= strcmp(opt, ours[k]) == 0;
  if (!known) return 0;
  if (!v) return drv_fail(2, "multiverse %s: %s needs a value (--help)\n", p->cmd, opt);
  long long x;
  size_t n = strlen(v);
  if (strcmp(opt, "--run-dir") == 0) {
    p->o.run_dir = v;
  } else if (strcmp(opt, "--results") == 0) {
    if (n < 4 || strcmp(v + n - 3, ".nc") != 0 || v[n - 4] == '/')
      return drv_fail(2, "multiverse %s: --results %s: expected a file name ending in .nc\n",
                      p->cmd, v);
    p->results = v;
  } else if (strcmp(opt, "--memory") == 0) {
    if (drv_opt_real(p->cmd, opt, v, 1e-3, 1e6, "GiB", &p->o.memory_gb)) return 2;
  } else if (strcmp(opt, "--max-batch") == 0) {
    if (drv_opt_int(p->cmd, opt, v, 1, 1000000, &x)) return 2;
    p->o.max_batch = (int)x;
  } else if (drv_opt_real(p->cmd, opt, v, 0, 1e6, "s", &p->o.grace_s)) {
    return 2;
  }
  return 1;
}

/* This rank's node: ranks grouped by number (--ranks-per-node N: 0..N-1,
 * N..2N-1, ...), else by shared memory (MPI_Comm_split_type); its place
 * there and the node's number among the nodes. One rank without MPI. */
static void run_node(drv_run_t *r, int mpi) {
  MPI_Comm node, leaders;
  if (r->o.ranks_per_node > 0) {
    int per = r->o.ranks_per_node;
    r->node = r->rank / per;
    r->local_rank = r->rank % per;
    r->local_size = r->size - r->node * per < per ? r->size - r->node * per : per;
    r->n_nodes = (r->size + per - 1) / per;
    return;
  }
  if (!mpi) {
    r->node = r->local_rank = 0;
    r->n_nodes = r->local_size = 1;
    return;
  }
  DRV_MPI(MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, r->rank, MPI_INFO_NULL, &node));
  DRV_MPI(MPI_Comm_rank(node, &r->local_rank));
  DRV_MPI(MPI_Comm_size(node, &r->local_size));
  /* The nodes, numbered by their first rank: rank k of the leaders. */
  DRV_MPI(
      MPI_Comm_split(MPI_COMM_WORLD, r->local_rank == 0 ? 0 : MPI_UNDEFINED, r->rank, &leaders));
  int id = 0, n = 0;
  if (leaders != MPI_COMM_NULL) {
    DRV_MPI(MPI_Comm_rank(leaders, &id));
    DRV_MPI(MPI_Comm_size(leaders, &n));
    DRV_MPI(MPI_Comm_free(&leaders));
  }
  DRV_MPI(MPI_Bcast(&id, 1, MPI_INT, 0, node));
  DRV_MPI(MPI_Comm_free(&node));
  DRV_MPI(MPI_Allreduce(&n, &r->n_nodes, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD));
  r->node = id;
}

/* Every rank's workers, in rank order (r->slots). */
static void run_workers(drv_run_t *r, int mpi) {
  drv_slot_desc_t mine[DRV_MAX_WORKERS + 1];
  memset(mine, 0, sizeof mine);
  mine[DRV_MAX_WORKERS].rank = r->m.n_workers; /* the count rides in the last one */
  for (int i = 0; i < r->m.n_workers; i++) {
    const drv_worker_desc_t *w = &r->m.w[i];
    mine[i] = (drv_slot_desc_t){
        .rank = r->rank, .backend = w->backend, .threads = w->threads, .mem_budget = w->mem_budget};
    snprintf(mine[i].name, sizeof mine[i].name, "%s", w->name);
  }
  int per = (int)sizeof mine;
  drv_slot_desc_t *all = malloc((size_t)r->size * sizeof mine);
  r->slots = malloc((size_t)r->size * DRV_MAX_WORKERS * sizeof *r->slots + 1);
  if (!all || !r->slots) DRV_ABORT("out of memory");
  if (mpi)
    DRV_MPI(MPI_Allgather(mine, per, MPI_BYTE, all, per, MPI_BYTE, MPI_COMM_WORLD));
  else
    memcpy(all, mine, sizeof mine);
  r->n_slots = 0;
  for (int k = 0; k < r->size; k++) {
    const drv_slot_desc_t *of = all + (size_t)k * (DRV_MAX_WORKERS + 1);
    if (k == r->rank) r->first_worker = r->n_slots;
    for (int i = 0; i < of[DRV_MAX_WORKERS].rank && i < DRV_MAX_WORKERS; i++)
      r->slots[r->n_slots++] = of[i];
  }
  free(all);
}

int drv_pipe_front(drv_pipe_t *p) {
  int ranks = drv_launcher_size();
  char *buf = p->folder;
  size_t len = sizeof p->folder;
  p->quiet = 1;
  p->o.one_batch = ranks == 1;
  if (!p->results) p->results = "";
  if (p->o.run_dir) return snprintf(buf, len, "%s", p->o.run_dir), 0;
  if (*p->results) { /* FILE.nc: FILE.run */
    snprintf(buf, len, "%.*s.run", (int)strlen(p->results) - 3, p->results);
    p->o.run_dir = buf;
    return 0;
  }
  if (ranks > 1)
    return drv_fail(2,
                    "multiverse %s: %d ranks need a run folder every rank sees: --run-dir DIR "
                    "or --results FILE.nc\n",
                    p->cmd, ranks);
  const char *tmp = getenv("TMPDIR");
  snprintf(buf, len, "%s/multiverse-%s-XXXXXX", tmp && *tmp ? tmp : "/tmp", p->cmd);
  if (!mkdtemp(buf))
    return drv_fail(2, "multiverse %s: cannot make a run folder %s: %s\n", p->cmd, buf,
                    strerror(errno));
  p->o.run_dir = buf;
  p->temp_run_dir = 1;
  return 0;
}

/* Removes a temporary run folder and everything in it (links are removed, not
 * followed). */
static void remove_tree(const char *dir) {
  DIR *d = opendir(dir);
  char path[8192];
  struct stat st;
  for (struct dirent *e; d && (e = readdir(d));) {
    if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0) continue;
    snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
    if (lstat(path, &st) == 0 && S_ISDIR(st.st_mode))
      remove_tree(path);
    else
      unlink(path);
  }
  if (d) closedir(d);
  rmdir(dir);
}

/* The exit status by drv.h's rule, from every experiment's best status. */
static int exit_status(const drv_opts_t *o, const drv_job_t *j, const drv_done_t *done,
                       int stopped, int merged) {
  if (stopped) return stopped >= DRV_STOP_ERROR ? 2 : 128 + stopped;
  if (merged == 2) return 2;
  int worst = 0;
  for (int64_t i = 0; i < j->count; i++) {
    if (o->has_only && i != o->only) continue;
    int st = drv_done_status(done, j->id[i]);
    if (st < 0) return merged == 1 ? 1 : 2; /* no result: --only-failed left it */
    if (st != ANA_OK && st != ANA_OOM) worst = 1;
  }
  return worst;
}

/* Rank 0 after the run: the status, the command's finish, the stop's message. */
static int finish(drv_run_t *r, int stopped, int merged) {
  const drv_pipe_t *p = r->pipe;
  drv_done_t done;
  drv_done_read(r->run_dir, &done, stderr);
  int threads = 0; /* the workers' host threads: the rank's cores (drv_machine.c) */
  for (int i = 0; i < r->m.n_workers; i++)
    threads += r->m.w[i].host_threads;
  drv_end_t end = {.run_dir = r->run_dir,
                   .job = &r->job,
                   .done = &done,
                   .stopped = stopped,
                   .status = exit_status(&r->o, &r->job, &done, stopped, merged),
                   .threads = threads > 0 ? threads : 1};
  int rc = p->finish ? p->finish(p->finish_ctx, &end) : end.status;
  if (stopped > 0 && stopped < DRV_STOP_ERROR && !p->finish)
    printf("multiverse %s: stopped by signal %d (%s) with %lld of %lld experiments of this run "
           "done; every shard is written; rerun the same command to continue\n",
           p->cmd, stopped,
           stopped == SIGTERM   ? "SIGTERM"
           : stopped == SIGUSR1 ? "SIGUSR1"
                                : "SIGINT",
           (long long)r->n_done, (long long)r->to_run);
  else if (stopped >= DRV_STOP_ERROR)
    drv_fail(2, "multiverse %s: stopped: a rank could not write its results\n", p->cmd);
  drv_done_free(&done);
  return rc;
}

int drv_pipe_run(drv_pipe_t *p, int argc, char **argv) {
  drv_run_t *r = calloc(1, sizeof *r);
  drv_comm_t c;
  char err[1024];
  int abandoned = 0, merged = 0, stopped = 0;
  double t_end[2] = {0, 0}; /* s: the batches, the finish */
  if (!r) return drv_fail(2, "multiverse %s: out of memory\n", p->cmd);
  r->pipe = p;
  r->o = p->o;
  r->t_begin = omp_get_wtime();
  r->lock_fd = -1;
  catch_signals();
  if (drv_env_local_rank() >= 0) drv_gpu_pick(drv_env_local_rank());
  /* Open MPI's one-sided windows: shared memory on a node, else over the
   * point-to-point layer, whatever the network (Debian's Open MPI 4.1 turns
   * pt2pt off and its rdma component needs an RDMA network: windows across
   * nodes over TCP then fail). The few atomics a batch costs need no more.
   * A user's OMPI_MCA_osc wins. */
  setenv("OMPI_MCA_osc", "sm,pt2pt", 0);
  if (drv_comm_init(&argc, &argv, &c)) return drv_fail(2, "multiverse %s: MPI_Init failed\n", p->cmd);
  r->rank = c.rank;
  r->size = c.size;
  r->local_rank = c.local_rank;
  r->local_size = c.local_size;
  run_node(r, c.mpi);
  if (!p->quiet) setenv("MULTIVERSE_PROGRESS", "0", 1); /* run reports progress itself */
  int rc = drv_machine(&r->o, r->local_rank, r->local_size, &r->m, err, sizeof err);
  if (rc) fprintf(stderr, "multiverse %s: rank %d: %s\n", p->cmd, r->rank, err);
  rc = drv_all_max(rc) ? 2 : 0;
  if (rc == 0) run_workers(r, c.mpi);
  r->setup_s = omp_get_wtime() - r->t_begin;
  if (rc == 0) { /* planning a huge sweep reports its progress (drv_job.c, drv_plan.c) */
    drv_run_plan(r);
    rc = r->code;
  }
  if (!p->quiet) setenv("MULTIVERSE_PROGRESS", "0", 1); /* run reports the batches' itself */
  r->plan_s = omp_get_wtime() - r->t_begin - r->setup_s;
  if (rc == 0) {
    char what[256];
    drv_machine_text(&r->m, what, sizeof what);
    if (r->rank == 0 && !p->quiet)
      printf("multiverse %s: %s: %lld experiments (%lld distinct; %lld with results already), "
             "%lld to run in %d batches on %d rank%s (rank 0: %s); estimated makespan %.3g s\n",
             p->cmd, r->job_path, (long long)r->total, (long long)r->distinct,
             (long long)r->skipped, (long long)r->to_run, r->n_batches, r->size,
             r->size == 1 ? "" : "s", what, r->makespan);
    fflush(stdout);
    const double tl = omp_get_wtime();
    stopped = drv_run_loop(r, &merged, &abandoned);
    /* Refinement: each stage after the one before has merged, through the
     * same loop (jobs/job_refine.c picks its experiments). */
    for (int s = 1; !stopped && !merged && !abandoned && s <= r->n_stages; s++) {
      drv_run_stage(r, s);
      if ((rc = r->code)) break;
      if (r->rank == 0 && !p->quiet)
        printf("multiverse %s: refine stage %d: %lld to run in %d batches\n", p->cmd, s,
               (long long)(r->to_run - r->n_rows), r->n_batches);
      fflush(stdout);
      stopped = drv_run_loop(r, &merged, &abandoned);
    }
    const double tf = omp_get_wtime();
    if (r->rank == 0 && rc == 0) rc = finish(r, stopped, merged);
    drv_bcast_int(&rc);
    t_end[0] = tf - tl;
    t_end[1] = omp_get_wtime() - tf;
  }
  const double tr = omp_get_wtime();
  if (r->rank == 0 && p->temp_run_dir && r->run_dir) remove_tree(r->run_dir);
  if (r->rank == 0 && eng_env_flag("MULTIVERSE_VERBOSE")) /* the benchmarks read it */
    fprintf(stderr,
            "run: set-up %.3f s, plan %.3f s, batches %.3f s, finish %.3f s, its folder "
            "removed in %.3f s\n",
            r->setup_s, r->plan_s, t_end[0], t_end[1], omp_get_wtime() - tr);
  if (!abandoned) drv_run_free(r);
  drv_comm_finalize();
  if (abandoned) { /* a batch still runs on its thread: leave without waiting */
    fflush(NULL);
    _exit(rc);
  }
  free(r);
  return rc;
}

int drv_run(int argc, char **argv) {
  drv_pipe_t p = {.cmd = "run"};
  /* One copy of each usage message: ranks other than the first (as the
   * launcher numbers them) stay quiet. */
  drv_quiet = drv_launcher_rank() > 0;
  int rc = drv_opts_parse("run", argc, argv, &p.o);
  drv_quiet = 0;
  if (rc) return rc < 0 ? 0 : rc;
  return drv_pipe_run(&p, argc, argv);
}
