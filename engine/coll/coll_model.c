/* coll: the intra-server model: model files (presets, calibrations) and the
 * curve of a (GPU, collective, GPU count), measured or derived. */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/base_units.h"
#include "base/base_err.h"
#include "base/base_json.h"
#include "coll/coll.h"

/* Rejects keys of o outside the NULL-terminated list; `at` is the object's path. */
static int check_keys(const json_t *o, const char *const *ok, const char *at, char *err,
                      size_t errlen) {
  const char *key;
  json_t *v;
  json_object_foreach((json_t *)o, key, v) {
    int found = 0;
    for (int i = 0; ok[i] && !found; i++)
      found = strcmp(key, ok[i]) == 0;
    if (!found) {
      base_errf(err, errlen, "%s.%s: unknown key", at, key);
      return -1;
    }
  }
  return 0;
}

/* A number (integer or real) at o[key]; -1 when absent or not a number. */
static int get_num(const json_t *o, const char *key, double *out) {
  const json_t *v = json_object_get(o, key);
  if (!json_is_number(v)) return -1;
  *out = json_number_value(v);
  return 0;
}

static int get_name(const json_t *o, const char *key, char *out, const char *at, char *err,
                    size_t errlen) {
  const char *s = json_string_value(json_object_get(o, key));
  if (!s || !*s || strlen(s) >= COLL_NAME_LEN) {
    base_errf(err, errlen, "%s.%s: must be a name of 1 to %d characters", at, key,
              COLL_NAME_LEN - 1);
    return -1;
  }
  strcpy(out, s);
  return 0;
}

/* "gpu", "collective", "gpus" of an entry (a curve or the reference). */
static int get_key3(const json_t *o, char *gpu, int32_t *kind, int32_t *gpus, const char *at,
                    char *err, size_t errlen) {
  if (get_name(o, "gpu", gpu, at, err, errlen)) return -1;
  const char *c = json_string_value(json_object_get(o, "collective"));
  *kind = c ? coll_kind_parse(c) : -1;
  if (*kind < 0) {
    base_errf(err, errlen,
              "%s.collective: must be allreduce, allgather, reducescatter, alltoall, "
              "broadcast, reduce or sendrecv",
              at);
    return -1;
  }
  const json_t *n = json_object_get(o, "gpus");
  if (!json_is_integer(n) || json_integer_value(n) < 1 ||
      json_integer_value(n) > COLL_MAX_SERVER_GPUS) {
    base_errf(err, errlen, "%s.gpus: must be an integer in [1, %d]", at, COLL_MAX_SERVER_GPUS);
    return -1;
  }
  *gpus = (int32_t)json_integer_value(n);
  return 0;
}

static int parse_fit(const json_t *o, coll_fit_t *f, const char *at, char *err, size_t errlen) {
  static const char *const keys[] = {"gpu",    "collective", "gpus",   "ranges",       "max_error",
                                     "source", "note",       "points", "derived_from", NULL};
  memset(f, 0, sizeof *f);
  if (!json_is_object(o)) {
    base_errf(err, errlen, "%s: must be an object", at);
    return -1;
  }
  if (check_keys(o, keys, at, err, errlen) ||
      get_key3(o, f->gpu, &f->kind, &f->gpus, at, err, errlen))
    return -1;
  const json_t *rs = json_object_get(o, "ranges");
  size_t nr = json_array_size(rs);
  if (!json_is_array(rs) || nr < 1 || nr > COLL_MAX_RANGES) {
    base_errf(err, errlen, "%s.ranges: must be an array of 1 to %d ranges", at, COLL_MAX_RANGES);
    return -1;
  }
  static const char *const rkeys[] = {"max_bytes", "alpha_us", "beta_GBps", NULL};
  for (size_t i = 0; i < nr; i++) {
    const json_t *r = json_array_get(rs, i);
    char rat[800];
    snprintf(rat, sizeof rat, "%s.ranges[%zu]", at, i);
    if (!json_is_object(r)) {
      base_errf(err, errlen, "%s: must be an object", rat);
      return -1;
    }
    if (check_keys(r, rkeys, rat, err, errlen)) return -1;
    coll_range_t *x = &f->r[i];
    const json_t *mb = json_object_get(r, "max_bytes");
    int last = i + 1 == nr;
    if (last ? !json_is_null(mb) : !json_is_integer(mb) || json_integer_value(mb) < 1) {
      base_errf(err, errlen, "%s.max_bytes: %s", rat,
                last ? "must be null (the last range is unbounded)"
                : json_is_null(mb)
                    ? "null, but only the last range is unbounded (ranges ascend in max_bytes)"
                    : "must be an integer >= 1 (bytes)");
      return -1;
    }
    x->max_bytes = last ? UINT64_MAX : (uint64_t)json_integer_value(mb);
    if (i > 0 && x->max_bytes <= f->r[i - 1].max_bytes) {
      base_errf(err, errlen, "%s.max_bytes: ranges must ascend", rat);
      return -1;
    }
    if (get_num(r, "alpha_us", &x->alpha_us) || !(x->alpha_us >= 0) || !isfinite(x->alpha_us)) {
      base_errf(err, errlen, "%s.alpha_us: must be a number >= 0 (us)", rat);
      return -1;
    }
    if (get_num(r, "beta_GBps", &x->beta_gbps) || !(x->beta_gbps > 0) || !isfinite(x->beta_gbps)) {
      base_errf(err, errlen, "%s.beta_GBps: must be a number > 0 (GB/s)", rat);
      return -1;
    }
  }
  f->n_ranges = (int32_t)nr;
  double me = 0;
  if (json_object_get(o, "max_error") && (get_num(o, "max_error", &me) || !(me >= 0))) {
    base_errf(err, errlen, "%s.max_error: must be a number >= 0", at);
    return -1;
  }
  f->max_err = me;
  return 0;
}

