/* Experiment ids: a 64-bit FNV-1a hash of the canonical text (and its
 * terminating NUL), then of each referenced file's digest (8 bytes, little
 * endian), finished with the splitmix64 mixer. File digests are FNV-1a over
 * the file's bytes, remembered per path. */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/base_file.h"
#include "base/base_json.h"
#include "jobs/job_param_int.h"

#define ID_FNV_OFFSET 0xcbf29ce484222325ULL
#define ID_FNV_PRIME 0x100000001b3ULL

static uint64_t id_fnv(uint64_t h, const void *data, size_t n) {
  const unsigned char *p = data;
  for (size_t i = 0; i < n; i++)
    h = (h ^ p[i]) * ID_FNV_PRIME;
  return h;
}

/* splitmix64's finaliser (Steele, Lea, Flood 2014). */
static uint64_t id_mix(uint64_t x) {
  x += 0x9e3779b97f4a7c15ULL;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
  return x ^ (x >> 31);
}

uint64_t job_id_hash(const char *canon, const uint64_t *digests, int n_files) {
  uint64_t h = id_fnv(ID_FNV_OFFSET, canon, strlen(canon) + 1);
  for (int i = 0; i < n_files; i++) {
    unsigned char le[8];
    for (int k = 0; k < 8; k++)
      le[k] = (unsigned char)(digests[i] >> (8 * k));
    h = id_fnv(h, le, 8);
  }
  return id_mix(h);
}

int job_file_digest(const char *path, uint64_t *digest, char *err, size_t errlen) {
  char why[128];
  FILE *f = base_fopen_input(path, "rb", why, sizeof why);
  if (!f) {
    snprintf(err, errlen, "%s: %s", path, why);
    return -1;
  }
  unsigned char buf[65536];
  uint64_t h = ID_FNV_OFFSET;
  size_t n;
  while ((n = fread(buf, 1, sizeof buf, f)) > 0)
    h = id_fnv(h, buf, n);
  int bad = ferror(f);
  fclose(f);
  if (bad) {
    snprintf(err, errlen, "%s: read error", path);
    return -1;
  }
  *digest = h;
  return 0;
}

/* Digests by path: open addressing, at most half full. */
struct job_digests_t {
  size_t cap, n;
  char **path;
  uint64_t *digest;
};

job_digests_t *job_digests_new(void) {
  job_digests_t *c = calloc(1, sizeof *c);
  if (!c) return NULL;
  c->cap = 64;
  c->path = calloc(c->cap, sizeof *c->path);
  c->digest = calloc(c->cap, sizeof *c->digest);
  if (!c->path || !c->digest) {
    job_digests_free(c);
    return NULL;
  }
  return c;
}

void job_digests_free(job_digests_t *c) {
  if (!c) return;
  for (size_t i = 0; c->path && i < c->cap; i++)
    free(c->path[i]);
  free(c->path);
  free(c->digest);
  free(c);
}

static size_t id_slot(const job_digests_t *c, const char *path) {
  size_t i = (size_t)id_fnv(ID_FNV_OFFSET, path, strlen(path)) & (c->cap - 1);
  while (c->path[i] && strcmp(c->path[i], path) != 0)
    i = (i + 1) & (c->cap - 1);
  return i;
}

/* Remembers a digest; a cache that cannot grow simply forgets. */
static void id_remember(job_digests_t *c, const char *path, uint64_t digest) {
  if (2 * (c->n + 1) > c->cap) {
    job_digests_t big = {2 * c->cap, 0, calloc(2 * c->cap, sizeof(char *)),
                         calloc(2 * c->cap, sizeof(uint64_t))};
    if (!big.path || !big.digest) {
      free(big.path);
      free(big.digest);
      return;
    }
    for (size_t i = 0; i < c->cap; i++)
      if (c->path[i]) {
        size_t j = id_slot(&big, c->path[i]);
        big.path[j] = c->path[i];
        big.digest[j] = c->digest[i];
        big.n++;
      }
    free(c->path);
    free(c->digest);
    *c = big;
  }
  size_t i = id_slot(c, path);
  if (c->path[i]) return;
  c->path[i] = strdup(path);
  if (!c->path[i]) return;
  c->digest[i] = digest;
  c->n++;
}

static int id_digest(job_digests_t *c, const char *path, uint64_t *digest, char *err,
                     size_t errlen) {
  if (c) {
    size_t i = id_slot(c, path);
    if (c->path[i]) {
      *digest = c->digest[i];
      return 0;
    }
  }
  if (job_file_digest(path, digest, err, errlen)) return -1;
  if (c) id_remember(c, path, *digest);
  return 0;
}

