/* coll: flows between servers for rings, chain pipelines and alltoall, with
 * the step order of NCCL's device code (src/device/all_reduce.h,
 * all_gather.h, reduce_scatter.h, broadcast.h, reduce.h). */
#include <stdlib.h>

#include "coll/coll_int.h"

int coll_ring(coll_b_t *b, coll_kind_t kind, int32_t r, const int32_t *mem, const uint64_t *blocks,
              const int32_t *ready) {
  if (r < 2) return 0;
  int32_t steps = kind == COLL_ALLREDUCE ? 2 * (r - 1) : r - 1;
  uint64_t bmin = blocks[0];
  for (int32_t i = 1; i < r; i++)
    if (blocks[i] < bmin) bmin = blocks[i];
  if (bmin == 0) {
    snprintf(b->err, b->errlen,
             "%s of %llu bytes among %d servers: a ring step would carry no "
             "data (fewer bytes than members)",
             coll_name(b->d->kind), (unsigned long long)b->d->bytes, r);
    return -1;
  }
  uint64_t ch = b->d->channels > 0 ? (uint64_t)b->d->channels : 1;
  if (ch > bmin) ch = bmin; /* as NCCL, fewer channels for small sizes */
  int32_t win = coll_b_window(b, b->d->chunk_bytes ? COLL_RING_WINDOW : 0);
  for (uint64_t c = 0; c < ch; c++) {
    /* Loops over n chunks of at most chunk_bytes (NCCL's loopCount), all
     * blocks cut into the same number of parts. */
    uint64_t cmax = 0, cmin = UINT64_MAX;
    for (int32_t i = 0; i < r; i++) {
      uint64_t x = coll_piece(blocks[i], ch, c);
      if (x > cmax) cmax = x;
      if (x < cmin) cmin = x;
    }
    uint64_t loops = coll_b_parts(cmax, b->d->chunk_bytes);
    if (loops > cmin) loops = cmin;
    size_t per_loop = (size_t)steps * (size_t)r;
    int32_t *f = malloc(loops * per_loop * sizeof *f); /* [(l*steps + s)*r + k] */
    if (!f) {
      snprintf(b->err, b->errlen, "out of memory");
      return -1;
    }
    for (uint64_t l = 0; l < loops; l++)
      for (int32_t s = 0; s < steps; s++)
        for (int32_t k = 0; k < r; k++) {
          int32_t chunk; /* ring position whose block this step moves */
          if (kind == COLL_ALLGATHER)
            chunk = k - s;
          else if (kind == COLL_REDUCESCATTER || s < r - 1)
            chunk = k - 1 - s;
          else
            chunk = k - (s - (r - 1));
          chunk = ((chunk % r) + r) % r;
          uint64_t bytes = coll_piece(coll_piece(blocks[chunk], ch, c), loops, l);
          int32_t prev = (k + r - 1) % r, next = (k + 1) % r;
          size_t q = l * (size_t)steps + (size_t)s; /* this connection's q-th flow */
          int32_t t = coll_b_task(b, TG_FLOW, mem[k], mem[next], bytes, 0);
          f[q * (size_t)r + (size_t)k] = t;
          /* Step s forwards what step s-1 brought; a loop's first step
           * follows the previous loop's last receive (program order). */
          int32_t in = q > 0 ? f[(q - 1) * (size_t)r + (size_t)prev] : -1;
          int32_t old = win > 0 && q >= (size_t)win ? f[(q - win) * (size_t)r + (size_t)k] : -1;
          if (t < 0 || coll_b_edge(b, t, ready[k], TG_ON_END) ||
              coll_b_edge(b, t, in, TG_ON_RECV) || coll_b_edge(b, t, old, TG_ON_END)) {
            free(f);
            return -1;
          }
        }
    free(f);
  }
  return 0;
}

int coll_chain(coll_b_t *b, int32_t r, const int32_t *mem, uint64_t bytes, uint64_t def_chunk,
               const int32_t *ready) {
  if (r < 2) return 0;
  uint64_t ch = b->d->channels > 0 ? (uint64_t)b->d->channels : 1;
  if (ch > bytes) ch = bytes;
  uint64_t chunk = b->d->chunk_bytes ? b->d->chunk_bytes : def_chunk;
  int32_t win = coll_b_window(b, COLL_PIPE_WINDOW);
  for (uint64_t c = 0; c < ch; c++) {
    uint64_t cb = coll_piece(bytes, ch, c), parts = coll_b_parts(cb, chunk);
    int32_t *f = malloc(parts * (size_t)(r - 1) * sizeof *f); /* [q*(r-1) + k] */
    if (!f) {
      snprintf(b->err, b->errlen, "out of memory");
      return -1;
    }
    for (uint64_t q = 0; q < parts; q++)
      for (int32_t k = 0; k + 1 < r; k++) {
        int32_t t = coll_b_task(b, TG_FLOW, mem[k], mem[k + 1], coll_piece(cb, parts, q), 0);
        f[q * (size_t)(r - 1) + (size_t)k] = t;
        int32_t in = k > 0 ? f[q * (size_t)(r - 1) + (size_t)k - 1] : -1;
        int32_t old =
            win > 0 && q >= (uint64_t)win ? f[(q - win) * (size_t)(r - 1) + (size_t)k] : -1;
        if (t < 0 || coll_b_edge(b, t, ready[k], TG_ON_END) || coll_b_edge(b, t, in, TG_ON_RECV) ||
            coll_b_edge(b, t, old, TG_ON_END)) {
          free(f);
          return -1;
        }
      }
    free(f);
  }
  return 0;
}

int coll_a2a(coll_b_t *b, uint64_t bytes, const int32_t *ready) {
  int32_t n = b->n, w = b->d->a2a_window;
  int32_t *sent = malloc((size_t)n * sizeof *sent);
  if (!sent) {
    snprintf(b->err, b->errlen, "out of memory");
    return -1;
  }
  for (int32_t k = 0; k < n; k++) {
    int32_t q = 0;
    /* Round i: send to k + i, receive from k - i (NCCL's p2p schedule). */
    for (int32_t i = 1; i < n; i++) {
      int32_t p = (k + i) % n;
      if (b->server[p] == b->server[k]) continue;
      uint64_t x = coll_piece(bytes, (uint64_t)n, (uint64_t)(b->server[p] * b->per + b->slot[p]));
      if (x == 0) continue;
      int32_t t = coll_b_task(b, TG_FLOW, k, p, x, 0);
      sent[q] = t;
      if (t < 0 || coll_b_edge(b, t, ready[k], TG_ON_END) ||
          coll_b_edge(b, t, w > 0 && q >= w ? sent[q - w] : -1, TG_ON_END)) {
        free(sent);
        return -1;
      }
      q++;
    }
  }
  free(sent);
  return 0;
}