static int parse_gpu(const char *name, const json_t *o, coll_gpu_bw_t *g, const char *at, char *err,
                     size_t errlen) {
  static const char *const keys[] = {"busbw_GBps", "source", "note", NULL};
  static const char *const bkeys[] = {"allreduce", "other", NULL};
  memset(g, 0, sizeof *g);
  if (!json_is_object(o) || strlen(name) >= COLL_NAME_LEN || !*name) {
    base_errf(err, errlen, "%s: must be an object named by a GPU type", at);
    return -1;
  }
  strcpy(g->gpu, name);
  if (check_keys(o, keys, at, err, errlen)) return -1;
  const json_t *b = json_object_get(o, "busbw_GBps");
  char bat[800];
  snprintf(bat, sizeof bat, "%s.busbw_GBps", at);
  if (!json_is_object(b)) {
    base_errf(err, errlen, "%s: must be an object {\"allreduce\": ..., \"other\": ...}", bat);
    return -1;
  }
  if (check_keys(b, bkeys, bat, err, errlen)) return -1;
  const json_t *ar = json_object_get(b, "allreduce");
  if (json_is_object(ar)) {
    const char *k;
    json_t *v;
    json_object_foreach((json_t *)ar, k, v) {
      char *end;
      long n = strtol(k, &end, 10);
      if (*end || n < 1 || n > COLL_MAX_SERVER_GPUS || !json_is_number(v) ||
          !(json_number_value(v) > 0)) {
        base_errf(err, errlen, "%s.allreduce.%s: keys are GPU counts, values GB/s > 0", bat, k);
        return -1;
      }
      g->allreduce_n[n] = json_number_value(v);
    }
  } else if (ar && (!json_is_number(ar) || !((g->allreduce = json_number_value(ar)) > 0))) {
    base_errf(err, errlen, "%s.allreduce: must be GB/s > 0 or an object by GPU count", bat);
    return -1;
  }
  const json_t *ot = json_object_get(b, "other");
  if (ot && (!json_is_number(ot) || !((g->other = json_number_value(ot)) > 0))) {
    base_errf(err, errlen, "%s.other: must be GB/s > 0", bat);
    return -1;
  }
  return 0;
}

static int same_key(const coll_fit_t *f, const char *gpu, int32_t kind, int32_t gpus) {
  return strcmp(f->gpu, gpu) == 0 && f->kind == kind && f->gpus == gpus;
}

