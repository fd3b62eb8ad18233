/* Generated topologies: node, link and host counts, numbering and link order of each
 * kind, and the `where.key: problem` messages for bad JSON. Specs: objects that build
 * the same topology (a radix k or the sizes it implies, 100 or 100.0 Gb/s, defaults
 * left out or written) give one spec, and every spec's canonical object reads back
 * to the same spec. */
#include "mvtest.h"
#include "topo/topo.h"

static char err[TOPO_ERR_LEN];

/* Builds from JSON text; where = "t.json: topology". Returns topo_from_json's rc. */
static int gen(const char *text, topo_t *t) {
  json_error_t jerr;
  json_t *o = json_loads(text, 0, &jerr);
  if (!o) {
    fprintf(stderr, "bad JSON in test: %s\n", text);
    exit(1);
  }
  err[0] = '\0';
  int rc = topo_from_json(o, "t.json: topology", t, err, sizeof err);
  json_decref(o);
  return rc;
}

static void check_bad(const char *text, const char *phrase) {
  topo_t t;
  CHECK_EQ_I64(gen(text, &t), -1);
  CHECK_STR_CONTAINS(err, phrase);
  CHECK(t.n_nodes == 0);
}

static int count_switches(const topo_t *t) {
  int n = 0;
  for (int v = 0; v < t->n_nodes; v++)
    n += t->is_switch[v];
  return n;
}

static void test_fat3(void) {
  topo_t t;
  CHECK_EQ_I64(gen("{\"kind\":\"fat_tree\",\"tiers\":3,\"k\":4}", &t), 0);
  CHECK_STR_CONTAINS(t.kind, "fat_tree");
  CHECK_EQ_I64(t.n_hosts, 16);
  CHECK_EQ_I64(count_switches(&t), 20);
  CHECK_EQ_I64(t.n_links, 48);
  /* Hosts 0..15, ToRs 16..23, aggs 24..31, cores 32..35; links: hosts, ToR-agg, agg-core. */
  CHECK_EQ_I64(t.links[3].a, 3);
  CHECK_EQ_I64(t.links[3].b, 17);
  CHECK_EQ_I64(t.links[16 + 5].a, 18); /* ToR 2 (pod 1), its second agg */
  CHECK_EQ_I64(t.links[16 + 5].b, 27);
  CHECK_EQ_I64(t.links[32 + 3].a, 25); /* agg 1 of pod 0: cores 2 and 3 */
  CHECK_EQ_I64(t.links[32 + 3].b, 35);
  CHECK_EQ_I64(t.links[0].rate_bps, 100000000000LL); /* defaults: 100 Gb/s, 1000 ns */
  CHECK_EQ_I64(t.links[47].delay_ps, 1000000);
  CHECK(!t.forwards[15] && t.forwards[16] && t.forwards[35]);
  topo_free(&t);

  /* The HPCC paper's 320-server tree. */
  CHECK_EQ_I64(gen("{\"kind\":\"fat_tree\",\"tiers\":3,\"pods\":5,\"tors_per_pod\":4,"
                   "\"aggs_per_pod\":4,\"cores\":16,\"hosts_per_tor\":16,\"host_gbps\":100,"
                   "\"link_gbps\":400,\"link_delay_ns\":1000}",
                   &t),
               0);
  CHECK_EQ_I64(t.n_hosts, 320);
  CHECK_EQ_I64(count_switches(&t), 20 + 20 + 16);
  CHECK_EQ_I64(t.n_links, 320 + 20 * 4 + 20 * 4);
  CHECK_EQ_I64(t.links[319].rate_bps, 100000000000LL);
  CHECK_EQ_I64(t.links[320].rate_bps, 400000000000LL);
  CHECK_EQ_I64(t.links[319].delay_ps, 1000000); /* host_delay_ns defaults to link_delay_ns */
  CHECK_EQ_I64(t.routes.n_groups, 20);
  topo_free(&t);

  /* Oversubscription 2 on k=4: 4 hosts per ToR. Reals that are integers are accepted. */
  CHECK_EQ_I64(gen("{\"kind\":\"fat_tree\",\"k\":4.0,\"oversubscription\":2}", &t), 0);
  CHECK_EQ_I64(t.n_hosts, 32);
  topo_free(&t);
}

