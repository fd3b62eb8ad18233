/* trn: the job file's model object (or a preset of models.json) into a trn_model_t:
 * every key checked, defaults filled, the shape checked for consistency. */
#include <stdio.h>
#include <string.h>

#include "train/trn_int.h"

static const char *const act_names[] = {"gelu", "swiglu", NULL};
static const char *const norm_names[] = {"layernorm", "rmsnorm", NULL};
static const char *const pos_names[] = {"learned", "rope", NULL};

/* Keys of a model; presets also carry "source" and "note". */
static const char *const model_keys[] = {
    "preset",  "layers",  "hidden", "heads", "kv_heads",  "ffn_hidden", "activation",      "vocab",
    "seq_len", "experts", "top_k",  "norm",  "positions", "bias",       "tied_embeddings", NULL};
static const char *const preset_keys[] = {
    "layers",          "hidden",  "heads",   "kv_heads", "ffn_hidden", "activation",
    "vocab",           "seq_len", "experts", "top_k",    "norm",       "positions",
    "tied_embeddings", "bias",    "source",  "note",     NULL};

/* Reads one integer key; a bad value leaves 0 (unknown) so later checks skip it. */
static void read_int(const json_t *o, const char *key, int64_t min, int64_t max, int64_t *out,
                     const char *where, trn_problems_t *pr) {
  if (trn_jint(o, key, min, max, out, where, pr) < 0) *out = 0;
}

static void read_keys(const json_t *o, const char *where, trn_model_t *m, trn_problems_t *pr) {
  read_int(o, "layers", 1, 4096, &m->layers, where, pr);
  read_int(o, "hidden", 1, 131072, &m->hidden, where, pr);
  read_int(o, "heads", 1, 131072, &m->heads, where, pr);
  read_int(o, "kv_heads", 1, 131072, &m->kv_heads, where, pr);
  read_int(o, "ffn_hidden", 1, 524288, &m->ffn_hidden, where, pr);
  read_int(o, "vocab", 1, 4194304, &m->vocab, where, pr);
  read_int(o, "seq_len", 1, 4194304, &m->seq_len, where, pr);
  read_int(o, "experts", 1, 1024, &m->experts, where, pr);
  read_int(o, "top_k", 1, 1024, &m->top_k, where, pr);
  trn_jenum(o, "activation", act_names, &m->activation, where, pr);
  trn_jenum(o, "norm", norm_names, &m->norm, where, pr);
  trn_jenum(o, "positions", pos_names, &m->positions, where, pr);
  trn_jbool(o, "bias", &m->bias, where, pr);
  trn_jbool(o, "tied_embeddings", &m->tied_embeddings, where, pr);
}

/* Fills what is still unset by its default and checks the shape as a whole. */
static void finish(const json_t *o, const char *where, trn_model_t *m, trn_problems_t *pr) {
  static const char *const required[] = {"layers", "hidden", "heads", "vocab", "seq_len"};
  const int64_t *req[] = {&m->layers, &m->hidden, &m->heads, &m->vocab, &m->seq_len};
  for (int i = 0; i < 5 && !json_object_get(o, "preset"); i++)
    if (*req[i] == 0 && !json_object_get(o, required[i]))
      trn_jproblem(pr, where, required[i], "missing (give it, or a preset that has it)");
  if (m->kv_heads == 0 && !json_object_get(o, "kv_heads")) m->kv_heads = m->heads;
  if (m->ffn_hidden == 0 && !json_object_get(o, "ffn_hidden")) {
    /* Megatron-LM: 4h for GeLU; 2/3 of 4h down to a multiple of 64 for SwiGLU. */
    m->ffn_hidden = m->activation == TRN_SWIGLU ? 4 * m->hidden * 2 / 3 / 64 * 64 : 4 * m->hidden;
    if (m->hidden && m->ffn_hidden == 0) m->ffn_hidden = 64;
  }
  if (m->experts == 0 && !json_object_get(o, "experts")) m->experts = 1;
  if (m->top_k == 0 && !json_object_get(o, "top_k")) m->top_k = m->experts > 1 ? 2 : 1;
  if (m->hidden && m->heads && m->hidden % m->heads)
    trn_jproblem(pr, where, "heads", "must divide hidden (%lld), got %lld", (long long)m->hidden,
                 (long long)m->heads);
  if (m->heads && m->kv_heads && (m->kv_heads > m->heads || m->heads % m->kv_heads))
    trn_jproblem(pr, where, "kv_heads", "must divide heads (%lld), got %lld", (long long)m->heads,
                 (long long)m->kv_heads);
  if (m->experts && m->top_k > m->experts)
    trn_jproblem(pr, where, "top_k", "must be at most experts (%lld), got %lld",
                 (long long)m->experts, (long long)m->top_k);
}

