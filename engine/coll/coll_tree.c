/* coll: NCCL's double binary tree allreduce between servers (the trees of
 * src/graph/trees.cc, the reduce-then-broadcast of src/device/all_reduce.h),
 * pipelined in chunks. */
#include <stdlib.h>

#include "coll/coll_int.h"

void coll_btree(int32_t n, int32_t rank, int32_t *up, int32_t *d0, int32_t *d1) {
  int32_t bit = 1;
  while (bit < n && !(bit & rank))
    bit <<= 1;
  if (rank == 0) { /* the root has one child: the top of the tree below it */
    *up = -1;
    *d0 = -1;
    *d1 = n > 1 ? bit >> 1 : -1;
    return;
  }
  /* A rank's lowest set bit gives its level; the parent clears it and sets
   * the next one up (or only clears it past the end). */
  int32_t p = (rank ^ bit) | (bit << 1);
  *up = p < n ? p : rank ^ bit;
  int32_t low = bit >> 1;
  *d0 = low ? rank - low : -1;
  int32_t c = -1;
  for (; low; low >>= 1)
    if (rank + low < n) {
      c = rank + low;
      break;
    }
  *d1 = c;
}

void coll_dtree(int32_t n, int32_t tree, int32_t rank, int32_t *up, int32_t *d0, int32_t *d1) {
  if (tree == 0) {
    coll_btree(n, rank, up, d0, d1);
    return;
  }
  int32_t u, a, c;
  if (n % 2) { /* shifted by one */
    coll_btree(n, (rank - 1 + n) % n, &u, &a, &c);
    *up = u < 0 ? -1 : (u + 1) % n;
    *d0 = a < 0 ? -1 : (a + 1) % n;
    *d1 = c < 0 ? -1 : (c + 1) % n;
  } else { /* mirrored */
    coll_btree(n, n - 1 - rank, &u, &a, &c);
    *up = u < 0 ? -1 : n - 1 - u;
    *d0 = a < 0 ? -1 : n - 1 - a;
    *d1 = c < 0 ? -1 : n - 1 - c;
  }
}

/* The shape of one tree: parent, children, and ranks parents first. */
typedef struct tree_t {
  int32_t *up, *c0, *c1, *order; /* (r) */
} tree_t;

static int tree_shape(int32_t r, int32_t tree, tree_t *t) {
  t->up = malloc(4 * (size_t)r * sizeof *t->up);
  if (!t->up) return -1;
  t->c0 = t->up + r;
  t->c1 = t->c0 + r;
  t->order = t->c1 + r;
  int32_t root = 0;
  for (int32_t k = 0; k < r; k++) {
    coll_dtree(r, tree, k, &t->up[k], &t->c0[k], &t->c1[k]);
    if (t->up[k] < 0) root = k;
  }
  int32_t head = 0, tail = 0;
  t->order[tail++] = root;
  while (head < tail) {
    int32_t k = t->order[head++];
    if (t->c0[k] >= 0) t->order[tail++] = t->c0[k];
    if (t->c1[k] >= 0) t->order[tail++] = t->c1[k];
  }
  return 0;
}

/* One tree of one channel: chunks reduced up to the root, then broadcast
 * down. up[q*r + k]: the flow of chunk q from k to its parent; dn[(q*r + k)*2
 * + j]: from k to its child j. */