static void test_leaf_spine(void) {
  topo_t t;
  CHECK_EQ_I64(gen("{\"kind\":\"fat_tree\",\"tiers\":2,\"k\":8}", &t), 0);
  CHECK_EQ_I64(t.n_hosts, 32);
  CHECK_EQ_I64(t.n_nodes, 32 + 8 + 4); /* 8 leaves, 4 spines */
  CHECK_EQ_I64(t.n_links, 32 + 8 * 4);
  CHECK_EQ_I64(t.links[32].a, 32); /* leaf 0 to spine 0 (node 40) */
  CHECK_EQ_I64(t.links[32].b, 40);
  topo_free(&t);

  CHECK_EQ_I64(gen("{\"kind\":\"fat_tree\",\"tiers\":2,\"k\":8,\"oversubscription\":3}", &t), 0);
  CHECK_EQ_I64(t.n_hosts, 48); /* 6 hosts per leaf */
  CHECK_EQ_I64(count_switches(&t), 8 + 2);
  CHECK_EQ_I64(t.port_off[48 + 1] - t.port_off[48], 8); /* leaf 0: 6 down, 2 up */
  topo_free(&t);

  /* Explicit shape; fractional rates and delays become exact integers. */
  CHECK_EQ_I64(gen("{\"kind\":\"fat_tree\",\"tiers\":2,\"leaves\":3,\"spines\":5,"
                   "\"hosts_per_leaf\":2,\"link_gbps\":1.6,\"host_gbps\":25,"
                   "\"link_delay_ns\":0.5,\"host_delay_ns\":2000}",
                   &t),
               0);
  CHECK_EQ_I64(t.n_nodes, 6 + 3 + 5);
  CHECK_EQ_I64(t.n_links, 6 + 15);
  CHECK_EQ_I64(t.links[6].rate_bps, 1600000000LL);
  CHECK_EQ_I64(t.links[6].delay_ps, 500);
  CHECK_EQ_I64(t.links[5].rate_bps, 25000000000LL);
  CHECK_EQ_I64(t.links[5].delay_ps, 2000000);
  topo_free(&t);
}

static void test_rail(void) {
  topo_t t;
  CHECK_EQ_I64(gen("{\"kind\":\"rail_optimized\",\"servers\":4}", &t), 0);
  CHECK_STR_CONTAINS(t.kind, "rail_optimized");
  CHECK_EQ_I64(t.n_hosts, 32);
  CHECK_EQ_I64(count_switches(&t), 8 + 8); /* 8 rail switches, 8 spines */
  CHECK_EQ_I64(t.n_links, 32 + 64);
  CHECK_EQ_I64(t.links[9].b, 32 + 1); /* server 1, NIC 1: rail switch 1 */
  topo_free(&t);

  /* 4 servers in groups of 2, 2 NICs, 1 spine: host 5 = server 2, NIC 1. */
  CHECK_EQ_I64(gen("{\"kind\":\"rail_optimized\",\"servers\":4,\"nics_per_server\":2,"
                   "\"servers_per_group\":2,\"spines\":1}",
                   &t),
               0);
  CHECK_EQ_I64(t.n_nodes, 8 + 4 + 1);
  CHECK_EQ_I64(t.links[5].a, 5);
  CHECK_EQ_I64(t.links[5].b, 8 + 1 * 2 + 1);
  CHECK_EQ_I64(t.links[8 + 3].a, 11); /* rail switch (group 1, rail 1) to the spine */
  CHECK_EQ_I64(t.links[8 + 3].b, 12);
  topo_free(&t);
}

static void test_torus(void) {
  topo_t t;
  CHECK_EQ_I64(gen("{\"kind\":\"torus\",\"dims\":[4,4]}", &t), 0);
  CHECK_STR_CONTAINS(t.kind, "torus");
  CHECK_EQ_I64(t.n_hosts, 16);
  CHECK_EQ_I64(t.n_links, 32);
  CHECK_EQ_I64(count_switches(&t), 0);
  CHECK(t.forwards[0] && t.forwards[15]);
  /* Node 0: +x (1), +y (4), then the wrap links from 3 and 12. */
  CHECK_EQ_I64(topo_port_to(&t, 0, 1), 0);
  CHECK_EQ_I64(topo_port_to(&t, 0, 4), 1);
  CHECK_EQ_I64(topo_port_to(&t, 0, 3), 2);
  CHECK_EQ_I64(topo_port_to(&t, 0, 12), 3);
  topo_free(&t);

  CHECK_EQ_I64(gen("{\"kind\":\"torus\",\"dims\":[2,3]}", &t), 0);
  CHECK_EQ_I64(t.n_nodes, 6);
  CHECK_EQ_I64(t.n_links, 9);
  topo_free(&t);

  CHECK_EQ_I64(gen("{\"kind\":\"torus\",\"dims\":[3,2,2],\"link_gbps\":200}", &t), 0);
  CHECK_EQ_I64(t.n_nodes, 12);
  CHECK_EQ_I64(t.n_links, 12 + 6 + 6);
  CHECK_EQ_I64(t.links[0].rate_bps, 200000000000LL);
  topo_free(&t);

  /* A ring of 513: the farthest node is 256 hops away, the most a path may have. */
  CHECK_EQ_I64(gen("{\"kind\":\"torus\",\"dims\":[513]}", &t), 0);
  CHECK_EQ_I64(topo_distance(&t, 0, 256), 256);
  topo_free(&t);
}

