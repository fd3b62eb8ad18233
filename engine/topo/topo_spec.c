/* topo: a JSON topology object read into a topo_spec_t, every key checked and
 * every default resolved, and the spec's canonical object. The generators
 * (topo_fat.c, topo_rail.c, topo_torus.c) build from the spec. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "base/base_units.h"
#include "topo/topo_int.h"

static const char *const file_keys[] = {"kind", "path", NULL};
static const char *const fat2_keys[] = {
    "kind",           "tiers",     "k",         "oversubscription", "leaves",        "spines",
    "hosts_per_leaf", "link_gbps", "host_gbps", "link_delay_ns",    "host_delay_ns", NULL};
static const char *const fat3_keys[] = {"kind",
                                        "tiers",
                                        "k",
                                        "oversubscription",
                                        "pods",
                                        "tors_per_pod",
                                        "aggs_per_pod",
                                        "cores",
                                        "hosts_per_tor",
                                        "link_gbps",
                                        "host_gbps",
                                        "link_delay_ns",
                                        "host_delay_ns",
                                        NULL};
static const char *const rail_keys[] = {
    "kind",      "servers",   "nics_per_server", "servers_per_group", "spines",
    "link_gbps", "host_gbps", "link_delay_ns",   "host_delay_ns",     NULL};
static const char *const torus_keys[] = {"kind", "dims", "link_gbps", "link_delay_ns", NULL};

static int links(const json_t *o, int with_host, topo_spec_t *s, const char *where, char *err,
                 size_t errlen) {
  topo_jlinks_t lk;
  if (topo_jlinks(o, with_host, &lk, where, err, errlen) < 0) return -1;
  s->link_bps = lk.link_bps;
  s->link_ps = lk.link_ps;
  s->host_bps = lk.host_bps;
  s->host_ps = lk.host_ps;
  return 0;
}

static int leaf_spine(const json_t *o, const char *where, int64_t k, double over, topo_spec_t *s,
                      char *err, size_t errlen) {
  int64_t down = (int64_t)floor((double)k * over / (over + 1) + 1e-9); /* host ports */
  s->shape = TOPO_SHAPE_LEAF_SPINE;
  if (topo_jkeys(o, fat2_keys, where, err, errlen) < 0 || links(o, 1, s, where, err, errlen) < 0 ||
      topo_jint(o, "leaves", k, 1, TOPO_MAX_NODES, &s->leaves, where, err, errlen) < 0 ||
      topo_jint(o, "spines", k - down, 1, TOPO_MAX_NODES, &s->spines, where, err, errlen) < 0 ||
      topo_jint(o, "hosts_per_leaf", down, 1, TOPO_MAX_NODES, &s->hosts_per_leaf, where, err,
                errlen) < 0)
    return -1;
  return 0;
}

static int three_tier(const json_t *o, const char *where, int64_t k, double over, topo_spec_t *s,
                      char *err, size_t errlen) {
  int64_t h = k / 2;
  s->shape = TOPO_SHAPE_FAT_TREE;
  if (topo_jkeys(o, fat3_keys, where, err, errlen) < 0 || links(o, 1, s, where, err, errlen) < 0 ||
      topo_jint(o, "pods", k, 1, TOPO_MAX_NODES, &s->pods, where, err, errlen) < 0 ||
      topo_jint(o, "tors_per_pod", h, 1, TOPO_MAX_NODES, &s->tors_per_pod, where, err, errlen) <
          0 ||
      topo_jint(o, "aggs_per_pod", h, 1, TOPO_MAX_NODES, &s->aggs_per_pod, where, err, errlen) <
          0 ||
      topo_jint(o, "cores", h * h, 1, TOPO_MAX_NODES, &s->cores, where, err, errlen) < 0 ||
      topo_jint(o, "hosts_per_tor", (int64_t)floor((double)h * over + 1e-9), 1, TOPO_MAX_NODES,
                &s->hosts_per_tor, where, err, errlen) < 0)
    return -1;
  if (s->hosts_per_tor > TOPO_MAX_NODES) { /* a default from k and oversubscription */
    topo_jerr(err, errlen, where, "oversubscription",
              "%g gives %lld hosts per ToR, more than the %d nodes of a topology", over,
              (long long)s->hosts_per_tor, TOPO_MAX_NODES);
    return -1;
  }
  if (s->cores % s->aggs_per_pod) {
    topo_jerr(err, errlen, where, "cores",
              "must be a multiple of aggs_per_pod (%lld), so that each agg reaches as many "
              "cores, got %lld",
              (long long)s->aggs_per_pod, (long long)s->cores);
    return -1;
  }
  return 0;
}

