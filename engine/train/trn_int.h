/* trn internals shared by the module's files: checked access to JSON keys that add
 * one problem per mistake, and size limits. */
#ifndef TRN_INT_H
#define TRN_INT_H

#include "train/trn.h"

#define TRN_MAX_DIM ((int64_t)1 << 24)   /* hidden, ffn_hidden, vocab, seq_len, batch */
#define TRN_MAX_COUNT ((int64_t)1 << 20) /* layers, heads, experts, parallel sizes */

/* Adds "WHERE.KEY: message" (or "WHERE: message" when key is NULL). */
void trn_jproblem(trn_problems_t *pr, const char *where, const char *key, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

/* One problem per key of obj not in the NULL-terminated list `allowed`. */
void trn_jkeys(const json_t *obj, const char *const *allowed, const char *where,
               trn_problems_t *pr);

/* Each reader leaves *out unchanged when the key is absent and returns 0; 1 when it
 * read a good value; -1 (and a problem) when the value is bad. */
int trn_jint(const json_t *obj, const char *key, int64_t min, int64_t max, int64_t *out,
             const char *where, trn_problems_t *pr);
int trn_jnum(const json_t *obj, const char *key, double min, double max, double *out,
             const char *where, trn_problems_t *pr);
int trn_jbool(const json_t *obj, const char *key, int32_t *out, const char *where,
              trn_problems_t *pr);
/* A string among the NULL-terminated `names`; *out is its index. */
int trn_jenum(const json_t *obj, const char *key, const char *const *names, int32_t *out,
              const char *where, trn_problems_t *pr);
/* A string of at most len - 1 characters. */
int trn_jstr(const json_t *obj, const char *key, char *out, size_t len, const char *where,
             trn_problems_t *pr);

/* "WHERE.KEY" into buf. */
const char *trn_path(char *buf, size_t len, const char *where, const char *key);

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