static void test_errors(void) {
  check_bad("{\"kind\":\"fat_tree\",\"k\":5}",
            "t.json: topology.k: must be an even number >= 2, got 5");
  check_bad("{\"kind\":\"fat_tree\",\"k\":\"8\"}", "topology.k: must be an integer, got \"8\"");
  check_bad("{\"kind\":\"fat_tree\",\"tiers\":2,\"pods\":4}", "topology.pods: unknown key");
  check_bad("{\"kind\":\"fat_tree\",\"tiers\":4}", "topology.tiers: must be an integer in 2..3");
  check_bad("{\"kind\":\"fat_tree\",\"k\":4,\"cores\":3}",
            "topology.cores: must be a multiple of aggs_per_pod (2)");
  check_bad("{\"kind\":\"fat_tree\",\"oversubscription\":0.5}",
            "topology.oversubscription: must be a number in [1,");
  check_bad("{\"kind\":\"fat_tree\",\"link_gbps\":-1}",
            "topology.link_gbps: must be 1 to 1e6 Gb/s (1 Gb/s to 1 Pb/s), got -1");
  check_bad("{\"kind\":\"fat_tree\",\"link_delay_ns\":0}",
            "topology.link_delay_ns: must be 0.001 to 1e9 ns (1 ps to 1 s), got 0");
  /* The limits (docs/formats.md "Limits"): 1 ps to 1 s, 1 Gb/s to 1 Pb/s, 256 hops. */
  check_bad("{\"kind\":\"fat_tree\",\"link_delay_ns\":1e10}",
            "topology.link_delay_ns: must be 0.001 to 1e9 ns (1 ps to 1 s), got 1e+10");
  check_bad("{\"kind\":\"fat_tree\",\"host_delay_ns\":1000000000.5}",
            "topology.host_delay_ns: must be 0.001 to 1e9 ns");
  check_bad("{\"kind\":\"torus\",\"dims\":[2],\"link_gbps\":0.5}",
            "topology.link_gbps: must be 1 to 1e6 Gb/s (1 Gb/s to 1 Pb/s), got 0.5");
  check_bad("{\"kind\":\"rail_optimized\",\"servers\":2,\"host_gbps\":1000001}",
            "topology.host_gbps: must be 1 to 1e6 Gb/s");
  check_bad("{\"kind\":\"fat_tree\",\"k\":4,\"oversubscription\":1048576}",
            "topology.oversubscription: 1.04858e+06 gives 2097152 hosts per ToR, more than the "
            "1048576 nodes");
  check_bad("{\"kind\":\"torus\",\"dims\":[515]}",
            "the shortest path from node 257 to node 0 has 257 hops: the limit is 256");
  check_bad("{\"kind\":\"fat_tree\",\"k\":256}", "t.json: topology: 4276224 nodes: a topology has");
  check_bad("{\"kind\":\"fat_tree\",\"tiers\":2,\"leaves\":1,\"hosts_per_leaf\":70000}",
            "t.json: topology: node 70000 has 70004 ports, more than the limit of 65535");
  check_bad("{\"kind\":\"rail_optimized\"}", "topology.servers: is required");
  check_bad("{\"kind\":\"rail_optimized\",\"servers\":4,\"servers_per_group\":3}",
            "topology.servers_per_group: must divide servers (4), got 3");
  check_bad("{\"kind\":\"torus\",\"dims\":[4,4],\"host_gbps\":100}",
            "topology.host_gbps: unknown key");
  check_bad("{\"kind\":\"torus\",\"dims\":[4,0]}", "topology.dims[1]: must be an integer in 1..");
  check_bad("{\"kind\":\"torus\",\"dims\":[2,2,2,2]}", "topology.dims: must be an array of 1 to 3");
  check_bad("{\"kind\":\"mesh\"}", "topology.kind: unknown kind 'mesh'");
  check_bad("{\"tiers\":2}", "topology.kind: is required");
  check_bad("{\"kind\":\"file\"}", "topology.path: is required");
  check_bad("[1]", "t.json: topology: the topology must be an object");

  /* A bare file name as `where`: "file: key: problem". */
  json_t *o = json_pack("{s:s, s:i}", "kind", "fat_tree", "k", 3);
  topo_t t;
  CHECK_EQ_I64(topo_from_json(o, "x.json", &t, err, sizeof err), -1);
  CHECK_STR_CONTAINS(err, "x.json: k: must be an even number");
  json_decref(o);
}

