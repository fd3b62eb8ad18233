/* driver: the table of experiment kinds, and building one experiment through
 * its kind with the engine's validation and memory estimate. */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/base_err.h"
#include "driver/drv_kind.h"

/* A kind's state (its caches of topologies, flow files, models, filled as
 * experiments are built) is shared by the workers of a rank, each on a
 * thread of its own: one build or release at a time. */
static pthread_mutex_t kind_lock = PTHREAD_MUTEX_INITIALIZER;

extern const drv_kind_t drv_kind_network;
extern const drv_kind_t drv_kind_training;
extern const drv_kind_t drv_kind_collective;

/* Every kind `multiverse run` can run; a new kind is one more line. */
static const drv_kind_t *const kinds[] = {&drv_kind_network, &drv_kind_training,
                                          &drv_kind_collective};

#define N_KINDS ((int)(sizeof kinds / sizeof *kinds))

const drv_kind_t *drv_kind_find(const char *name) {
  for (int k = 0; name && k < N_KINDS; k++)
    if (strcmp(kinds[k]->name, name) == 0) return kinds[k];
  return NULL;
}

const char *drv_kind_names(void) {
  static char names[256];
  size_t used = 0;
  names[0] = '\0';
  for (int k = 0; k < N_KINDS && used < sizeof names; k++)
    used +=
        (size_t)snprintf(names + used, sizeof names - used, "%s%s", k ? ", " : "", kinds[k]->name);
  return names;
}

void drv_exp_where(char *buf, size_t len, const char *job, int64_t count, int64_t i) {
  if (count == 1) /* "experiments[0]": the file has no such key */
    snprintf(buf, len, "%s: base", job);
  else
    snprintf(buf, len, "%s: experiments[%lld]", job, (long long)i);
}

void drv_exp_build(const drv_kind_t *kind, void *k, const char *canon, uint64_t id,
                   const char *where, drv_exp_t *x, int64_t *mem) {
  memset(x, 0, sizeof *x);
  pthread_mutex_lock(&kind_lock);
  kind->build(k, canon, id, where, x);
  pthread_mutex_unlock(&kind_lock);
  if (mem) drv_exp_size(x, mem);
}

void drv_exp_size(drv_exp_t *x, int64_t *mem) {
  *mem = 0;
  if (x->status != ANA_OK) return;
  if (!x->desc.validated &&
      eng_exp_check(&x->desc, x->message, sizeof x->message, &x->bytes, &x->size)) {
    x->status = ANA_INVALID;
    return;
  }
  *mem = x->bytes;
  if (*mem < 0) {
    x->status = ANA_FAILED;
    snprintf(x->message, sizeof x->message, "out of memory while sizing the experiment");
    *mem = 0;
    return;
  }
  drv_exp_features(&x->desc, &x->feat);
  if (x->desc.params->model == ENG_MODEL_FLOW) {
    /* The flow level: coefficients of its own (cost key KIND/flow), its work
     * in packet-hop equivalents (eng_flow_work); it steps no windows. */
    x->model = "flow";
    x->feat.x[SHD_F_HOPS] = eng_flow_work(&x->desc);
    x->feat.x[SHD_F_WINDOWS] = x->feat.x[SHD_F_NODE_WINDOWS] = 0;
  }
}

void drv_seen_key(const eng_params_t *p, drv_seen_key_t *key) {
  memset(key, 0, sizeof *key);
  key->overlap_q16 = p->overlap_q16; /* eng_exp_check's tasks: a compute task's slowed time */
  key->mtu = p->mtu;                 /* packets per flow: the check, and hops */
  key->ack_every = p->ack_every;     /* hops */
  key->classes = p->classes;         /* flows' priorities */
  key->model = p->model;             /* the flow level is sized by its own rules */
}

int drv_seen_init(drv_seen_cache_t *c, size_t kind_bytes) {
  memset(c, 0, sizeof *c);
  c->kind_bytes = kind_bytes;
  return kind_bytes && !(c->kind_keys = calloc(DRV_SEEN, kind_bytes)) ? -1 : 0;
}

void drv_seen_free(drv_seen_cache_t *c) {
  free(c->kind_keys);
  memset(c, 0, sizeof *c);
}

