/* Internal to engine/sim: column memory of a world. */
#ifndef ENG_WORLD_COLS_H
#define ENG_WORLD_COLS_H

#include "sim/eng_world.h"

/* Allocates every column with w->n rows (zeroed); check with eng_cols_ok. */
void eng_cols_alloc(eng_world_t *w);
int eng_cols_ok(const eng_world_t *w);

#endif