/* dir/p, or p itself when absolute or dir is NULL or empty; malloc'd. */
static char *id_join(const char *dir, const char *p) {
  if (!dir || !*dir || p[0] == '/') return strdup(p);
  size_t len = strlen(dir) + strlen(p) + 2;
  char *s = malloc(len);
  if (s) snprintf(s, len, "%s/%s", dir, p);
  return s;
}

/* The ns-3 file a topology object of kind "file" names, or NULL. */
static const char *id_topo_file(const json_t *obj) {
  const char *kind = json_string_value(json_object_get(obj, "kind"));
  return kind && strcmp(kind, "file") == 0 ? json_string_value(json_object_get(obj, "path")) : NULL;
}

static size_t id_len(const char *s) {
  return strlen(s) > 5 ? strlen(s) - 5 : 0;
}

/* The files x references, in order, as paths to open (malloc'd); -1 with a
 * message when a JSON topology file cannot be read. */
static int id_files(const job_exp_t *x, const char *base_dir, char *paths[3], int *n, char *err,
                    size_t errlen) {
  *n = 0;
  if (x->topology_file) {
    paths[(*n)++] = id_join(base_dir, x->topology_file);
    const char *p = paths[0];
    if (p && strcmp(p + id_len(p), ".json") == 0) { /* as topo_load reads it */
      json_t *root = base_json_load(p, 0, err, errlen); /* a pipe is refused, not read */
      if (!root) return -1;
      const json_t *obj = json_object_get(root, "topology");
      const char *inner = id_topo_file(obj ? obj : root);
      if (inner) {
        char *dir = strdup(p), *slash = dir ? strrchr(dir, '/') : NULL;
        if (slash) slash[slash == dir ? 1 : 0] = 0;
        paths[(*n)++] = id_join(slash ? dir : NULL, inner);
        free(dir);
      }
      json_decref(root);
    }
  } else if (x->topology && x->topology->shape == TOPO_SHAPE_FILE) {
    paths[(*n)++] = id_join(base_dir, x->topology->path);
  }
  paths[(*n)++] = id_join(base_dir, x->flows_file);
  for (int i = 0; i < *n; i++)
    if (!paths[i]) {
      snprintf(err, errlen, "out of memory");
      return -1;
    }
  return 0;
}

/* The id of canon and the files at paths[0..n) (opened as they are). */
static int id_of(const char *canon, char *const *paths, int n, job_digests_t *cache, uint64_t *id,
                 char *err, size_t errlen) {
  uint64_t *digests = malloc(((size_t)n + 1) * sizeof *digests);
  int rc = -1;
  if (!digests) {
    snprintf(err, errlen, "out of memory");
    return -1;
  }
  for (int i = 0; i < n; i++)
    if (id_digest(cache, paths[i], &digests[i], err, errlen)) goto done;
  *id = job_id_hash(canon, digests, n);
  rc = 0;
done:
  free(digests);
  return rc;
}

int job_id_files(const char *canon, const char *const *files, int n, const char *base_dir,
                 job_digests_t *cache, uint64_t *id, char *err, size_t errlen) {
  char **paths = calloc((size_t)n + 1, sizeof *paths);
  int rc = -1, made = 0;
  if (!paths) {
    snprintf(err, errlen, "out of memory");
    return -1;
  }
  for (; made < n; made++)
    if (!(paths[made] = id_join(base_dir, files[made]))) {
      snprintf(err, errlen, "out of memory");
      goto done;
    }
  rc = id_of(canon, paths, n, cache, id, err, errlen);
done:
  for (int i = 0; i < made; i++)
    free(paths[i]);
  free(paths);
  return rc;
}

int job_exp_id_canon(const job_exp_t *x, const char *canon, const char *base_dir,
                     job_digests_t *cache, uint64_t *id, char *err, size_t errlen) {
  char *paths[3] = {NULL, NULL, NULL};
  int n = 0, rc = -1;
  if (id_files(x, base_dir, paths, &n, err, errlen) == 0)
    rc = id_of(canon, paths, n, cache, id, err, errlen);
  for (int i = 0; i < 3; i++)
    free(paths[i]);
  return rc;
}

int job_exp_id(const job_exp_t *x, const char *base_dir, job_digests_t *cache, uint64_t *id,
               char *err, size_t errlen) {
  char *canon = job_exp_canonical(x);
  if (!canon) {
    snprintf(err, errlen, "out of memory");
    return -1;
  }
  int rc = job_exp_id_canon(x, canon, base_dir, cache, id, err, errlen);
  free(canon);
  return rc;
}
