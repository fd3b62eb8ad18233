/* A flow's way (eng_fway_t) answers eng_route as the ECMP sets do: on a
 * 3-tier fat tree, a 2-tier one, a rail-optimized network and a torus (whose
 * hosts relay through several ports), under both ECMP hashes, spraying and
 * flowlets, every flow between every pair of hosts is routed at every node
 * of its experiment, both ways, once with the ways the world built and once
 * with them wiped: the ports agree everywhere. On the 3-tier fat tree the
 * ways hold what its shape says: no node between hosts of one edge switch,
 * the source's edge and aggregation switches within a pod, and four nodes
 * across pods (edge and aggregation up, core, aggregation down); spraying
 * and flowlets build none; and eng_route answers from the way, not the sets. */
#define _POSIX_C_SOURCE 200809L
#include <jansson.h>
#include <stdlib.h>
#include <string.h>

#include "mvsim.h"
#include "mvtest.h"
#include "sim/eng_net.h"
#include "sim/eng_world.h"

static const char *topologies[] = {
    "{\"kind\":\"fat_tree\",\"tiers\":3,\"k\":4,\"link_delay_ns\":1000}",
    "{\"kind\":\"fat_tree\",\"tiers\":2,\"leaves\":3,\"spines\":2,\"hosts_per_leaf\":4,"
    "\"host_gbps\":25,\"link_gbps\":40,\"link_delay_ns\":500}",
    "{\"kind\":\"rail_optimized\",\"servers\":4,\"nics_per_server\":4,\"spines\":2,"
    "\"link_delay_ns\":800}",
    "{\"kind\":\"torus\",\"dims\":[3,4],\"link_gbps\":100,\"link_delay_ns\":600}",
};
#define N_TOPO (int)(sizeof topologies / sizeof topologies[0])
static const char *routings[] = {"lb=ecmp", "ecmp_ns3=true", "lb=spray", "lb=adaptive"};
#define N_ROUTING (int)(sizeof routings / sizeof routings[0])

/* A flow from every host to every other. */
static tg_t all_pairs(int hosts) {
  trf_flow_t *f = malloc(sizeof *f * (size_t)hosts * (size_t)hosts);
  int n = 0;
  for (int s = 0; s < hosts; s++)
    for (int d = 0; d < hosts; d++)
      if (s != d) f[n++] = mvsim_flow(s, d, 4000, 0);
  trf_flows_t fl = {.n = n, .f = f};
  tg_t g = mvsim_tg(&fl);
  free(f);
  return g;
}

/* Every (node, flow, direction) of experiment e routed, into out[]. */
static void route_all(const eng_world_t *w, int32_t e, int32_t *out) {
  const eng_cols_t *c = &w->c;
  int64_t i = 0;
  for (int32_t f = c->exp_flow_off[e]; f < c->exp_flow_off[e] + c->exp_n_flows[e]; f++)
    for (int32_t x = c->exp_node_off[e]; x < c->exp_node_off[e] + c->exp_n_nodes[e]; x++)
      for (int data = 0; data < 2; data++)
        out[i++] = eng_route(c, x, f, data ? ENG_PKT_DATA : ENG_PKT_ACK, 7u + (uint32_t)f);
}

/* The nodes flow f's way in direction `data` holds. */
static int way_len(const eng_cols_t *c, int32_t f, int data) {
  int n = 0;
  for (int h = 0; h < ENG_WAY_HOPS; h++)
    n += c->flow_way[f].dir[data].node[h] >= 0;
  return n;
}

