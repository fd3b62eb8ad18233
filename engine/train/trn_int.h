/* trn internals shared by the module's files: checked access to JSON keys that add
 * one problem per mistake, and size limits. */
#ifndef TRN_INT_H
#define TRN_INT_H

#include "train/trn.h"

#define TRN_MAX_DIM ((int64_t)1 << 24)   /* hidden, ffn_hidden, vocab, seq_len, batch */
#define TRN_MAX_COUNT ((int64_t)1 << 20) /* layers, heads, experts, parallel sizes */

/* Presets: one entry of models.json or gpus.json (named `where` in messages); for
 * a GPU, `all` is the gpus object (for curves borrowed from another GPU) and
 * max_aspect the curve's shape limit. They return the number of problems added. */
int trn_model_read_preset(const json_t *o, const char *name, const char *where, trn_model_t *m,
                          trn_problems_t *pr);
int trn_gpu_read_preset(const json_t *o, const json_t *all, double max_aspect, const char *name,
                        const char *where, trn_gpu_t *g, trn_problems_t *pr);

/* Bytes per element of the plan's dtype (2 for bf16 and fp16). */
static inline int64_t trn_dtype_bytes(int32_t dtype) {
  (void)dtype;
  return 2;
}

/* ceil(a / b) for a >= 0, b > 0. */
static inline int64_t trn_ceil_div(int64_t a, int64_t b) {
  return (a + b - 1) / b;
}

#endif
