/* trn: Chakra trace sets, the parts that need no protobuf: finding the files of a set
 * (a prefix, one of its files or a folder), communicator groups (ASTRA-sim's groups
 * file, PyTorch's process-group metadata), the node store, and the checks that run
 * over a whole rank once its file is read. */
#define _POSIX_C_SOURCE 200809L
#include <dirent.h>
#include <errno.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "base/base_json.h"
#include "train/trn_et.h"

const char *trn_et_kind_name(int kind) {
  static const char *const names[TRN_ET_KIND_COUNT] = {
      "INVALID_NODE",   "METADATA_NODE", "MEM_LOAD_NODE", "MEM_STORE_NODE",
      "COMP_NODE",      "COMM_SEND_NODE", "COMM_RECV_NODE", "COMM_COLL_NODE"};
  return kind >= 0 && kind < TRN_ET_KIND_COUNT ? names[kind] : "?";
}

const char *trn_et_coll_name(int coll) {
  static const char *const names[TRN_ET_COLL_COUNT] = {
      "ALL_REDUCE", "REDUCE",         "ALL_GATHER",           "GATHER",  "SCATTER",
      "BROADCAST",  "ALL_TO_ALL",     "REDUCE_SCATTER",       "REDUCE_SCATTER_BLOCK", "BARRIER"};
  return coll >= 0 && coll < TRN_ET_COLL_COUNT ? names[coll] : "?";
}

void trn_et_clean(const char *s, char *out, size_t len) {
  size_t i = 0;
  for (; s && s[i] && i + 1 < len; i++)
    out[i] = s[i] >= 32 && s[i] < 127 ? s[i] : '?';
  out[i] = '\0';
}

const char *trn_et_node_name(const trn_et_rank_t *r, const trn_et_node_t *n) {
  return r->names && n->name >= 0 ? r->names + n->name : "";
}

static int is_file(const char *path) {
  struct stat st;
  return stat(path, &st) == 0 && S_ISREG(st.st_mode);
}

/* Files prefix.0.et, prefix.1.et, ... that exist: their count. */
static int count_ranks(const char *prefix) {
  char f[4200];
  int n = 0;
  while (n < TRN_ET_MAX_RANKS) {
    snprintf(f, sizeof f, "%s.%d.et", prefix, n);
    if (!is_file(f)) break;
    n++;
  }
  return n;
}

/* "name.N.et" -> its length without ".N.et", or 0. */
static size_t strip_rank(const char *s) {
  size_t n = strlen(s);
  if (n < 6 || strcmp(s + n - 3, ".et") != 0) return 0;
  size_t i = n - 3;
  size_t digits = 0;
  while (i > 0 && s[i - 1] >= '0' && s[i - 1] <= '9') {
    i--;
    digits++;
  }
  if (digits == 0 || i == 0 || s[i - 1] != '.') return 0;
  return i - 1;
}

int trn_et_find(const char *path, char *prefix, size_t prefix_len, char *err, size_t errlen) {
  struct stat st;
  if (stat(path, &st) == 0 && S_ISDIR(st.st_mode)) {
    DIR *d = opendir(path);
    if (!d) {
      snprintf(err, errlen, "cannot open %s: %s", path, strerror(errno));
      return -1;
    }
    char found[4096] = "";
    const struct dirent *e;
    int rc = 0;
    while ((e = readdir(d)) != NULL) {
      size_t k = strip_rank(e->d_name);
      if (!k) continue;
      char base[4096];
      snprintf(base, sizeof base, "%.*s", (int)k, e->d_name);
      if (!found[0])
        snprintf(found, sizeof found, "%s", base);
      else if (strcmp(found, base) != 0 && rc == 0) {
        snprintf(err, errlen, "%s: holds two Chakra trace sets (%s.N.et and %s.N.et); name one",
                 path, strcmp(found, base) < 0 ? found : base, strcmp(found, base) < 0 ? base : found);
        rc = -1;
      }
    }
    closedir(d);
    if (rc) return -1;
    if (!found[0]) {
      snprintf(err, errlen, "%s: a folder without Chakra trace files (NAME.0.et, NAME.1.et, ...)",
               path);
      return -1;
    }
    snprintf(prefix, prefix_len, "%s/%s", path, found);
  } else {
    size_t k = strip_rank(path);
    char f[4200];
    snprintf(f, sizeof f, "%s.0.et", path);
    if (k && is_file(path))
      snprintf(prefix, prefix_len, "%.*s", (int)k, path);
    else if (is_file(f))
      snprintf(prefix, prefix_len, "%s", path);
    else
      return 0;
  }
  int n = count_ranks(prefix);
  if (n == 0) {
    snprintf(err, errlen, "%s.0.et: no such file (a Chakra trace set starts at rank 0)", prefix);
    return -1;
  }
  return n;
}