int main(void) {
  char err[256];
  topo_t topo[N_TOPO];
  tg_t g[N_TOPO];
  eng_params_t p[N_ROUTING];
  eng_exp_desc_t ex[N_TOPO * N_ROUTING];
  for (int k = 0; k < N_ROUTING; k++) {
    p[k] = mvsim_params();
    CHECK(mvsim_set(&p[k], routings[k], err, sizeof err) == 0);
  }
  for (int t = 0; t < N_TOPO; t++) {
    json_error_t je;
    json_t *o = json_loads(topologies[t], 0, &je);
    memset(&topo[t], 0, sizeof topo[t]);
    CHECK(o && topo_from_json(o, "test", &topo[t], err, sizeof err) == 0);
    json_decref(o);
    g[t] = all_pairs(topo[t].n_hosts);
    for (int k = 0; k < N_ROUTING; k++) {
      ex[t * N_ROUTING + k] = (eng_exp_desc_t){
          .topo = &topo[t], .tasks = &g[t], .params = &p[k], .seed = 5 + (uint64_t)k};
      CHECK(eng_exp_validate(&ex[t * N_ROUTING + k], err, sizeof err) == 0);
    }
  }
  eng_world_t *w = NULL;
  CHECK(
      eng_world_create(&(eng_world_desc_t){.n_exps = N_TOPO * N_ROUTING, .exps = ex, .threads = 2},
                       &w, err, sizeof err) == 0);
  eng_cols_t *c = &w->c;
  int64_t built = 0, routed = 0;
  for (int32_t e = 0; e < w->n_exps; e++) {
    const int64_t n = 2 * (int64_t)c->exp_n_flows[e] * c->exp_n_nodes[e];
    int32_t *with = malloc(sizeof *with * (size_t)n), *without = malloc(sizeof *with * (size_t)n);
    route_all(w, e, with);
    int64_t ways = 0;
    for (int32_t f = c->exp_flow_off[e]; f < c->exp_flow_off[e] + c->exp_n_flows[e]; f++)
      ways += way_len(c, f, 0) + way_len(c, f, 1);
    const int ecmp = e % N_ROUTING < 2;
    CHECK(ecmp ? ways > 0 : ways == 0);
    built += ways;
    eng_fway_t *keep = malloc(sizeof *keep * (size_t)c->exp_n_flows[e]);
    memcpy(keep, &c->flow_way[c->exp_flow_off[e]], sizeof *keep * (size_t)c->exp_n_flows[e]);
    memset(&c->flow_way[c->exp_flow_off[e]], 0xff, sizeof *keep * (size_t)c->exp_n_flows[e]);
    route_all(w, e, without);
    memcpy(&c->flow_way[c->exp_flow_off[e]], keep, sizeof *keep * (size_t)c->exp_n_flows[e]);
    int64_t differ = 0;
    for (int64_t i = 0; i < n; i++)
      differ += with[i] != without[i];
    CHECK_EQ_I64(differ, 0);
    routed += n;
    free(keep);
    free(with);
    free(without);
  }
  /* The 3-tier fat tree (k = 4: 2 hosts an edge switch, 4 a pod), both hashes. */
  for (int k = 0; k < 2; k++) {
    const int32_t e = k, f0 = c->exp_flow_off[e];
    int bad = 0;
    for (int32_t f = f0; f < f0 + c->exp_n_flows[e]; f++) {
      const int32_t s = c->flow[f].hdr.end[0].id, d = c->flow[f].hdr.end[1].id;
      const int want = s / 2 == d / 2 ? 0 : s / 4 == d / 4 ? 2 : 4;
      bad += way_len(c, f, 1) != want || way_len(c, f, 0) != want;
    }
    CHECK_EQ_I64(bad, 0);
  }
  /* eng_route answers from the way: a way's port changed is the port routed. */
  int used = 0;
  for (int32_t f = c->exp_flow_off[0]; f < c->exp_flow_off[0] + c->exp_n_flows[0]; f++) {
    eng_fhops_t *way = &c->flow_way[f].dir[1];
    if (way->node[0] < 0) continue;
    const uint16_t was = way->port[0];
    way->port[0] = (uint16_t)((was + 1) % c->node[way->node[0]].n_ports);
    used += eng_route(c, way->node[0], f, ENG_PKT_DATA, 0) == way->port[0];
    way->port[0] = was;
    used -= eng_route(c, way->node[0], f, ENG_PKT_DATA, 0) != was;
  }
  CHECK_EQ_I64(used, 224); /* the flows of the 3-tier fat tree leaving their edge switch */
  printf("%lld routes compared, %lld way entries built\n", (long long)routed, (long long)built);
  eng_world_destroy(w);
  for (int t = 0; t < N_TOPO; t++) {
    tg_free(&g[t]);
    topo_free(&topo[t]);
  }
  return mvtest_end();
}
