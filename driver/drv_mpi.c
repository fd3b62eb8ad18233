/* driver: the ranks (MPI, or one rank without it), checked MPI calls, broadcast
 * buffers and the shared counters of the pipeline (see drv_mpi.h). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "driver/drv_mpi.h"
#include "sim/eng_num.h"

static int mpi_on; /* drv_comm_init started MPI */

static int launched(void) {
  static const char *const vars[] = {"OMPI_COMM_WORLD_SIZE", "PMIX_RANK", "PMI_RANK", "PMI_SIZE"};
  if (eng_env_flag("MULTIVERSE_MPI")) return 1; /* MPI even without a launcher's variables */
  for (size_t i = 0; i < sizeof vars / sizeof *vars; i++)
    if (getenv(vars[i])) return 1;
  return 0;
}

/* The first of these variables that is set, as a number; -1 if none is. */
static int env_int(const char *const *vars, size_t n) {
  for (size_t i = 0; i < n; i++) {
    const char *v = getenv(vars[i]);
    if (v && *v >= '0' && *v <= '9') return atoi(v);
  }
  return -1;
}

int drv_launcher_rank(void) {
  static const char *const vars[] = {"OMPI_COMM_WORLD_RANK", "PMIX_RANK", "PMI_RANK"};
  return launched() ? env_int(vars, sizeof vars / sizeof *vars) : -1;
}

int drv_launcher_size(void) {
  static const char *const vars[] = {"OMPI_COMM_WORLD_SIZE", "PMI_SIZE", "SLURM_NTASKS"};
  int n = launched() ? env_int(vars, sizeof vars / sizeof *vars) : -1;
  return n > 0 ? n : 1;
}

int drv_comm_init(int *argc, char ***argv, drv_comm_t *c) {
  int provided;
  *c = (drv_comm_t){.rank = 0, .size = 1, .local_rank = 0, .local_size = 1};
  if (!launched()) return 0;
  if (MPI_Init_thread(argc, argv, MPI_THREAD_FUNNELED, &provided) != MPI_SUCCESS) return -1;
  mpi_on = c->mpi = 1;
  DRV_MPI(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN));
  DRV_MPI(MPI_Comm_rank(MPI_COMM_WORLD, &c->rank));
  DRV_MPI(MPI_Comm_size(MPI_COMM_WORLD, &c->size));
  MPI_Comm node;
  DRV_MPI(MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, c->rank, MPI_INFO_NULL, &node));
  DRV_MPI(MPI_Comm_rank(node, &c->local_rank));
  DRV_MPI(MPI_Comm_size(node, &c->local_size));
  DRV_MPI(MPI_Comm_free(&node));
  return 0;
}

void drv_comm_finalize(void) {
  if (mpi_on) DRV_MPI(MPI_Finalize());
  mpi_on = 0;
}

int drv_all_max(int v) {
  int worst = v;
  if (mpi_on) DRV_MPI(MPI_Allreduce(&v, &worst, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD));
  return worst;
}

int64_t drv_all_min_i64(int64_t v) {
  int64_t least = v;
  if (mpi_on) DRV_MPI(MPI_Allreduce(&v, &least, 1, MPI_INT64_T, MPI_MIN, MPI_COMM_WORLD));
  return least;
}

void drv_all_barrier(void) {
  if (mpi_on) DRV_MPI(MPI_Barrier(MPI_COMM_WORLD));
}

void drv_bcast_int(int *v) {
  if (mpi_on) DRV_MPI(MPI_Bcast(v, 1, MPI_INT, 0, MPI_COMM_WORLD));
}

void drv_ibarrier_start(drv_ibarrier_t *b) {
  if (mpi_on) DRV_MPI(MPI_Ibarrier(MPI_COMM_WORLD, &b->req));
}

int drv_ibarrier_done(drv_ibarrier_t *b) {
  int done = 1;
  if (mpi_on) DRV_MPI(MPI_Test(&b->req, &done, MPI_STATUS_IGNORE));
  return done;
}

void drv_mpi_check(int rc, const char *file, int line, const char *call) {
  if (rc == MPI_SUCCESS) return;
  char why[MPI_MAX_ERROR_STRING] = "";
  int len = 0, rank = -1;
  MPI_Error_string(rc, why, &len);
  if (mpi_on) MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  fprintf(stderr, "%s:%d: rank %d: %s failed: %s\n", file, line, rank, call, why);
  fflush(stderr);
  if (mpi_on) MPI_Abort(MPI_COMM_WORLD, 3);
  abort();
}

void drv_mpi_abort(const char *file, int line, const char *msg) {
  int rank = 0;
  if (mpi_on) MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  fprintf(stderr, "%s:%d: rank %d: %s\n", file, line, rank, msg);
  fflush(stderr);
  if (mpi_on) MPI_Abort(MPI_COMM_WORLD, 3);
  abort();
}

static void buf_put(drv_buf_t *b, const void *p, size_t n) {
  if (b->len + n > b->cap) {
    size_t cap = b->cap ? b->cap : 4096;
    while (cap < b->len + n)
      cap *= 2;
    char *q = realloc(b->p, cap);
    if (!q) DRV_ABORT("out of memory for the plan's broadcast");
    b->p = q;
    b->cap = cap;
  }
  memcpy(b->p + b->len, p, n);
  b->len += n;
}