static int fat_tree(const json_t *o, const char *where, topo_spec_t *s, char *err, size_t errlen) {
  int64_t tiers, k;
  double over;
  if (topo_jint(o, "tiers", 3, 2, 3, &tiers, where, err, errlen) < 0 ||
      topo_jint(o, "k", 8, 2, TOPO_MAX_NODES, &k, where, err, errlen) < 0 ||
      topo_jnum(o, "oversubscription", 1, 1, TOPO_MAX_NODES, &over, where, err, errlen) < 0)
    return -1;
  if (k % 2) {
    topo_jerr(err, errlen, where, "k", "must be an even number >= 2, got %lld", (long long)k);
    return -1;
  }
  return tiers == 2 ? leaf_spine(o, where, k, over, s, err, errlen)
                    : three_tier(o, where, k, over, s, err, errlen);
}

static int rail(const json_t *o, const char *where, topo_spec_t *s, char *err, size_t errlen) {
  s->shape = TOPO_SHAPE_RAIL;
  if (topo_jkeys(o, rail_keys, where, err, errlen) < 0) return -1;
  if (!json_object_get(o, "servers")) {
    topo_jerr(err, errlen, where, "servers", "is required (the number of servers)");
    return -1;
  }
  if (links(o, 1, s, where, err, errlen) < 0 ||
      topo_jint(o, "servers", 0, 1, TOPO_MAX_NODES, &s->servers, where, err, errlen) < 0 ||
      topo_jint(o, "nics_per_server", 8, 1, TOPO_MAX_PORTS, &s->nics_per_server, where, err,
                errlen) < 0 ||
      topo_jint(o, "servers_per_group", s->servers, 1, s->servers, &s->servers_per_group, where,
                err, errlen) < 0 ||
      topo_jint(o, "spines", s->nics_per_server, 0, TOPO_MAX_NODES, &s->rail_spines, where, err,
                errlen) < 0)
    return -1;
  if (s->servers % s->servers_per_group) {
    topo_jerr(err, errlen, where, "servers_per_group", "must divide servers (%lld), got %lld",
              (long long)s->servers, (long long)s->servers_per_group);
    return -1;
  }
  return 0;
}

/* dims: an array of 1 to 3 integers >= 1 (missing ones are 1). */
static int torus(const json_t *o, const char *where, topo_spec_t *s, char *err, size_t errlen) {
  s->shape = TOPO_SHAPE_TORUS;
  if (topo_jkeys(o, torus_keys, where, err, errlen) < 0) return -1;
  const json_t *d = json_object_get(o, "dims");
  if (!json_is_array(d) || json_array_size(d) < 1 || json_array_size(d) > 3) {
    topo_jerr(err, errlen, where, "dims", "must be an array of 1 to 3 sizes, e.g. [4, 4]");
    return -1;
  }
  s->dims[0] = s->dims[1] = s->dims[2] = 1;
  for (int i = 0; i < (int)json_array_size(d); i++) {
    const json_t *x = json_array_get(d, (size_t)i);
    if (!json_is_integer(x) || json_integer_value(x) < 1 ||
        json_integer_value(x) > TOPO_MAX_NODES) {
      char key[24];
      snprintf(key, sizeof key, "dims[%d]", i);
      topo_jerr(err, errlen, where, key, "must be an integer in 1..%d", TOPO_MAX_NODES);
      return -1;
    }
    s->dims[i] = json_integer_value(x);
  }
  return links(o, 0, s, where, err, errlen);
}

static int file(const json_t *o, const char *where, topo_spec_t *s, char *err, size_t errlen) {
  s->shape = TOPO_SHAPE_FILE;
  if (topo_jkeys(o, file_keys, where, err, errlen) < 0) return -1;
  const char *path = json_string_value(json_object_get(o, "path"));
  if (!path || !*path) {
    topo_jerr(err, errlen, where, "path", "is required: the ns-3 topology file");
    return -1;
  }
  if (strlen(path) >= sizeof s->path) {
    topo_jerr(err, errlen, where, "path", "longer than %zu characters", sizeof s->path - 1);
    return -1;
  }
  snprintf(s->path, sizeof s->path, "%s", path);
  return 0;
}

