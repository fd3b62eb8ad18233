/* driver: checked MPI calls, broadcast buffers and the shared counters of
 * `multiverse run` (see drv_mpi.h). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "driver/drv_mpi.h"

void drv_mpi_check(int rc, const char *file, int line, const char *call) {
  if (rc == MPI_SUCCESS) return;
  char why[MPI_MAX_ERROR_STRING] = "";
  int len = 0, rank = -1;
  MPI_Error_string(rc, why, &len);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  fprintf(stderr, "%s:%d: rank %d: %s failed: %s\n", file, line, rank, call, why);
  fflush(stderr);
  MPI_Abort(MPI_COMM_WORLD, 3);
  abort();
}

void drv_mpi_abort(const char *file, int line, const char *msg) {
  int rank = -1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  fprintf(stderr, "%s:%d: rank %d: %s\n", file, line, rank, msg);
  fflush(stderr);
  MPI_Abort(MPI_COMM_WORLD, 3);
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

void drv_buf_bcast(drv_buf_t *b, MPI_Comm comm) {
  int rank;
  int64_t len = (int64_t)b->len;
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

void drv_win_open(drv_win_t *w, MPI_Comm comm) {
  int rank;
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
  DRV_MPI(MPI_Fetch_and_op(&v, &old, MPI_INT64_T, 0, (MPI_Aint)slot, MPI_SUM, w->win));
  DRV_MPI(MPI_Win_flush(0, w->win));
  return old;
}

void drv_win_raise(drv_win_t *w, drv_slot_t slot, int64_t v) {
  int64_t old = 0;
  /* MPI_MAX, not a compare-and-swap: Open MPI 4.1's shared-memory transport
   * crashes in its emulated compare-and-swap. */
  DRV_MPI(MPI_Fetch_and_op(&v, &old, MPI_INT64_T, 0, (MPI_Aint)slot, MPI_MAX, w->win));
  DRV_MPI(MPI_Win_flush(0, w->win));
}

void drv_win_close(drv_win_t *w) {
  DRV_MPI(MPI_Win_unlock_all(w->win));
  DRV_MPI(MPI_Win_free(&w->win));
  w->base = NULL;
}