void trn_et_free(trn_et_t *et) {
  for (int32_t r = 0; et->ranks && r < et->n_ranks; r++) {
    free(et->ranks[r].path);
    free(et->ranks[r].nodes);
    free(et->ranks[r].deps);
    free(et->ranks[r].names);
  }
  for (int32_t g = 0; et->groups && g < et->n_groups; g++)
    free(et->groups[g].ranks);
  free(et->ranks);
  free(et->groups);
  memset(et, 0, sizeof *et);
}

int trn_et_add_node(trn_et_rank_t *r, const trn_et_node_t *n, const uint64_t *deps, int32_t n_deps,
                    const char *name) {
  if ((r->n_nodes & (r->n_nodes - 1)) == 0) { /* grow at powers of two */
    size_t cap = r->n_nodes ? 2 * (size_t)r->n_nodes : 16;
    trn_et_node_t *x = realloc(r->nodes, cap * sizeof *x);
    if (!x) return -1;
    r->nodes = x;
  }
  if (n_deps > 0) {
    uint64_t *d = realloc(r->deps, ((size_t)r->n_deps + (size_t)n_deps) * sizeof *d);
    if (!d) return -1;
    r->deps = d;
    memcpy(r->deps + r->n_deps, deps, (size_t)n_deps * sizeof *d);
  }
  char clean[TRN_ET_NAME_LEN];
  trn_et_clean(name, clean, sizeof clean);
  size_t len = strlen(clean) + 1;
  char *s = realloc(r->names, r->names_len + len);
  if (!s) return -1;
  r->names = s;
  memcpy(s + r->names_len, clean, len);
  trn_et_node_t x = *n;
  x.name = (int32_t)r->names_len;
  x.deps = r->n_deps;
  x.n_deps = n_deps;
  r->names_len += len;
  r->n_deps += n_deps;
  r->nodes[r->n_nodes++] = x;
  return 0;
}

static int cmp_i32(const void *a, const void *b) {
  int32_t x = *(const int32_t *)a, y = *(const int32_t *)b;
  return (x > y) - (x < y);
}

int32_t trn_et_group(trn_et_t *et, const char *raw, const int32_t *ranks, int32_t n, char *err,
                     size_t errlen) {
  char name[sizeof et->groups[0].name + 1];
  trn_et_clean(raw, name, sizeof name);
  int32_t g = 0;
  while (g < et->n_groups && strcmp(et->groups[g].name, name) != 0)
    g++;
  if (strlen(name) >= sizeof et->groups[0].name) {
    snprintf(err, errlen, "communicator group name '%.40s...' longer than %zu characters", name,
             sizeof et->groups[0].name - 1);
    return -1;
  }
  if (g == et->n_groups) {
    trn_et_group_t *x = realloc(et->groups, ((size_t)g + 1) * sizeof *x);
    if (!x) goto oom;
    et->groups = x;
    memset(&x[g], 0, sizeof x[g]);
    memcpy(x[g].name, name, strlen(name) + 1); /* shorter than the field: checked above */
    x[g].n = -1; /* ranks not known yet */
    et->n_groups++;
  }
  if (!ranks) return g;
  trn_et_group_t *gr = &et->groups[g];
  int32_t *r = malloc((size_t)(n > 0 ? n : 1) * sizeof *r);
  if (!r) goto oom;
  memcpy(r, ranks, (size_t)n * sizeof *r);
  qsort(r, (size_t)n, sizeof *r, cmp_i32);
  for (int32_t i = 0; i < n; i++) {
    if (r[i] < 0 || r[i] >= et->n_ranks) {
      snprintf(err, errlen, "communicator group %s: rank %d is not one of the %d ranks", name, r[i],
               et->n_ranks);
      free(r);
      return -1;
    }
    if (i && r[i] == r[i - 1]) {
      snprintf(err, errlen, "communicator group %s: rank %d twice", name, r[i]);
      free(r);
      return -1;
    }
  }
  if (gr->n >= 0 && (gr->n != n || memcmp(gr->ranks, r, (size_t)n * sizeof *r) != 0)) {
    snprintf(err, errlen, "communicator group %s: defined twice with different ranks", name);
    free(r);
    return -1;
  }
  free(gr->ranks);
  gr->ranks = r;
  gr->n = n;
  return g;
oom:
  snprintf(err, errlen, "out of memory");
  return -1;
}