int coll_model_from_json(coll_model_t *m, const json_t *root, const char *where, char *err,
                         size_t errlen) {
  static const char *const top[] = {"description", "source", "sources",    "fit",
                                    "derivation",  "curves", "statements", "note",
                                    "models",      "gpus",   "reference",  NULL};
  char at[600];
  if (!json_is_object(root)) {
    base_errf(err, errlen, "%s: must hold a JSON object", where);
    return -1;
  }
  const char *key;
  json_t *v;
  json_object_foreach((json_t *)root, key, v) {
    int ok = 0;
    for (int i = 0; top[i] && !ok; i++)
      ok = strcmp(key, top[i]) == 0;
    if (!ok) {
      base_errf(err, errlen, "%s: %s: unknown key", where, key);
      return -1;
    }
  }
  const json_t *ms = json_object_get(root, "models");
  if (!json_is_array(ms)) {
    base_errf(err, errlen, "%s: models: must be an array of fitted curves", where);
    return -1;
  }
  for (size_t i = 0; i < json_array_size(ms); i++) {
    coll_fit_t f;
    snprintf(at, sizeof at, "%s: models[%zu]", where, i);
    if (parse_fit(json_array_get(ms, i), &f, at, err, errlen)) return -1;
    for (size_t k = 0; k < i; k++) { /* one curve per key in a file (the later won) */
      const json_t *o = json_array_get(ms, k);
      const char *g = json_string_value(json_object_get(o, "gpu")),
                 *c = json_string_value(json_object_get(o, "collective"));
      if (g && c && strcmp(g, f.gpu) == 0 && coll_kind_parse(c) == f.kind &&
          json_integer_value(json_object_get(o, "gpus")) == f.gpus) {
        base_errf(err, errlen, "%s: %s %s among %d GPUs is models[%zu] already: give it once", at,
                  f.gpu, coll_name(f.kind), f.gpus, k);
        return -1;
      }
    }
    int32_t j = 0;
    while (j < m->n_fits && !same_key(&m->fits[j], f.gpu, f.kind, f.gpus))
      j++;
    if (j == m->n_fits) {
      coll_fit_t *p = realloc(m->fits, ((size_t)m->n_fits + 1) * sizeof *p);
      if (!p) goto oom;
      m->fits = p;
      m->n_fits++;
    }
    m->fits[j] = f;
  }
  const json_t *gs = json_object_get(root, "gpus");
  if (gs && !json_is_object(gs)) {
    base_errf(err, errlen, "%s: gpus: must be an object by GPU type", where);
    return -1;
  }
  json_object_foreach((json_t *)gs, key, v) {
    coll_gpu_bw_t g;
    snprintf(at, sizeof at, "%s: gpus.%s", where, key);
    if (parse_gpu(key, v, &g, at, err, errlen)) return -1;
    int32_t j = 0;
    while (j < m->n_gpus && strcmp(m->gpus[j].gpu, g.gpu) != 0)
      j++;
    if (j == m->n_gpus) {
      coll_gpu_bw_t *p = realloc(m->gpus, ((size_t)m->n_gpus + 1) * sizeof *p);
      if (!p) goto oom;
      m->gpus = p;
      m->n_gpus++;
    }
    m->gpus[j] = g;
  }
  const json_t *ref = json_object_get(root, "reference");
  if (ref) {
    static const char *const rkeys[] = {"gpu", "collective", "gpus", "note", NULL};
    snprintf(at, sizeof at, "%s: reference", where);
    if (!json_is_object(ref) || check_keys(ref, rkeys, at, err, errlen) ||
        get_key3(ref, m->ref_gpu, &m->ref_kind, &m->ref_gpus, at, err, errlen)) {
      if (!json_is_object(ref)) base_errf(err, errlen, "%s: must be an object", at);
      return -1;
    }
  }
  return 0;
oom:
  base_errf(err, errlen, "%s: out of memory", where);
  return -1;
}

int coll_model_load(coll_model_t *m, const char *path, char *err, size_t errlen) {
  json_t *root = base_json_load(path, 0, err, errlen);
  if (!root) return -1;
  int rc = coll_model_from_json(m, root, path, err, errlen);
  json_decref(root);
  return rc;
}

int coll_model_load_default(coll_model_t *m, const char *presets, const char *calibration,
                            char *err, size_t errlen) {
  char def[4096];
  if (!presets) {
    const char *dir = getenv("MULTIVERSE_PRESETS");
    snprintf(def, sizeof def, "%s/nccl_intra.json", dir ? dir : MV_PRESET_DIR);
    presets = def;
  }
  if (coll_model_load(m, presets, err, errlen)) return -1;
  return calibration ? coll_model_load(m, calibration, err, errlen) : 0;
}

/* Bus bandwidth of (gpu, kind, n) from the table, 0 if unknown. */
static double table_busbw(const coll_model_t *m, const char *gpu, int32_t kind, int32_t n) {
  for (int32_t i = 0; i < m->n_gpus; i++) {
    const coll_gpu_bw_t *g = &m->gpus[i];
    if (strcmp(g->gpu, gpu) != 0) continue;
    if (kind != COLL_ALLREDUCE) return g->other;
    return n >= 1 && n <= COLL_MAX_SERVER_GPUS && g->allreduce_n[n] > 0 ? g->allreduce_n[n]
                                                                        : g->allreduce;
  }
  return 0;
}

/* The measured curve to derive (gpu, kind, gpus) from, or NULL: a curve of
 * the same GPU (the same collective first, then allreduce, then any; nearest
 * count, the larger on a tie), else the reference if the GPU type has bus
 * bandwidths. Curves of one GPU have no size term to rescale and are never
 * sources. */
