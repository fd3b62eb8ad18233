/* topo: fat-tree generators: 2 tiers (leaf-spine) and 3 tiers (k-ary fat-tree with
 * pods, or any pod shape given explicitly). Hosts first, then switches tier by tier. */
#include <math.h>

#include "topo/topo_int.h"

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

static int leaf_spine(const json_t *o, const char *where, int64_t k, double over, topo_t *t,
                      char *err, size_t errlen) {
  topo_jlinks_t lk;
  int64_t leaves, spines, hpl;
  int64_t down = (int64_t)floor((double)k * over / (over + 1) + 1e-9); /* host ports */
  if (topo_jkeys(o, fat2_keys, where, err, errlen) < 0 ||
      topo_jlinks(o, 1, &lk, where, err, errlen) < 0 ||
      topo_jint(o, "leaves", k, 1, TOPO_MAX_NODES, &leaves, where, err, errlen) < 0 ||
      topo_jint(o, "spines", k - down, 1, TOPO_MAX_NODES, &spines, where, err, errlen) < 0 ||
      topo_jint(o, "hosts_per_leaf", down, 1, TOPO_MAX_NODES, &hpl, where, err, errlen) < 0)
    return -1;
  int64_t hosts = leaves * hpl, leaf0 = hosts, spine0 = leaf0 + leaves;
  if (topo_gen_alloc(t, hosts, spine0 + spines, hosts + leaves * spines, "fat_tree", where, err,
                     errlen) < 0)
    return -1;
  for (int64_t h = 0; h < hosts; h++)
    if (topo_gen_link(t, h, leaf0 + h / hpl, lk.host_bps, lk.host_ps, where, err, errlen) < 0)
      return -1;
  for (int64_t l = 0; l < leaves; l++)
    for (int64_t s = 0; s < spines; s++)
      if (topo_gen_link(t, leaf0 + l, spine0 + s, lk.link_bps, lk.link_ps, where, err, errlen) < 0)
        return -1;
  return 0;
}

static int three_tier(const json_t *o, const char *where, int64_t k, double over, topo_t *t,
                      char *err, size_t errlen) {
  topo_jlinks_t lk;
  int64_t pods, tpp, app, cores, hpt, h = k / 2;
  if (topo_jkeys(o, fat3_keys, where, err, errlen) < 0 ||
      topo_jlinks(o, 1, &lk, where, err, errlen) < 0 ||
      topo_jint(o, "pods", k, 1, TOPO_MAX_NODES, &pods, where, err, errlen) < 0 ||
      topo_jint(o, "tors_per_pod", h, 1, TOPO_MAX_NODES, &tpp, where, err, errlen) < 0 ||
      topo_jint(o, "aggs_per_pod", h, 1, TOPO_MAX_NODES, &app, where, err, errlen) < 0 ||
      topo_jint(o, "cores", h * h, 1, TOPO_MAX_NODES, &cores, where, err, errlen) < 0 ||
      topo_jint(o, "hosts_per_tor", (int64_t)floor((double)h * over + 1e-9), 1, TOPO_MAX_NODES,
                &hpt, where, err, errlen) < 0)
    return -1;
  if (hpt > TOPO_MAX_NODES) { /* a default from k and oversubscription */
    topo_jerr(err, errlen, where, "oversubscription",
              "%g gives %lld hosts per ToR, more than the %d nodes of a topology", over,
              (long long)hpt, TOPO_MAX_NODES);
    return -1;
  }
  if (cores % app) {
    topo_jerr(err, errlen, where, "cores",
              "must be a multiple of aggs_per_pod (%lld), so that each agg reaches as many "
              "cores, got %lld",
              (long long)app, (long long)cores);
    return -1;
  }
  int64_t c = cores / app; /* cores per agg */
  int64_t tors = pods * tpp, aggs = pods * app, hosts = tors * hpt;
  int64_t tor0 = hosts, agg0 = tor0 + tors, core0 = agg0 + aggs;
  if (topo_gen_alloc(t, hosts, core0 + cores, hosts + tors * app + aggs * c, "fat_tree", where, err,
                     errlen) < 0)
    return -1;
  for (int64_t v = 0; v < hosts; v++)
    if (topo_gen_link(t, v, tor0 + v / hpt, lk.host_bps, lk.host_ps, where, err, errlen) < 0)
      return -1;
  for (int64_t r = 0; r < tors; r++)
    for (int64_t j = 0; j < app; j++)
      if (topo_gen_link(t, tor0 + r, agg0 + r / tpp * app + j, lk.link_bps, lk.link_ps, where, err,
                        errlen) < 0)
        return -1;
  for (int64_t a = 0; a < aggs; a++)
    for (int64_t m = 0; m < c; m++)
      if (topo_gen_link(t, agg0 + a, core0 + a % app * c + m, lk.link_bps, lk.link_ps, where, err,
                        errlen) < 0)
        return -1;
  return 0;
}

int topo_gen_fat_tree(const json_t *obj, const char *where, topo_t *t, char *err, size_t errlen) {
  int64_t tiers, k;
  double over;
  if (topo_jint(obj, "tiers", 3, 2, 3, &tiers, where, err, errlen) < 0 ||
      topo_jint(obj, "k", 8, 2, TOPO_MAX_NODES, &k, where, err, errlen) < 0 ||
      topo_jnum(obj, "oversubscription", 1, 1, TOPO_MAX_NODES, &over, where, err, errlen) < 0)
    return -1;
  if (k % 2) {
    topo_jerr(err, errlen, where, "k", "must be an even number >= 2, got %lld", (long long)k);
    return -1;
  }
  return tiers == 2 ? leaf_spine(obj, where, k, over, t, err, errlen)
                    : three_tier(obj, where, k, over, t, err, errlen);
}
