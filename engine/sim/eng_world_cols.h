/* Internal to engine/sim: column memory of a world. */
#ifndef ENG_WORLD_COLS_H
#define ENG_WORLD_COLS_H

#include "sim/eng_world.h"

/* Allocates every column with w->n rows (zeroed); check with eng_cols_ok. */
void eng_cols_alloc(eng_world_t *w);
int eng_cols_ok(const eng_world_t *w);

/* eng_build_mmu.c: class queues per port, and the relays' buffers of one
 * experiment's nodes and ports (rows from node0, port0; class rows from
 * *cls_next on, which advances). */
int32_t eng_build_n_cls(const eng_params_t *p);
void eng_build_buffers(eng_cols_t *c, const topo_t *t, const eng_params_t *p, int32_t node0,
                       int32_t port0, int32_t *cls_next);

#endif