static const coll_fit_t *derive_source(const coll_model_t *m, const char *gpu, int32_t kind,
                                       int32_t gpus) {
  const coll_fit_t *best = NULL;
  int best_rank = 0;
  for (int32_t i = 0; i < m->n_fits; i++) {
    const coll_fit_t *f = &m->fits[i];
    if (strcmp(f->gpu, gpu) != 0 || f->gpus < 2) continue;
    int pref = f->kind == kind ? 0 : f->kind == COLL_ALLREDUCE ? 1 : 2;
    int dist = abs(f->gpus - gpus);
    int rank = pref * 1000000 + dist * 2 + (f->gpus < gpus);
    if (!best || rank < best_rank) {
      best = f;
      best_rank = rank;
    }
  }
  if (best) return best;
  int known = 0; /* the reference serves GPU types of the bus bandwidth table */
  for (int32_t i = 0; i < m->n_gpus; i++)
    known |= strcmp(m->gpus[i].gpu, gpu) == 0;
  for (int32_t i = 0; known && i < m->n_fits; i++)
    if (m->ref_gpu[0] && same_key(&m->fits[i], m->ref_gpu, m->ref_kind, m->ref_gpus))
      return &m->fits[i];
  return NULL;
}

int coll_model_get(const coll_model_t *m, const char *gpu, coll_kind_t kind, int32_t gpus,
                   coll_fit_t *out, char *err, size_t errlen) {
  if (!gpu || kind < 0 || kind >= COLL_N_KINDS || gpus < 1 || gpus > COLL_MAX_SERVER_GPUS) {
    base_errf(err, errlen, "intra-server model: no GPU type, or a bad collective or GPU count");
    return -1;
  }
  for (int32_t i = 0; i < m->n_fits; i++)
    if (same_key(&m->fits[i], gpu, kind, gpus)) {
      *out = m->fits[i];
      return 0;
    }
  memset(out, 0, sizeof *out);
  snprintf(out->gpu, sizeof out->gpu, "%s", gpu);
  out->kind = kind;
  out->gpus = gpus;
  out->n_ranges = 1;
  if (gpus == 1) { /* nothing to exchange: no time */
    out->r[0] = (coll_range_t){UINT64_MAX, 0, INFINITY};
    return 1;
  }
  const coll_fit_t *src = derive_source(m, gpu, kind, gpus);
  if (!src) {
    base_errf(err, errlen,
              "no intra-server model for %s %s among %d GPUs: no curve of that GPU type, "
              "and no bus bandwidths of it to scale the reference curve to (run `multiverse "
              "calibrate` on nccl-tests logs)",
              gpu, coll_name(kind), gpus);
    return -1;
  }
  double b_src = table_busbw(m, src->gpu, src->kind, src->gpus);
  double b_dst = table_busbw(m, gpu, kind, gpus);
  double ratio = b_src > 0 && b_dst > 0 ? b_src / b_dst : 1;
  double scale = coll_busbw_factor(kind, gpus) / coll_busbw_factor(src->kind, src->gpus) * ratio;
  *out = *src;
  snprintf(out->gpu, sizeof out->gpu, "%s", gpu);
  out->kind = kind;
  out->gpus = gpus;
  for (int32_t i = 0; i < out->n_ranges; i++)
    out->r[i].beta_gbps = src->r[i].beta_gbps / scale;
  return 1;
}

/* alpha + bytes / beta of range r, ps: us -> ps 1e6; bytes / (GB/s) -> ps 1e3 / beta. */
static double range_ps(const coll_range_t *r, uint64_t bytes) {
  return r->alpha_us * BASE_PS_PER_US + (double)bytes * (BASE_PS_PER_NS / r->beta_gbps);
}

int64_t coll_fit_time_ps(const coll_fit_t *f, uint64_t bytes) {
  /* A range's line never goes below where the ranges before it ended: more bytes
   * never take less time, whatever lines a fit (or a derivation) gave. */
  double floor = 0;
  int32_t i = 0;
  for (; i + 1 < f->n_ranges && bytes > f->r[i].max_bytes; i++) {
    double end = range_ps(&f->r[i], f->r[i].max_bytes);
    if (end > floor) floor = end;
  }
  double ps = range_ps(&f->r[i], bytes);
  if (ps < floor) ps = floor;
  return ps < 9e18 ? (int64_t)llround(ps) : INT64_MAX; /* past the clock: saturated */
}

int coll_model_time(const coll_model_t *m, const char *gpu, coll_kind_t kind, int32_t gpus,
                    uint64_t bytes, int64_t *ps, char *err, size_t errlen) {
  coll_fit_t f;
  if (coll_model_get(m, gpu, kind, gpus, &f, err, errlen) < 0) return -1;
  *ps = coll_fit_time_ps(&f, bytes);
  if (*ps <= COLL_MAX_TIME_PS) return 0;
  base_errf(err, errlen, "%s among %d %s GPUs of %llu bytes: the model's time is past 1e5 s",
            coll_name(kind), gpus, gpu, (unsigned long long)bytes);
  return -1;
}

void coll_model_free(coll_model_t *m) {
  free(m->fits);
  free(m->gpus);
  memset(m, 0, sizeof *m);
}