/* The ranks of a JSON array (empty: every rank); n or -1. */
static int32_t json_ranks(const trn_et_t *et, const json_t *a, int32_t *out) {
  size_t n = json_array_size(a);
  if (!json_is_array(a) || n > (size_t)et->n_ranks) return -1;
  for (size_t i = 0; i < n; i++) {
    const json_t *v = json_array_get(a, i);
    if (!json_is_integer(v) || json_integer_value(v) < 0 ||
        json_integer_value(v) >= et->n_ranks)
      return -1;
    out[i] = (int32_t)json_integer_value(v);
  }
  if (n == 0)
    for (int32_t i = 0; i < et->n_ranks; i++)
      out[i] = i;
  return n ? (int32_t)n : et->n_ranks;
}

int trn_et_pg_metadata(trn_et_t *et, const char *values, char *err, size_t errlen) {
  size_t len = strlen(values);
  if (len < 4) return 0; /* ASTRA-sim: nothing to read */
  json_error_t je;
  json_t *root = json_loadb(values + 2, len - 4, 0, &je);
  int32_t *ranks = malloc((size_t)et->n_ranks * sizeof *ranks);
  int rc = 0;
  if (!root || !json_is_array(root) || !ranks) {
    snprintf(err, errlen, "process-group metadata: %s",
             !ranks ? "out of memory" : root ? "not a JSON list" : je.text);
    rc = -1;
  }
  for (size_t i = 0; rc == 0 && i < json_array_size(root); i++) {
    const json_t *o = json_array_get(root, i);
    const char *name = json_string_value(json_object_get(o, "pg_name"));
    int32_t n = json_ranks(et, json_object_get(o, "ranks"), ranks);
    if (!name || n < 0) {
      snprintf(err, errlen,
               "process-group metadata, entry %zu: needs \"pg_name\" and \"ranks\" (ranks below %d)",
               i, et->n_ranks);
      rc = -1;
    } else if (trn_et_group(et, name, ranks, n, err, errlen) < 0) {
      rc = -1;
    }
  }
  json_decref(root);
  free(ranks);
  return rc;
}

/* ASTRA-sim's --comm-group-configuration: {"ID": [ranks], ...}. */
static int read_groups(trn_et_t *et, const char *path, char *err, size_t errlen) {
  json_t *root = base_json_load(path, 0, err, errlen);
  if (!root) return -1;
  int rc = 0;
  int32_t *ranks = malloc((size_t)et->n_ranks * sizeof *ranks);
  const char *key;
  json_t *v;
  if (!json_is_object(root) || !ranks) {
    snprintf(err, errlen, "%s: %s", path,
             ranks ? "must be an object {\"1\": [0, 1, ...], ...}" : "out of memory");
    rc = -1;
  }
  json_object_foreach(root, key, v) {
    if (rc) break;
    char *end;
    long id = strtol(key, &end, 10);
    int32_t n = json_ranks(et, v, ranks);
    char e[512];
    if (!*key || *end || id < 0) {
      snprintf(err, errlen, "%s: group \"%s\": ASTRA-sim's group ids are integers", path, key);
      rc = -1;
    } else if (n < 0 || json_array_size(v) == 0) {
      snprintf(err, errlen, "%s: group \"%s\": must be a list of ranks below %d", path, key,
               et->n_ranks);
      rc = -1;
    } else if (trn_et_group(et, key, ranks, n, e, sizeof e) < 0) {
      snprintf(err, errlen, "%s: %s", path, e);
      rc = -1;
    }
  }
  free(ranks);
  json_decref(root);
  return rc;
}

static int cmp_u64(const void *a, const void *b) {
  uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
  return (x > y) - (x < y);
}

/* Within a rank: ids unique, every dependency a node of the rank (not itself), a peer
 * among the ranks and not the rank itself. */
