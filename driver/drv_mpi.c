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

void drv_buf_f64(drv_buf_t *b, double v) {
  buf_put(b, &v, sizeof v);
}

void drv_buf_bytes(drv_buf_t *b, const void *p, size_t n) {
  buf_put(b, p, n);
}

void drv_buf_get_bytes(drv_buf_t *b, void *p, size_t n) {
  if (b->pos + n > b->len) DRV_ABORT("the plan's broadcast is shorter than its contents");
  memcpy(p, b->p + b->pos, n);
  b->pos += n;
}

double drv_buf_get_f64(drv_buf_t *b) {
  double v;
  drv_buf_get_bytes(b, &v, sizeof v);
  return v;
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

void drv_win_open(drv_win_t *w, int64_t counters, int64_t n_flags, size_t rec_size,
                  int64_t rec_cap) {
  MPI_Comm comm = MPI_COMM_WORLD;
  int rank;
  memset(w, 0, sizeof *w);
  if (counters < DRV_SLOTS) counters = DRV_SLOTS;
  w->n_flags = n_flags;
  w->rec_size = rec_size;
  w->rec_cap = rec_cap;
  if (!mpi_on) { /* one rank: its own arrays, zero */
    w->local = 1;
    w->base = calloc((size_t)counters, sizeof *w->base);
    w->flag_base = calloc(n_flags > 0 ? (size_t)n_flags : 1, sizeof *w->flag_base);
    w->rec_base = calloc(rec_cap > 0 ? (size_t)rec_cap : 1, rec_size ? rec_size : 1);
    if (!w->base || !w->flag_base || !w->rec_base) DRV_ABORT("out of memory for the run's counters");
    return;
  }
  DRV_MPI(MPI_Comm_rank(comm, &rank));
  MPI_Aint size = rank == 0 ? (MPI_Aint)((size_t)counters * sizeof(int64_t)) : 0;
  if (MPI_Win_allocate(size, sizeof(int64_t), MPI_INFO_NULL, comm, &w->base, &w->win))
    DRV_ABORT("cannot create an MPI window (one-sided communication) over these ranks: with "
              "Open MPI, name a component that works on this network in OMPI_MCA_osc "
              "(sm,pt2pt works on any)");
  DRV_MPI(MPI_Win_set_errhandler(w->win, MPI_ERRORS_RETURN));
  size = rank == 0 ? (MPI_Aint)((size_t)n_flags * sizeof(int32_t)) : 0;
  DRV_MPI(MPI_Win_allocate(size, sizeof(int32_t), MPI_INFO_NULL, comm, &w->flag_base, &w->flags));
  DRV_MPI(MPI_Win_set_errhandler(w->flags, MPI_ERRORS_RETURN));
  size = (MPI_Aint)(rec_size * (size_t)rec_cap);
  DRV_MPI(MPI_Win_allocate(size, 1, MPI_INFO_NULL, comm, &w->rec_base, &w->recs));
  DRV_MPI(MPI_Win_set_errhandler(w->recs, MPI_ERRORS_RETURN));
  if (rank == 0) {
    DRV_MPI(MPI_Win_lock(MPI_LOCK_EXCLUSIVE, 0, 0, w->win));
    memset(w->base, 0, (size_t)counters * sizeof(int64_t));
    DRV_MPI(MPI_Win_unlock(0, w->win));
    DRV_MPI(MPI_Win_lock(MPI_LOCK_EXCLUSIVE, 0, 0, w->flags));
    memset(w->flag_base, 0, (size_t)n_flags * sizeof(int32_t));
    DRV_MPI(MPI_Win_unlock(0, w->flags));
  } else {
    w->base = NULL;
    w->flag_base = NULL;
  }
  DRV_MPI(MPI_Barrier(comm));
  DRV_MPI(MPI_Win_lock_all(0, w->win));
  DRV_MPI(MPI_Win_lock_all(0, w->flags));
  DRV_MPI(MPI_Win_lock_all(0, w->recs));
}

/* Without MPI only the rank's main thread calls these (as with MPI:
 * MPI_THREAD_FUNNELED), so plain reads and writes are atomic enough. */

int64_t drv_win_add(drv_win_t *w, int64_t slot, int64_t v) {
  int64_t old = 0;
  if (w->local) {
    old = w->base[slot];
    w->base[slot] += v;
    return old;
  }
  DRV_MPI(MPI_Fetch_and_op(&v, &old, MPI_INT64_T, 0, (MPI_Aint)slot, MPI_SUM, w->win));
  DRV_MPI(MPI_Win_flush(0, w->win));
  return old;
}

void drv_win_raise(drv_win_t *w, int64_t slot, int64_t v) {
  int64_t old = 0;
  if (w->local) {
    if (v > w->base[slot]) w->base[slot] = v;
    return;
  }
  /* MPI_MAX, not a compare-and-swap: Open MPI 4.1's shared-memory transport
   * crashes in its emulated compare-and-swap. */
  DRV_MPI(MPI_Fetch_and_op(&v, &old, MPI_INT64_T, 0, (MPI_Aint)slot, MPI_MAX, w->win));
  DRV_MPI(MPI_Win_flush(0, w->win));
}

void drv_win_set(drv_win_t *w, int64_t slot, int64_t v) {
  int64_t old = 0;
  if (w->local) {
    w->base[slot] = v;
    return;
  }
  DRV_MPI(MPI_Fetch_and_op(&v, &old, MPI_INT64_T, 0, (MPI_Aint)slot, MPI_REPLACE, w->win));
  DRV_MPI(MPI_Win_flush(0, w->win));
}

/* Reads go through MPI_Get_accumulate with MPI_NO_OP: atomic with the
 * fetch-and-ops of other ranks on the same counters. */
void drv_win_read(drv_win_t *w, int64_t first, int64_t n, int64_t *out) {
  if (n <= 0) return;
  if (w->local) {
    memcpy(out, w->base + first, (size_t)n * sizeof *out);
    return;
  }
  DRV_MPI(MPI_Get_accumulate(NULL, 0, MPI_INT64_T, out, (int)n, MPI_INT64_T, 0, (MPI_Aint)first,
                             (int)n, MPI_INT64_T, MPI_NO_OP, w->win));
  DRV_MPI(MPI_Win_flush(0, w->win));
}

void drv_win_flags(drv_win_t *w, int32_t *out) {
  if (w->local) {
    if (w->n_flags > 0) memcpy(out, w->flag_base, (size_t)w->n_flags * sizeof *out);
    return;
  }
  /* In chunks: MPI counts are int. */
  for (int64_t at = 0; at < w->n_flags; at += 1 << 28) {
    int64_t n = w->n_flags - at < (1 << 28) ? w->n_flags - at : 1 << 28;
    DRV_MPI(MPI_Get_accumulate(NULL, 0, MPI_INT32_T, out + at, (int)n, MPI_INT32_T, 0, (MPI_Aint)at,
                               (int)n, MPI_INT32_T, MPI_NO_OP, w->flags));
  }
  DRV_MPI(MPI_Win_flush(0, w->flags));
}

void drv_win_claim(drv_win_t *w, const int32_t *idx, int32_t n, int32_t *old) {
  const int32_t one = 1;
  if (w->local) {
    for (int32_t k = 0; k < n; k++) old[k] = w->flag_base[idx[k]]++;
    return;
  }
  for (int32_t k = 0; k < n; k++)
    DRV_MPI(MPI_Fetch_and_op(&one, &old[k], MPI_INT32_T, 0, (MPI_Aint)idx[k], MPI_SUM, w->flags));
  DRV_MPI(MPI_Win_flush(0, w->flags));
}

void drv_win_publish(drv_win_t *w, int64_t k, const void *rec, int64_t count_slot) {
  if (k < 0 || k >= w->rec_cap) return;
  memcpy(w->rec_base + (size_t)k * w->rec_size, rec, w->rec_size);
  if (!w->local) DRV_MPI(MPI_Win_sync(w->recs)); /* the record before the count that shows it */
  drv_win_set(w, count_slot, k + 1);
}

void drv_win_records(drv_win_t *w, int r, int64_t first, int64_t n, void *out) {
  if (n <= 0) return;
  if (w->local) {
    memcpy(out, w->rec_base + (size_t)first * w->rec_size, (size_t)n * w->rec_size);
    return;
  }
  DRV_MPI(MPI_Get(out, (int)((size_t)n * w->rec_size), MPI_BYTE, r,
                  (MPI_Aint)((size_t)first * w->rec_size), (int)((size_t)n * w->rec_size), MPI_BYTE,
                  w->recs));
  DRV_MPI(MPI_Win_flush(r, w->recs));
}

void drv_win_close(drv_win_t *w) {
  if (w->local) {
    free(w->base);
    free(w->flag_base);
    free(w->rec_base);
  } else {
    DRV_MPI(MPI_Win_unlock_all(w->recs));
    DRV_MPI(MPI_Win_unlock_all(w->flags));
    DRV_MPI(MPI_Win_unlock_all(w->win));
    DRV_MPI(MPI_Win_free(&w->recs));
    DRV_MPI(MPI_Win_free(&w->flags));
    DRV_MPI(MPI_Win_free(&w->win));
  }
  w->base = NULL;
  w->flag_base = NULL;
  w->rec_base = NULL;
}
