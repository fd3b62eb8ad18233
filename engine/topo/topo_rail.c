/* topo: rail-optimized generator. A host is one NIC (id = server * nics + rail); per
 * group of servers, one rail switch per rail joins that NIC of every server; every
 * rail switch links to every spine. */
#include "topo/topo_int.h"

static const char *const rail_keys[] = {
    "kind",      "servers",   "nics_per_server", "servers_per_group", "spines",
    "link_gbps", "host_gbps", "link_delay_ns",   "host_delay_ns",     NULL};

int topo_gen_rail(const json_t *o, const char *where, topo_t *t, char *err, size_t errlen) {
  topo_jlinks_t lk;
  int64_t servers, nics, per_group, spines;
  if (topo_jkeys(o, rail_keys, where, err, errlen) < 0) return -1;
  if (!json_object_get(o, "servers")) {
    topo_jerr(err, errlen, where, "servers", "is required (the number of servers)");
    return -1;
  }
  if (topo_jlinks(o, 1, &lk, where, err, errlen) < 0 ||
      topo_jint(o, "servers", 0, 1, TOPO_MAX_NODES, &servers, where, err, errlen) < 0 ||
      topo_jint(o, "nics_per_server", 8, 1, TOPO_MAX_PORTS, &nics, where, err, errlen) < 0 ||
      topo_jint(o, "servers_per_group", servers, 1, servers, &per_group, where, err, errlen) < 0 ||
      topo_jint(o, "spines", nics, 0, TOPO_MAX_NODES, &spines, where, err, errlen) < 0)
    return -1;
  if (servers % per_group) {
    topo_jerr(err, errlen, where, "servers_per_group", "must divide servers (%lld), got %lld",
              (long long)servers, (long long)per_group);
    return -1;
  }
  int64_t hosts = servers * nics, rails = servers / per_group * nics;
  int64_t rail0 = hosts, spine0 = rail0 + rails, n_links = hosts + rails * spines;
  if (topo_gen_alloc(t, hosts, spine0 + spines, n_links, "rail_optimized", where, err, errlen) < 0)
    return -1;
  for (int64_t h = 0; h < hosts; h++) {
    int64_t server = h / nics, rail = h % nics;
    if (topo_gen_link(t, h, rail0 + server / per_group * nics + rail, lk.host_bps, lk.host_ps,
                      where, err, errlen) < 0)
      return -1;
  }
  for (int64_t r = 0; r < rails; r++)
    for (int64_t s = 0; s < spines; s++)
      if (topo_gen_link(t, rail0 + r, spine0 + s, lk.link_bps, lk.link_ps, where, err, errlen) < 0)
        return -1;
  return 0;
}
