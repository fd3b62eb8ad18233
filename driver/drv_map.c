/* driver: a map from strings to pointers (open addressing, at most half full),
 * for caches of files and topologies keyed by path or canonical text. */
#define _POSIX_C_SOURCE 200809L
#include <stdlib.h>
#include <string.h>

#include "driver/drv_jobs.h"

struct drv_map_t {
  size_t cap, n;
  char **key;
  void **val;
};

static size_t map_hash(const char *s) {
  uint64_t h = 0xcbf29ce484222325ULL; /* FNV-1a */
  for (; *s; s++)
    h = (h ^ (unsigned char)*s) * 0x100000001b3ULL;
  return (size_t)h;
}

static size_t map_slot(const drv_map_t *m, const char *key) {
  size_t i = map_hash(key) & (m->cap - 1);
  while (m->key[i] && strcmp(m->key[i], key) != 0)
    i = (i + 1) & (m->cap - 1);
  return i;
}

drv_map_t *drv_map_new(void) {
  drv_map_t *m = calloc(1, sizeof *m);
  if (!m) return NULL;
  m->cap = 64;
  m->key = calloc(m->cap, sizeof *m->key);
  m->val = calloc(m->cap, sizeof *m->val);
  if (!m->key || !m->val) {
    drv_map_free(m, NULL);
    return NULL;
  }
  return m;
}

void *drv_map_get(const drv_map_t *m, const char *key) {
  return m->val[map_slot(m, key)];
}

int drv_map_put(drv_map_t *m, const char *key, void *value) {
  if (2 * (m->n + 1) > m->cap) {
    drv_map_t big = {2 * m->cap, 0, calloc(2 * m->cap, sizeof(char *)),
                     calloc(2 * m->cap, sizeof(void *))};
    if (!big.key || !big.val) {
      free(big.key);
      free(big.val);
      return -1;
    }
    for (size_t i = 0; i < m->cap; i++)
      if (m->key[i]) {
        size_t j = map_slot(&big, m->key[i]);
        big.key[j] = m->key[i];
        big.val[j] = m->val[i];
        big.n++;
      }
    free(m->key);
    free(m->val);
    *m = big;
  }
  size_t i = map_slot(m, key);
  if (!m->key[i]) {
    if (!(m->key[i] = strdup(key))) return -1;
    m->n++;
  }
  m->val[i] = value;
  return 0;
}

void drv_map_free(drv_map_t *m, void (*release)(void *)) {
  if (!m) return;
  for (size_t i = 0; m->key && i < m->cap; i++)
    if (m->key[i]) {
      if (release) release(m->val[i]);
      free(m->key[i]);
    }
  free(m->key);
  free(m->val);
  free(m);
}