int topo_spec_parse(const json_t *obj, const char *where, topo_spec_t *s, char *err,
                    size_t errlen) {
  memset(s, 0, sizeof *s);
  if (!json_is_object(obj)) {
    topo_jerr(err, errlen, where, NULL, "the topology must be an object {\"kind\": ...}");
    return -1;
  }
  const char *kind = json_string_value(json_object_get(obj, "kind"));
  if (!kind) {
    topo_jerr(err, errlen, where, "kind", "%s: fat_tree, rail_optimized, torus or file",
              json_object_get(obj, "kind") ? "must be a string" : "is required");
    return -1;
  }
  if (strcmp(kind, "file") == 0) return file(obj, where, s, err, errlen);
  if (strcmp(kind, "fat_tree") == 0) return fat_tree(obj, where, s, err, errlen);
  if (strcmp(kind, "rail_optimized") == 0) return rail(obj, where, s, err, errlen);
  if (strcmp(kind, "torus") == 0) return torus(obj, where, s, err, errlen);
  topo_jerr(err, errlen, where, "kind", "unknown kind '%s' (fat_tree, rail_optimized, torus or file)",
            kind);
  return -1;
}

/* Members set on o one by one; a NULL value (out of memory) fails the object. */
static int put(json_t *o, const char *key, json_t *v) {
  return v ? json_object_set_new(o, key, v) : -1;
}

/* Gb/s and ns as the reals whose shortest decimals read back to these bit/s and ps. */
static int put_links(json_t *o, const topo_spec_t *s, int with_host) {
  int bad = put(o, "link_gbps", json_real((double)s->link_bps / BASE_BPS_PER_GBPS)) ||
            put(o, "link_delay_ns", json_real((double)s->link_ps / BASE_PS_PER_NS));
  if (with_host)
    bad = bad || put(o, "host_gbps", json_real((double)s->host_bps / BASE_BPS_PER_GBPS)) ||
          put(o, "host_delay_ns", json_real((double)s->host_ps / BASE_PS_PER_NS));
  return bad;
}

json_t *topo_spec_json(const topo_spec_t *s) {
  json_t *o = json_object();
  int bad = !o;
  switch (s->shape) {
  case TOPO_SHAPE_FILE:
    bad = bad || put(o, "kind", json_string("file")) || put(o, "path", json_string(s->path));
    break;
  case TOPO_SHAPE_LEAF_SPINE:
    bad = bad || put(o, "kind", json_string("fat_tree")) || put(o, "tiers", json_integer(2)) ||
          put(o, "leaves", json_integer(s->leaves)) || put(o, "spines", json_integer(s->spines)) ||
          put(o, "hosts_per_leaf", json_integer(s->hosts_per_leaf)) || put_links(o, s, 1);
    break;
  case TOPO_SHAPE_FAT_TREE:
    bad = bad || put(o, "kind", json_string("fat_tree")) || put(o, "tiers", json_integer(3)) ||
          put(o, "pods", json_integer(s->pods)) ||
          put(o, "tors_per_pod", json_integer(s->tors_per_pod)) ||
          put(o, "aggs_per_pod", json_integer(s->aggs_per_pod)) ||
          put(o, "cores", json_integer(s->cores)) ||
          put(o, "hosts_per_tor", json_integer(s->hosts_per_tor)) || put_links(o, s, 1);
    break;
  case TOPO_SHAPE_RAIL:
    bad = bad || put(o, "kind", json_string("rail_optimized")) ||
          put(o, "servers", json_integer(s->servers)) ||
          put(o, "nics_per_server", json_integer(s->nics_per_server)) ||
          put(o, "servers_per_group", json_integer(s->servers_per_group)) ||
          put(o, "spines", json_integer(s->rail_spines)) || put_links(o, s, 1);
    break;
  default: { /* torus: trailing sizes of 1 left out */
    int n = s->dims[2] > 1 ? 3 : s->dims[1] > 1 ? 2 : 1;
    json_t *d = json_array();
    for (int i = 0; d && i < n; i++)
      if (json_array_append_new(d, json_integer(s->dims[i]))) json_decref(d), d = NULL;
    bad = bad || put(o, "kind", json_string("torus")) || put(o, "dims", d) || put_links(o, s, 0);
  }
  }
  if (bad) {
    json_decref(o);
    return NULL;
  }
  return o;
}