static void spec_of(const char *text, topo_spec_t *s) {
  json_t *o = json_loads(text, 0, NULL);
  CHECK(o != NULL);
  CHECK_EQ_I64(topo_spec_parse(o, "t.json: topology", s, err, sizeof err), 0);
  json_decref(o);
}

/* Pairs that must give one spec, and every spec read back from its canonical
 * object (memcmp: topo_spec_parse zeroes the spec first). */
static void test_spec(void) {
  static const char *const same[][2] = {
      {"{\"kind\":\"fat_tree\",\"tiers\":2}",
       "{\"kind\":\"fat_tree\",\"tiers\":2,\"leaves\":8,\"spines\":4,\"hosts_per_leaf\":4,"
       "\"link_gbps\":100.0,\"host_gbps\":100,\"link_delay_ns\":1000,\"host_delay_ns\":1e3}"},
      {"{\"kind\":\"fat_tree\",\"k\":4}",
       "{\"kind\":\"fat_tree\",\"tiers\":3,\"pods\":4,\"tors_per_pod\":2,\"aggs_per_pod\":2,"
       "\"cores\":4,\"hosts_per_tor\":2,\"oversubscription\":1.0}"},
      {"{\"kind\":\"rail_optimized\",\"servers\":4}",
       "{\"kind\":\"rail_optimized\",\"servers\":4,\"nics_per_server\":8,"
       "\"servers_per_group\":4,\"spines\":8}"},
      {"{\"kind\":\"torus\",\"dims\":[4,4]}", "{\"kind\":\"torus\",\"dims\":[4,4,1]}"},
      {"{\"kind\":\"file\",\"path\":\"a.txt\"}", "{\"path\":\"a.txt\",\"kind\":\"file\"}"},
  };
  for (size_t i = 0; i < sizeof same / sizeof same[0]; i++) {
    topo_spec_t a, b, c;
    spec_of(same[i][0], &a);
    spec_of(same[i][1], &b);
    CHECK(memcmp(&a, &b, sizeof a) == 0);
    json_t *o = topo_spec_json(&a);
    CHECK(o != NULL);
    CHECK_EQ_I64(topo_spec_parse(o, "canonical", &c, err, sizeof err), 0);
    CHECK(memcmp(&a, &c, sizeof a) == 0);
    CHECK(json_object_get(o, "k") == NULL && json_object_get(o, "oversubscription") == NULL);
    json_decref(o);
  }
  /* Rates and delays that are not whole Gb/s or ns read back to the same bit/s and ps. */
  topo_spec_t a, c;
  spec_of("{\"kind\":\"fat_tree\",\"tiers\":2,\"link_gbps\":12.345678901,"
          "\"host_delay_ns\":0.001,\"link_delay_ns\":999999999.999}",
          &a);
  CHECK_EQ_I64(a.link_bps, 12345678901LL);
  CHECK_EQ_I64(a.host_ps, 1);
  CHECK_EQ_I64(a.link_ps, 999999999999LL);
  json_t *o = topo_spec_json(&a);
  CHECK_EQ_I64(topo_spec_parse(o, "canonical", &c, err, sizeof err), 0);
  CHECK(memcmp(&a, &c, sizeof a) == 0);
  json_decref(o);
}

int main(void) {
  test_spec();
  test_fat3();
  test_leaf_spine();
  test_rail();
  test_torus();
  test_errors();
  return mvtest_end();
}
