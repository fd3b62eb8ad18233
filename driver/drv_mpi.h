/* driver: the ranks of the pipeline every command runs: MPI when a launcher
 * (mpirun, srun) started the process, else one rank without MPI (a command run
 * by hand starts no MPI runtime). Every MPI call checked (file:line, then
 * MPI_Abort), byte buffers broadcast from rank 0, and the shared counters on
 * rank 0 that ranks update with one-sided atomics (MPI-3 fetch-and-op). */
#ifndef DRV_MPI_H
#define DRV_MPI_H

#include <stddef.h>
#include <stdint.h>

#include <mpi.h>

/* Checks an MPI call: on failure prints file:line, the call and MPI's reason,
 * and aborts every rank (one rank exiting alone would hang the others). */
#define DRV_MPI(call) drv_mpi_check((call), __FILE__, __LINE__, #call)
void drv_mpi_check(int rc, const char *file, int line, const char *call);
/* A broken invariant: prints file:line and the message, aborts every rank. */
#define DRV_ABORT(msg) drv_mpi_abort(__FILE__, __LINE__, (msg))
void drv_mpi_abort(const char *file, int line, const char *msg) __attribute__((noreturn));

/* This process's ranks: its place among them and among those of its node. */
typedef struct drv_comm_t {
  int rank, size, local_rank, local_size;
  int mpi; /* MPI is running (a launcher started the process) */
} drv_comm_t;

/* Starts MPI (MPI_THREAD_FUNNELED) when a launcher started the process
 * (OMPI_COMM_WORLD_SIZE, PMIX_RANK, PMI_RANK or PMI_SIZE set, or
 * MULTIVERSE_MPI=1), else one rank without MPI. 0, or -1 when MPI_Init fails. */
int drv_comm_init(int *argc, char ***argv, drv_comm_t *c);
void drv_comm_finalize(void);
/* Before drv_comm_init: this process's rank and the ranks' count as the
 * launcher tells them (-1 and 1 when no launcher started it), so that a
 * command checks its options and prints each message once. */
int drv_launcher_rank(void);
int drv_launcher_size(void);
/* Collectives over every rank (without MPI: the value itself). */
int drv_all_max(int v);
int64_t drv_all_min_i64(int64_t v);
void drv_all_barrier(void);
void drv_bcast_int(int *v); /* rank 0's value */
/* A barrier that does not block: start it, then test until it is complete. */
typedef struct drv_ibarrier_t {
  MPI_Request req;
} drv_ibarrier_t;
void drv_ibarrier_start(drv_ibarrier_t *b);
int drv_ibarrier_done(drv_ibarrier_t *b);

/* A growable byte buffer, written by rank 0 and read by every rank. */
typedef struct drv_buf_t {
  char *p;
  size_t len, cap, pos;
} drv_buf_t;

void drv_buf_i64(drv_buf_t *b, int64_t v);
void drv_buf_str(drv_buf_t *b, const char *s); /* NULL is written as "" */
void drv_buf_f64(drv_buf_t *b, double v);
void drv_buf_bytes(drv_buf_t *b, const void *p, size_t n);
int64_t drv_buf_get_i64(drv_buf_t *b);
double drv_buf_get_f64(drv_buf_t *b);
void drv_buf_get_bytes(drv_buf_t *b, void *p, size_t n);
/* A malloc'd copy of the next string. */
char *drv_buf_get_str(drv_buf_t *b);
void drv_buf_free(drv_buf_t *b);
/* Broadcasts rank 0's buffer (any size) to every rank; read from pos 0. */
void drv_buf_bcast(drv_buf_t *b);

/* Counters on rank 0: these, then per worker its batch in hand (start and
 * estimate, us since the loop began), then per rank its records published. */
typedef enum drv_slot_t {
  DRV_SLOT_DONE = 0,    /* experiments finished in this run (rows written) */
  DRV_SLOT_NOT_OK = 1,  /* of which not ok */
  DRV_SLOT_STOP = 2,    /* 0, or why every rank stops: a signal number, DRV_STOP_ERROR */
  DRV_SLOT_PARTIAL = 3, /* experiments ended in batches still running */
  DRV_SLOT_BATCHES = 4, /* batches finished */
  DRV_SLOTS = 5
} drv_slot_t;

/* The stop reason of a rank that cannot go on (above every signal number). */
#define DRV_STOP_ERROR 1000

typedef struct drv_win_t {
  MPI_Win win; /* the counters (int64 on rank 0) */
  int64_t *base;
  MPI_Win flags; /* one int32 per experiment to run, on rank 0: taken */
  int32_t *flag_base;
  int64_t n_flags;
  MPI_Win recs; /* each rank's measured batches, records of rec_size bytes */
  char *rec_base;
  size_t rec_size;
  int64_t rec_cap;
  int local; /* without MPI: the three are this process's own arrays */
} drv_win_t;

/* Collective: creates `counters` counters (zero; at least DRV_SLOTS),
 * n_flags flags (zero) and room for rec_cap records of rec_size bytes per
 * rank, and opens passive-target epochs on all three (without MPI: arrays of
 * this process). */
void drv_win_open(drv_win_t *w, int64_t counters, int64_t n_flags, size_t rec_size,
                  int64_t rec_cap);
/* Atomically adds v to counter `slot` on rank 0; returns its value before. */
int64_t drv_win_add(drv_win_t *w, int64_t slot, int64_t v);
/* Atomically raises counter `slot` to v (if below). */
void drv_win_raise(drv_win_t *w, int64_t slot, int64_t v);
/* Atomically sets counter `slot` to v. */
void drv_win_set(drv_win_t *w, int64_t slot, int64_t v);
/* Reads counters [first, first + n). */
void drv_win_read(drv_win_t *w, int64_t first, int64_t n, int64_t *out);
/* Reads every flag. */
void drv_win_flags(drv_win_t *w, int32_t *out);
/* Takes the experiments idx[0..n): old[k] 0 where this call took it. */
void drv_win_claim(drv_win_t *w, const int32_t *idx, int32_t n, int32_t *old);
/* Writes this rank's record k (< rec_cap) and then counter `count_slot` = k + 1. */
void drv_win_publish(drv_win_t *w, int64_t k, const void *rec, int64_t count_slot);
/* Reads records [first, first + n) of rank r. */
void drv_win_records(drv_win_t *w, int r, int64_t first, int64_t n, void *out);
/* Collective: closes the epochs and frees the windows. */
void drv_win_close(drv_win_t *w);

#endif