void drv_buf_i64(drv_buf_t *b, int64_t v) {
  buf_put(b, &v, sizeof v);
}

void drv_buf_str(drv_buf_t *b, const char *s) {
  size_t n = s ? strlen(s) : 0;
  drv_buf_i64(b, (int64_t)n);
  buf_put(b, s ? s : "", n);
}

int64_t drv_buf_get_i64(drv_buf_t *b) {
  int64_t v;
  if (b->pos + sizeof v > b->len) DRV_ABORT("the plan's broadcast is shorter than its contents");
  memcpy(&v, b->p + b->pos, sizeof v);
  b->pos += sizeof v;
  return v;
}

char *drv_buf_get_str(drv_buf_t *b) {
  int64_t n = drv_buf_get_i64(b);
  if (n < 0 || b->pos + (size_t)n > b->len)
    DRV_ABORT("the plan's broadcast is shorter than its contents");
  char *s = malloc((size_t)n + 1);
  if (!s) DRV_ABORT("out of memory reading the plan");
  memcpy(s, b->p + b->pos, (size_t)n);
  s[n] = '\0';
  b->pos += (size_t)n;
  return s;
}

void drv_buf_free(drv_buf_t *b) {
  free(b->p);
  memset(b, 0, sizeof *b);
}

/* Chunks of at most this many bytes (MPI counts are int). */
#define BCAST_CHUNK ((size_t)1 << 30)

void drv_buf_bcast(drv_buf_t *b) {
  MPI_Comm comm = MPI_COMM_WORLD;
  int rank;
  int64_t len = (int64_t)b->len;
  b->pos = 0;
  if (!mpi_on) return;
  DRV_MPI(MPI_Comm_rank(comm, &rank));
  DRV_MPI(MPI_Bcast(&len, 1, MPI_INT64_T, 0, comm));
  if (rank != 0) {
    b->len = 0;
    b->pos = 0;
    if ((size_t)len > b->cap) {
      free(b->p);
      b->p = malloc((size_t)len + 1);
      if (!b->p) DRV_ABORT("out of memory for the plan's broadcast");
      b->cap = (size_t)len;
    }
    b->len = (size_t)len;
  }
  for (size_t off = 0; off < (size_t)len; off += BCAST_CHUNK) {
    size_t n = (size_t)len - off < BCAST_CHUNK ? (size_t)len - off : BCAST_CHUNK;
    DRV_MPI(MPI_Bcast(b->p + off, (int)n, MPI_BYTE, 0, comm));
  }
  b->pos = 0;
}

void drv_win_open(drv_win_t *w) {
  MPI_Comm comm = MPI_COMM_WORLD;
  int rank;
  memset(w->local, 0, sizeof w->local);
  w->base = w->local;
  if (!mpi_on) return;
  DRV_MPI(MPI_Comm_rank(comm, &rank));
  MPI_Aint size = rank == 0 ? (MPI_Aint)(DRV_SLOTS * sizeof(int64_t)) : 0;
  w->base = NULL;
  DRV_MPI(MPI_Win_allocate(size, sizeof(int64_t), MPI_INFO_NULL, comm, &w->base, &w->win));
  DRV_MPI(MPI_Win_set_errhandler(w->win, MPI_ERRORS_RETURN));
  if (rank == 0) {
    DRV_MPI(MPI_Win_lock(MPI_LOCK_EXCLUSIVE, 0, 0, w->win));
    memset(w->base, 0, DRV_SLOTS * sizeof(int64_t));
    DRV_MPI(MPI_Win_unlock(0, w->win));
  } else {
    w->base = NULL;
  }
  DRV_MPI(MPI_Barrier(comm));
  DRV_MPI(MPI_Win_lock_all(0, w->win));
}

int64_t drv_win_add(drv_win_t *w, drv_slot_t slot, int64_t v) {
  int64_t old = 0;
  if (!mpi_on) {
    old = w->local[slot];
    w->local[slot] += v;
    return old;
  }
  DRV_MPI(MPI_Fetch_and_op(&v, &old, MPI_INT64_T, 0, (MPI_Aint)slot, MPI_SUM, w->win));
  DRV_MPI(MPI_Win_flush(0, w->win));
  return old;
}

void drv_win_raise(drv_win_t *w, drv_slot_t slot, int64_t v) {
  int64_t old = 0;
  if (!mpi_on) {
    if (v > w->local[slot]) w->local[slot] = v;
    return;
  }
  /* MPI_MAX, not a compare-and-swap: Open MPI 4.1's shared-memory transport
   * crashes in its emulated compare-and-swap. */
  DRV_MPI(MPI_Fetch_and_op(&v, &old, MPI_INT64_T, 0, (MPI_Aint)slot, MPI_MAX, w->win));
  DRV_MPI(MPI_Win_flush(0, w->win));
}

void drv_win_close(drv_win_t *w) {
  w->base = NULL;
  if (!mpi_on) return;
  DRV_MPI(MPI_Win_unlock_all(w->win));
  DRV_MPI(MPI_Win_free(&w->win));
  w->base = NULL;
}