static int one_tree(coll_b_t *b, int32_t r, const int32_t *mem, const tree_t *tr, uint64_t bytes,
                    const int32_t *ready, int32_t *up, int32_t *dn) {
  uint64_t chunk = b->d->chunk_bytes ? b->d->chunk_bytes : COLL_NCCL_STEP_BYTES;
  uint64_t parts = coll_b_parts(bytes, chunk);
  int32_t win = coll_b_window(b, COLL_PIPE_WINDOW);
  for (uint64_t q = 0; q < parts; q++) {
    uint64_t x = coll_piece(bytes, parts, q);
    size_t row = (size_t)q * (size_t)r;
    /* Up, children first: a rank sends chunk q once it holds its children's. */
    for (int32_t o = r - 1; o >= 0; o--) {
      int32_t k = tr->order[o], c[2] = {tr->c0[k], tr->c1[k]};
      if (tr->up[k] < 0) continue;
      int32_t t = coll_b_task(b, TG_FLOW, mem[k], mem[tr->up[k]], x, 0);
      up[row + (size_t)k] = t;
      int32_t old =
          win > 0 && q >= (uint64_t)win ? up[row - (size_t)win * (size_t)r + (size_t)k] : -1;
      if (t < 0 || coll_b_edge(b, t, ready[k], TG_ON_END) || coll_b_edge(b, t, old, TG_ON_END))
        return -1;
      for (int j = 0; j < 2; j++)
        if (c[j] >= 0 && coll_b_edge(b, t, up[row + (size_t)c[j]], TG_ON_RECV)) return -1;
    }
    /* Down, parents first: the root sends chunk q once it holds both
     * children's; the others forward what their parent sent. */
    for (int32_t o = 0; o < r; o++) {
      int32_t k = tr->order[o], u = tr->up[k], c[2] = {tr->c0[k], tr->c1[k]};
      int32_t in = u < 0 ? -1 : dn[(row + (size_t)u) * 2 + (tr->c0[u] == k ? 0 : 1)];
      for (int j = 0; j < 2; j++) {
        if (c[j] < 0) continue;
        size_t i = (row + (size_t)k) * 2 + (size_t)j;
        int32_t t = coll_b_task(b, TG_FLOW, mem[k], mem[c[j]], x, 0);
        dn[i] = t;
        int32_t old = win > 0 && q >= (uint64_t)win ? dn[i - (size_t)win * (size_t)r * 2] : -1;
        if (t < 0 || coll_b_edge(b, t, ready[k], TG_ON_END) || coll_b_edge(b, t, old, TG_ON_END) ||
            coll_b_edge(b, t, in, TG_ON_RECV))
          return -1;
        for (int h = 0; u < 0 && h < 2; h++)
          if (c[h] >= 0 && coll_b_edge(b, t, up[row + (size_t)c[h]], TG_ON_RECV)) return -1;
      }
    }
  }
  return 0;
}

int coll_tree(coll_b_t *b, int32_t r, const int32_t *mem, uint64_t bytes, const int32_t *ready) {
  if (r < 2) return 0;
  uint64_t ch = b->d->channels > 0 ? (uint64_t)b->d->channels : 1;
  if (bytes < 2 * ch) {
    ch = bytes / 2;
    if (ch == 0) {
      snprintf(b->err, b->errlen, "tree allreduce of %llu bytes: fewer bytes than trees",
               (unsigned long long)bytes);
      return -1;
    }
  }
  uint64_t chunk = b->d->chunk_bytes ? b->d->chunk_bytes : COLL_NCCL_STEP_BYTES;
  for (int32_t tree = 0; tree < 2; tree++) {
    tree_t tr;
    if (tree_shape(r, tree, &tr)) {
      snprintf(b->err, b->errlen, "out of memory");
      return -1;
    }
    for (uint64_t c = 0; c < ch; c++) {
      uint64_t x = coll_piece(coll_piece(bytes, 2, (uint64_t)tree), ch, c);
      size_t cells = (size_t)coll_b_parts(x, chunk) * (size_t)r;
      int32_t *up = malloc(cells * sizeof *up), *dn = malloc(cells * 2 * sizeof *dn);
      int rc = -1;
      if (up && dn) {
        for (size_t i = 0; i < cells; i++)
          up[i] = dn[2 * i] = dn[2 * i + 1] = -1;
        rc = one_tree(b, r, mem, &tr, x, ready, up, dn);
      } else {
        snprintf(b->err, b->errlen, "out of memory");
      }
      free(up);
      free(dn);
      if (rc) {
        free(tr.up);
        return -1;
      }
    }
    free(tr.up);
  }
  return 0;
}