static trn_model_t model_default(void) {
  return (trn_model_t){.activation = TRN_GELU,
                       .norm = TRN_LAYERNORM,
                       .positions = TRN_POS_LEARNED,
                       .bias = 1,
                       .tied_embeddings = 1};
}

/* A preset entry of models.json (no preset key of its own). */
int trn_model_read_preset(const json_t *o, const char *name, const char *where, trn_model_t *m,
                          trn_problems_t *pr) {
  int before = pr->n;
  *m = model_default();
  snprintf(m->name, sizeof m->name, "%s", name);
  if (strlen(name) >= sizeof m->name)
    trn_jproblem(pr, where, NULL, "preset name longer than %zu characters", sizeof m->name - 1);
  if (!json_is_object(o)) {
    trn_jproblem(pr, where, NULL, "must be an object");
    return pr->n - before;
  }
  trn_jkeys(o, preset_keys, where, pr);
  read_keys(o, where, m, pr);
  finish(o, where, m, pr);
  return pr->n - before;
}

int trn_model_parse(const json_t *o, const trn_presets_t *p, const char *where, trn_model_t *m,
                    trn_problems_t *pr) {
  int before = pr->n;
  char name[TRN_NAME_LEN] = "";
  *m = model_default();
  if (!o) {
    trn_jproblem(pr, where, NULL,
                 "missing (give a preset, or layers, hidden, heads, vocab, "
                 "seq_len)");
    return pr->n - before;
  }
  if (!json_is_object(o)) {
    trn_jproblem(pr, where, NULL, "must be an object");
    return pr->n - before;
  }
  trn_jkeys(o, model_keys, where, pr);
  if (trn_jstr(o, "preset", name, sizeof name, where, pr) > 0) {
    const trn_model_t *pm = p ? trn_preset_model(p, name) : NULL;
    if (pm) {
      *m = *pm;
    } else {
      char list[TRN_ERR_LEN / 2] = "";
      for (int32_t i = 0; p && i < p->n_models; i++) {
        size_t n = strlen(list);
        snprintf(list + n, sizeof list - n, "%s%s", i ? ", " : "", p->models[i].name);
      }
      trn_jproblem(pr, where, "preset", "unknown model \"%s\" (presets: %s)", name, list);
    }
  }
  if (!json_object_get(o, "preset")) m->name[0] = '\0';
  read_keys(o, where, m, pr);
  finish(o, where, m, pr);
  return pr->n - before;
}

json_t *trn_model_json(const trn_model_t *m) {
  return json_pack("{s:I,s:I,s:I,s:I,s:I,s:I,s:I,s:I,s:I,s:s,s:s,s:s,s:b,s:b}", "layers",
                   (json_int_t)m->layers, "hidden", (json_int_t)m->hidden, "heads",
                   (json_int_t)m->heads, "kv_heads", (json_int_t)m->kv_heads, "ffn_hidden",
                   (json_int_t)m->ffn_hidden, "vocab", (json_int_t)m->vocab, "seq_len",
                   (json_int_t)m->seq_len, "experts", (json_int_t)m->experts, "top_k",
                   (json_int_t)m->top_k, "activation", act_names[m->activation], "norm",
                   norm_names[m->norm], "positions", pos_names[m->positions], "bias", m->bias,
                   "tied_embeddings", m->tied_embeddings);
}
