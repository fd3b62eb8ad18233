/* `multiverse run JOB.json`: the sweep on every rank of an MPI job (mpirun or
 * srun; one rank per GPU): signals, MPI, where each rank runs, then rank 0's
 * plan, the ranks' loop over the shared counter and rank 0's merge. */
#define _POSIX_C_SOURCE 200809L
#include <omp.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "driver/drv.h"
#include "driver/drv_run.h"

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

/* Every rank agrees on the worst of their codes. */
static int agree(int code) {
  int worst = code;
  DRV_MPI(MPI_Allreduce(&code, &worst, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD));
  return worst;
}

/* MPI, ranks on this node, options, machine; 0 or the exit status. */
static int run_setup(drv_run_t *r, int argc, char **argv) {
  char err[1024];
  DRV_MPI(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN));
  DRV_MPI(MPI_Comm_rank(MPI_COMM_WORLD, &r->rank));
  DRV_MPI(MPI_Comm_size(MPI_COMM_WORLD, &r->size));
  MPI_Comm node;
  DRV_MPI(MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, r->rank, MPI_INFO_NULL, &node));
  DRV_MPI(MPI_Comm_rank(node, &r->local_rank));
  DRV_MPI(MPI_Comm_size(node, &r->local_size));
  DRV_MPI(MPI_Comm_free(&node));
  drv_quiet = r->rank != 0; /* one copy of each usage message */
  int rc = drv_opts_parse("run", argc, argv, &r->o);
  drv_quiet = 0;
  if (agree(rc < 0 ? 0 : rc) || rc < 0) return rc < 0 ? -1 : 2;
  setenv("MULTIVERSE_PROGRESS", "0", 1); /* the run reports progress itself */
  rc = drv_machine(&r->o, r->local_rank, r->local_size, &r->m, err, sizeof err);
  if (rc) fprintf(stderr, "multiverse run: rank %d: %s\n", r->rank, err);
  if (agree(rc)) return 2;
  int64_t budget = r->m.mem_budget; /* the smallest rank's */
  DRV_MPI(MPI_Allreduce(&budget, &r->m.mem_budget, 1, MPI_INT64_T, MPI_MIN, MPI_COMM_WORLD));
  return 0;
}

int drv_run(int argc, char **argv) {
  drv_run_t *r = calloc(1, sizeof *r);
  int provided, abandoned = 0;
  if (!r) return drv_fail(2, "multiverse run: out of memory\n");
  r->t_begin = omp_get_wtime();
  r->lock_fd = -1;
  catch_signals();
  if (drv_env_local_rank() >= 0) drv_gpu_pick(drv_env_local_rank());
  if (MPI_Init_thread(&argc, &argv, MPI_THREAD_FUNNELED, &provided) != MPI_SUCCESS)
    return drv_fail(2, "multiverse run: MPI_Init_thread failed\n");
  int rc = run_setup(r, argc, argv);
  r->setup_s = omp_get_wtime() - r->t_begin;
  if (rc == 0) {
    drv_run_plan(r);
    rc = r->code;
  }
  r->plan_s = omp_get_wtime() - r->t_begin - r->setup_s;
  if (rc == 0) {
    if (r->rank == 0)
      printf("multiverse run: %s: %lld experiments (%lld distinct; %lld with results already), "
             "%lld to run in %d batches on %d rank%s (%s); estimated makespan %.3g s, lower "
             "bound %.3g s\n",
             r->job_path, (long long)r->total, (long long)r->distinct, (long long)r->skipped,
             (long long)r->to_run, r->n_batches, r->size, r->size == 1 ? "" : "s",
             drv_backend_name(r->m.backend), r->makespan, r->bound);
    fflush(stdout);
    rc = drv_run_loop(r, &abandoned);
  }
  if (!abandoned) drv_run_free(r);
  DRV_MPI(MPI_Finalize());
  if (abandoned) { /* a batch still runs on its thread: leave without waiting */
    fflush(NULL);
    _exit(rc < 0 ? 0 : rc);
  }
  free(r);
  return rc < 0 ? 0 : rc;
}
