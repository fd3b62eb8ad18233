/* coll internals: the state of one collective being appended to a task graph,
 * shared by the phase builders (coll_tg.c, coll_ring.c, coll_tree.c). */
#ifndef COLL_INT_H
#define COLL_INT_H

#include "coll/coll.h"

/* NCCL's Simple protocol moves data in steps of its 4 MiB buffer / NCCL_STEPS
 * (8): 512 KiB; ring collectives take 4 steps per chunk, the others 1, so a
 * connection holds 2 ring chunks or 8 others in flight. */
#define COLL_NCCL_STEP_BYTES (512u * 1024u)
#define COLL_RING_WINDOW 2
#define COLL_PIPE_WINDOW 8

typedef struct coll_b_t {
  tg_t *g;
  const coll_cluster_t *cl;
  const coll_desc_t *d;
  int32_t n;          /* members */
  const int32_t *gpu; /* (n) GPU of each member */
  int32_t *host;      /* (n) its NIC's host node */
  int32_t *server;    /* (n) its server, numbered in order of first appearance */
  int32_t *slot;      /* (n) its position among the members of its server */
  int32_t m, per;     /* servers, members per server */
  int32_t *at;        /* (m * per) member at (server, slot) */
  int32_t first;      /* first task of this collective */
  int32_t *own, *rx;  /* (cap) per task since `first`: owner member, receiving member or -1 */
  int32_t cap;
  int32_t label; /* tg label, -1 */
  char *err;
  size_t errlen;
} coll_b_t;

/* i-th of k near-equal parts of x bytes (the first x % k parts one byte more). */
static inline uint64_t coll_piece(uint64_t x, uint64_t k, uint64_t i) {
  return x / k + (i < x % k ? 1 : 0);
}

/* Appends a task owned by member `own` (a flow to member `to`, -1 otherwise);
 * its index, or -1 with "out of memory". */
int32_t coll_b_task(coll_b_t *b, tg_kind_t kind, int32_t own, int32_t to, uint64_t bytes,
                    int64_t dur);
/* task waits for event `on` of pred (nothing if pred < 0); 0 or -1. */
int coll_b_edge(coll_b_t *b, int32_t task, int32_t pred, tg_on_t on);
/* Flows in flight per connection: the descriptor's window, else `def`. */
int32_t coll_b_window(const coll_b_t *b, int32_t def);
/* Number of parts to cut `bytes` into with parts of at most `chunk` bytes
 * (0: one), never more than `bytes`. */
uint64_t coll_b_parts(uint64_t bytes, uint64_t chunk);

/* Phases between servers. `mem` lists r members in ring or chain order;
 * ready[i] (-1: none) is the task every flow of mem[i] waits for. */
/* Ring allreduce (2(r-1) steps), allgather or reducescatter (r-1 steps);
 * blocks[i] = bytes of the block ring position i contributes (allgather) or
 * ends with (reducescatter; allreduce: its chunk). */
int coll_ring(coll_b_t *b, coll_kind_t kind, int32_t r, const int32_t *mem, const uint64_t *blocks,
              const int32_t *ready);
/* Chain pipeline mem[0] -> mem[1] -> ... -> mem[r-1] of `bytes` in chunks
 * (broadcast from mem[0], reduce to mem[r-1], sendrecv with r = 2). */
int coll_chain(coll_b_t *b, int32_t r, const int32_t *mem, uint64_t bytes, uint64_t def_chunk,
               const int32_t *ready);
/* NCCL's double binary tree allreduce of `bytes` among r members. */
int coll_tree(coll_b_t *b, int32_t r, const int32_t *mem, uint64_t bytes, const int32_t *ready);
/* Alltoall between members of different servers, pairwise order. */
int coll_a2a(coll_b_t *b, uint64_t bytes, const int32_t *ready);

/* NCCL's binary tree over n ranks (rank 0 the root): parent (-1 at the root)
 * and two children (-1: none). Tree 1 of the double tree is tree 0 mirrored
 * (n even) or shifted by one rank (n odd). */
void coll_btree(int32_t n, int32_t rank, int32_t *up, int32_t *d0, int32_t *d1);
void coll_dtree(int32_t n, int32_t tree, int32_t rank, int32_t *up, int32_t *d0, int32_t *d1);

#endif
