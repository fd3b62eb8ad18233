/* topo: fat-tree generators: 2 tiers (leaf-spine) and 3 tiers (k-ary fat-tree with
 * pods, or any pod shape given explicitly). Hosts first, then switches tier by tier. */
#include "topo/topo_int.h"

int topo_gen_leaf_spine(const topo_spec_t *s, const char *where, topo_t *t, char *err,
                        size_t errlen) {
  int64_t leaves = s->leaves, spines = s->spines, hpl = s->hosts_per_leaf;
  int64_t hosts = leaves * hpl, leaf0 = hosts, spine0 = leaf0 + leaves;
  if (topo_gen_alloc(t, hosts, spine0 + spines, hosts + leaves * spines, "fat_tree", where, err,
                     errlen) < 0)
    return -1;
  for (int64_t h = 0; h < hosts; h++)
    if (topo_gen_link(t, h, leaf0 + h / hpl, s->host_bps, s->host_ps, where, err, errlen) < 0)
      return -1;
  for (int64_t l = 0; l < leaves; l++)
    for (int64_t k = 0; k < spines; k++)
      if (topo_gen_link(t, leaf0 + l, spine0 + k, s->link_bps, s->link_ps, where, err, errlen) <
          0)
        return -1;
  return 0;
}

int topo_gen_fat_tree(const topo_spec_t *s, const char *where, topo_t *t, char *err,
                      size_t errlen) {
  int64_t tpp = s->tors_per_pod, app = s->aggs_per_pod, hpt = s->hosts_per_tor;
  int64_t c = s->cores / app; /* cores per agg */
  int64_t tors = s->pods * tpp, aggs = s->pods * app, hosts = tors * hpt;
  int64_t tor0 = hosts, agg0 = tor0 + tors, core0 = agg0 + aggs;
  if (topo_gen_alloc(t, hosts, core0 + s->cores, hosts + tors * app + aggs * c, "fat_tree", where,
                     err, errlen) < 0)
    return -1;
  for (int64_t v = 0; v < hosts; v++)
    if (topo_gen_link(t, v, tor0 + v / hpt, s->host_bps, s->host_ps, where, err, errlen) < 0)
      return -1;
  for (int64_t r = 0; r < tors; r++)
    for (int64_t j = 0; j < app; j++)
      if (topo_gen_link(t, tor0 + r, agg0 + r / tpp * app + j, s->link_bps, s->link_ps, where, err,
                        errlen) < 0)
        return -1;
  for (int64_t a = 0; a < aggs; a++)
    for (int64_t m = 0; m < c; m++)
      if (topo_gen_link(t, agg0 + a, core0 + a % app * c + m, s->link_bps, s->link_ps, where, err,
                        errlen) < 0)
        return -1;
  return 0;
}