static int check_rank(const trn_et_t *et, int32_t rank, char *err, size_t errlen) {
  const trn_et_rank_t *r = &et->ranks[rank];
  uint64_t *ids = malloc(((size_t)r->n_nodes + 1) * sizeof *ids);
  if (!ids) {
    snprintf(err, errlen, "out of memory");
    return -1;
  }
  for (int32_t i = 0; i < r->n_nodes; i++)
    ids[i] = r->nodes[i].id;
  qsort(ids, (size_t)r->n_nodes, sizeof *ids, cmp_u64);
  int rc = 0;
  for (int32_t i = 1; i < r->n_nodes && !rc; i++)
    if (ids[i] == ids[i - 1]) {
      snprintf(err, errlen, "%s: node id %llu twice", r->path, (unsigned long long)ids[i]);
      rc = -1;
    }
  for (int32_t i = 0; i < r->n_nodes && !rc; i++) {
    const trn_et_node_t *n = &r->nodes[i];
    for (int32_t k = 0; k < n->n_deps && !rc; k++) {
      uint64_t d = r->deps[n->deps + k];
      if (d == n->id || !bsearch(&d, ids, (size_t)r->n_nodes, sizeof *ids, cmp_u64)) {
        snprintf(err, errlen, "%s: node %llu (%s): depends on %s %llu", r->path,
                 (unsigned long long)n->id, trn_et_node_name(r, n),
                 d == n->id ? "itself," : "no node of this file, id", (unsigned long long)d);
        rc = -1;
      }
    }
    if (!rc && (n->kind == TRN_ET_SEND || n->kind == TRN_ET_RECV) &&
        (n->peer < 0 || n->peer >= et->n_ranks || n->peer == rank)) {
      const char *what = n->kind == TRN_ET_SEND ? "comm_dst" : "comm_src";
      if (n->peer < 0)
        snprintf(err, errlen, "%s: node %llu (%s): %s without %s (the peer rank)", r->path,
                 (unsigned long long)n->id, trn_et_node_name(r, n), trn_et_kind_name(n->kind),
                 what);
      else
        snprintf(err, errlen, "%s: node %llu (%s): %s %d is %s", r->path,
                 (unsigned long long)n->id, trn_et_node_name(r, n), what, n->peer,
                 n->peer == rank ? "this rank itself" : "not a rank of the trace set");
      rc = -1;
    }
  }
  free(ids);
  return rc;
}

int trn_et_read(const char *prefix, int32_t n_ranks, const char *comm_groups, trn_et_t *et,
                char *err, size_t errlen) {
  memset(et, 0, sizeof *et);
  if (!trn_et_available()) {
    snprintf(err, errlen,
             "%s.0.et: this build reads no Chakra traces: protobuf-c was not found when it was "
             "configured (Debian: libprotobuf-c-dev protobuf-c-compiler, then configure again)",
             prefix);
    return -1;
  }
  if (n_ranks < 1 || n_ranks > TRN_ET_MAX_RANKS) {
    snprintf(err, errlen, "%s: %d ranks (1 to %d)", prefix, n_ranks, TRN_ET_MAX_RANKS);
    return -1;
  }
  snprintf(et->prefix, sizeof et->prefix, "%s", prefix);
  et->ranks = calloc((size_t)n_ranks, sizeof *et->ranks);
  if (!et->ranks) goto oom;
  et->n_ranks = n_ranks;
  if (comm_groups && read_groups(et, comm_groups, err, errlen)) goto fail;
  for (int32_t r = 0; r < n_ranks; r++) {
    char f[4200];
    snprintf(f, sizeof f, "%s.%d.et", prefix, r);
    if (!(et->ranks[r].path = strdup(f))) goto oom;
    if (trn_et_read_rank(et, r, err, errlen) || check_rank(et, r, err, errlen)) goto fail;
  }
  for (int32_t g = 0; g < et->n_groups; g++)
    if (et->groups[g].n < 0) {
      snprintf(err, errlen,
               "%s: communicator group '%s' (pg_name) is not defined: give its ranks in the "
               "workload's comm_groups file (ASTRA-sim's --comm-group-configuration)",
               prefix, et->groups[g].name);
      goto fail;
    }
  return 0;
oom:
  snprintf(err, errlen, "out of memory");
fail:
  trn_et_free(et);
  { /* one printable line, whatever the file held */
    char *c = malloc(errlen);
    if (c) {
      trn_et_clean(err, c, errlen);
      memcpy(err, c, strlen(c) + 1);
      free(c);
    }
  }
  return -1;
}
