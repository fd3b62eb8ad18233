/* topo: rail-optimized generator. A host is one NIC (id = server * nics + rail); per
 * group of servers, one rail switch per rail joins that NIC of every server; every
 * rail switch links to every spine. */
#include "topo/topo_int.h"

int topo_gen_rail(const topo_spec_t *s, const char *where, topo_t *t, char *err, size_t errlen) {
  int64_t nics = s->nics_per_server, per_group = s->servers_per_group, spines = s->rail_spines;
  int64_t hosts = s->servers * nics, rails = s->servers / per_group * nics;
  int64_t rail0 = hosts, spine0 = rail0 + rails, n_links = hosts + rails * spines;
  if (topo_gen_alloc(t, hosts, spine0 + spines, n_links, "rail_optimized", where, err, errlen) < 0)
    return -1;
  for (int64_t h = 0; h < hosts; h++) {
    int64_t server = h / nics, rail = h % nics;
    if (topo_gen_link(t, h, rail0 + server / per_group * nics + rail, s->host_bps, s->host_ps,
                      where, err, errlen) < 0)
      return -1;
  }
  for (int64_t r = 0; r < rails; r++)
    for (int64_t k = 0; k < spines; k++)
      if (topo_gen_link(t, rail0 + r, spine0 + k, s->link_bps, s->link_ps, where, err, errlen) < 0)
        return -1;
  return 0;
}