/* Slot i's kind key (kind_bytes of them). */
static unsigned char *seen_kind_key(const drv_seen_cache_t *c, int32_t i) {
  return c->kind_keys + (size_t)i * c->kind_bytes;
}

int32_t drv_seen_find(const drv_seen_cache_t *c, const void *kind, const drv_seen_key_t *pk) {
  if (pk->model != ENG_MODEL_PACKET) return -1;
  for (int32_t i = 0; i < c->n; i++)
    if (memcmp(&c->seen[i].key, pk, sizeof *pk) == 0 &&
        (!c->kind_bytes || memcmp(seen_kind_key(c, i), kind, c->kind_bytes) == 0))
      return i;
  return -1;
}

int32_t drv_seen_insert(drv_seen_cache_t *c, const void *kind, const drv_seen_key_t *pk,
                        const drv_exp_t *x) {
  if (x->status != ANA_OK || pk->model != ENG_MODEL_PACKET) return -1;
  int32_t i = c->next;
  c->n += c->n < DRV_SEEN;
  c->next = (c->next + 1) % DRV_SEEN;
  memset(&c->seen[i], 0, sizeof c->seen[i]);
  memcpy(&c->seen[i].key, pk, sizeof *pk);
  c->seen[i].size = x->size;
  c->seen[i].feat = x->feat;
  if (c->kind_bytes) memcpy(seen_kind_key(c, i), kind, c->kind_bytes); /* padding too */
  return i;
}

void drv_exp_seen(const eng_exp_desc_t *d, const drv_seen_t *seen, const char *prefix, drv_exp_t *x,
                  int64_t *mem) {
  char err[1024];
  *mem = eng_exp_memory_sized(d, &seen->size, err, sizeof err);
  if (*mem < 0) {
    *mem = 0;
    x->status = ANA_INVALID;
    if (prefix)
      base_errf(x->message, sizeof x->message, "%s: %s", prefix, err);
    else
      base_errf(x->message, sizeof x->message, "%s", err);
    return;
  }
  x->status = ANA_OK;
  x->feat = seen->feat;
}

/* MULTIVERSE_PLAN_BUILD=1: the plan builds every experiment (checked when
 * the program starts). */
static int plan_builds(void) {
  const char *build = getenv("MULTIVERSE_PLAN_BUILD");
  return build && strcmp(build, "1") == 0;
}

int drv_kind_canon_describes(const drv_kind_t *kind) {
  return kind->canon_describe && !plan_builds();
}

int drv_exp_canon_describe(const drv_kind_t *kind, void *k, const json_t *exp, const char *where,
                           char **canon, uint64_t *id, char *err, size_t errlen, drv_exp_t *x,
                           int64_t *mem) {
  memset(x, 0, sizeof *x);
  *mem = 0;
  pthread_mutex_lock(&kind_lock);
  int rc = kind->canon_describe(k, exp, where, canon, id, err, errlen, x, mem);
  pthread_mutex_unlock(&kind_lock);
  return rc;
}

void drv_exp_describe(const drv_kind_t *kind, void *k, const char *canon, uint64_t id,
                      const char *where, drv_exp_t *x, int64_t *mem) {
  if (kind->describe && !plan_builds()) {
    memset(x, 0, sizeof *x);
    pthread_mutex_lock(&kind_lock);
    kind->describe(k, canon, id, where, x, mem);
    pthread_mutex_unlock(&kind_lock);
    return;
  }
  drv_exp_build(kind, k, canon, id, where, x, mem);
  drv_exp_release(kind, k, x);
  memset(&x->desc, 0, sizeof x->desc);
}

void drv_counter_values(const eng_batch_t *b, int32_t e, ana_value_t *v) {
  eng_result_t r;
  eng_exp_result(b, e, &r);
  int k = 0;
#define COUNTER(name, type, units, long_name) v[k++].i = r.name;
  DRV_COUNTER_COLS(COUNTER)
#undef COUNTER
}

void drv_exp_release(const drv_kind_t *kind, void *k, drv_exp_t *x) {
  pthread_mutex_lock(&kind_lock);
  kind->release(k, x);
  pthread_mutex_unlock(&kind_lock);
}
