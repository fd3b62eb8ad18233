/* Routing: destination groups, shortest-path distances, equal-cost next-hop sets and
 * their per-node deduplication, on generated, file and hand-built topologies. */
#include "mvtest.h"
#include "topo/topo.h"

static char err[TOPO_ERR_LEN];

static void gen(const char *text, topo_t *t) {
  json_t *o = json_loads(text, 0, NULL);
  int rc = o ? topo_from_json(o, "t.json", t, err, sizeof err) : -1;
  json_decref(o);
  if (rc < 0) {
    fprintf(stderr, "cannot build %s: %s\n", text, err);
    exit(1);
  }
}

/* A topology assembled by hand: nodes < n_switch0 are hosts, the rest switches. */
static int build(topo_t *t, int n, int n_switch0, const int (*l)[2], int nl) {
  memset(t, 0, sizeof *t);
  t->n_nodes = n;
  t->is_switch = calloc((size_t)n, 1);
  t->forwards = calloc((size_t)n, 1);
  t->n_links = nl;
  t->links = calloc((size_t)nl + 1, sizeof *t->links);
  for (int v = n_switch0; v < n; v++)
    t->is_switch[v] = t->forwards[v] = 1;
  for (int i = 0; i < nl; i++)
    t->links[i] = (topo_link_t){l[i][0], l[i][1], 100000000000LL, 1000000, 0};
  return topo_finish(t, err, sizeof err);
}

static int hops(const topo_t *t, int node, int dst, uint16_t *p) {
  return topo_next_hops(t, node, dst, p, 64);
}

static uint32_t sets_of(const topo_t *t, int v) {
  uint32_t end = v + 1 < t->n_nodes ? t->routes.set_base[v + 1] : t->routes.n_sets;
  return end - t->routes.set_base[v];
}

/* k=4: hosts 0..15, ToRs 16..23, aggs 24..31, cores 32..35. */
static void check_fat_k4(const topo_t *t) {
  uint16_t p[64];
  CHECK_EQ_I64(t->routes.n_groups, 8); /* one per ToR */
  CHECK_EQ_I64(t->routes.group_node[3], 19);
  CHECK_EQ_I64(t->routes.host_group[7], 3);
  CHECK_EQ_I64(t->routes.host_edge_port[7], 1);
  CHECK_EQ_I64(t->routes.n_rows, 20); /* the switches; hosts have one port */
  CHECK_EQ_I64(t->routes.row[16], 0);
  CHECK_EQ_I64(t->routes.row[0], -1);
  CHECK_EQ_I64(topo_distance(t, 0, 1), 2); /* same ToR */
  CHECK_EQ_I64(topo_distance(t, 0, 2), 4); /* same pod */
  CHECK_EQ_I64(topo_distance(t, 0, 4), 6); /* other pod */
  CHECK_EQ_I64(topo_distance(t, 32, 0), 3);
  CHECK_EQ_I64(topo_distance(t, 16, 0), 1);
  CHECK_EQ_I64(topo_distance(t, 5, 5), 0);
  /* ToR 16 to another pod: both uplinks (ports 2, 3). */
  CHECK_EQ_I64(hops(t, 16, 4, p), 2);
  CHECK_EQ_I64(p[0], 2);
  CHECK_EQ_I64(p[1], 3);
  /* Agg 24 to another pod: its 2 core ports; to ToR 17 of its pod: port 1 only. */
  CHECK_EQ_I64(hops(t, 24, 4, p), 2);
  CHECK_EQ_I64(p[0], 2);
  CHECK_EQ_I64(hops(t, 24, 2, p), 1);
  CHECK_EQ_I64(p[0], 1);
  /* Core 33 to pod 2: port 2. The edge switch: host_edge_port. A host: port 0. */
  CHECK_EQ_I64(hops(t, 33, 9, p), 1);
  CHECK_EQ_I64(p[0], 2);
  CHECK_EQ_I64(hops(t, 16, 1, p), 1);
  CHECK_EQ_I64(p[0], 1);
  CHECK_EQ_I64(hops(t, 0, 9, p), 1);
  CHECK_EQ_I64(p[0], 0);
  CHECK_EQ_I64(topo_next_hops(t, 16, 4, p, 1), 1); /* cap */
  /* Dedup: a ToR has 1 set (its uplinks serve every other ToR), an agg 3 ({ToR 0},
   * {ToR 1}, {cores}), a core 4 (one per pod): 8 + 24 + 16. */
  CHECK_EQ_I64(sets_of(t, 16), 1);
  CHECK_EQ_I64(sets_of(t, 24), 3);
  CHECK_EQ_I64(sets_of(t, 32), 4);
  CHECK_EQ_I64(t->routes.n_sets, 48);
  CHECK_EQ_I64(t->routes.table[0 * 8 + 0], TOPO_NO_ROUTE); /* ToR 16, its own group */
  CHECK_EQ_I64(t->routes.table[0 * 8 + 1], 0);
  CHECK_EQ_I64(t->routes.table[0 * 8 + 7], 0);
}

static void test_fat_tree(void) {
  topo_t g, f;
  gen("{\"kind\":\"fat_tree\",\"tiers\":3,\"k\":4}", &g);
  check_fat_k4(&g);
  /* The same tree written as an ns-3 file gives the same ports and routes. */
  CHECK_EQ_I64(topo_read_ns3(mvtest_data("fat_k4.txt"), &f, err, sizeof err), 0);
  check_fat_k4(&f);
  CHECK_EQ_I64(f.n_links, g.n_links);
  CHECK(memcmp(f.ports, g.ports, 2 * (size_t)g.n_links * sizeof *g.ports) == 0);
  CHECK(memcmp(f.routes.table, g.routes.table,
               (size_t)g.routes.n_rows * g.routes.n_groups * sizeof *g.routes.table) == 0);
  CHECK(memcmp(f.routes.set_ports, g.routes.set_ports,
               g.routes.set_off[g.routes.n_sets] * sizeof *g.routes.set_ports) == 0);
  int same = 1;
  for (int v = 0; v < g.n_nodes; v++)
    for (int h = 0; h < g.n_hosts; h++)
      same &= topo_distance(&f, v, h) == topo_distance(&g, v, h);
  CHECK(same);
  topo_free(&f);
  topo_free(&g);
}

static void test_leaf_spine(void) {
  topo_t t;
  uint16_t p[64];
  gen("{\"kind\":\"fat_tree\",\"tiers\":2,\"k\":8}", &t);
  CHECK_EQ_I64(t.routes.n_groups, 8);
  CHECK_EQ_I64(topo_distance(&t, 0, 4), 4);
  CHECK_EQ_I64(hops(&t, 32, 4, p), 4); /* leaf 0 to leaf 1: every spine */
  CHECK_EQ_I64(p[0], 4);
  CHECK_EQ_I64(p[3], 7);
  CHECK_EQ_I64(hops(&t, 40, 4, p), 1); /* spine to leaf 1: port 1 */
  CHECK_EQ_I64(p[0], 1);
  topo_free(&t);
}

/* 3-tier k=48: 27648 hosts. The tables scale with switches x ToRs, not with hosts. */
static void test_k48(void) {
  topo_t t;
  uint16_t p[64];
  gen("{\"kind\":\"fat_tree\",\"tiers\":3,\"k\":48}", &t);
  CHECK_EQ_I64(t.n_hosts, 27648);
  CHECK_EQ_I64(t.routes.n_groups, 1152);
  CHECK_EQ_I64(t.routes.n_rows, 1152 + 1152 + 576);
  CHECK_EQ_I64(t.routes.n_sets, 1152 * 1 + 1152 * 25 + 576 * 48);
  CHECK_EQ_I64(topo_distance(&t, 0, 27647), 6);
  CHECK_EQ_I64(hops(&t, 27648, 27647, p), 24); /* ToR 0: 24 uplinks */
  CHECK_EQ_I64(p[0], 24);
  topo_free(&t);
}

static void test_rail(void) {
  topo_t t;
  uint16_t p[64];
  gen("{\"kind\":\"rail_optimized\",\"servers\":4}", &t);
  CHECK_EQ_I64(t.routes.n_groups, 8);       /* one per rail switch */
  CHECK_EQ_I64(topo_distance(&t, 0, 8), 2); /* NIC 0 of servers 0 and 1: same rail */
  CHECK_EQ_I64(topo_distance(&t, 0, 9), 4); /* another rail: through a spine */
  CHECK_EQ_I64(hops(&t, 32, 9, p), 8);      /* rail switch 0: all 8 spines (ports 4..11) */
  CHECK_EQ_I64(p[0], 4);
  topo_free(&t);
}

static void test_torus(void) {
  topo_t t;
  uint16_t p[64];
  gen("{\"kind\":\"torus\",\"dims\":[4,4]}", &t);
  CHECK_EQ_I64(t.routes.n_groups, 16); /* relaying hosts: a group each */
  CHECK_EQ_I64(t.routes.host_edge_port[5], -1);
  CHECK_EQ_I64(t.routes.group_node[5], 5);
  CHECK_EQ_I64(t.routes.n_rows, 16);
  CHECK_EQ_I64(topo_distance(&t, 0, 10), 4); /* (0,0) -> (2,2) */
  CHECK_EQ_I64(topo_distance(&t, 0, 3), 1);  /* wrap */
  CHECK_EQ_I64(hops(&t, 0, 10, p), 4);       /* every direction is shortest */
  CHECK_EQ_I64(hops(&t, 0, 2, p), 2);        /* +x or -x */
  CHECK_EQ_I64(p[0], 0);
  CHECK_EQ_I64(p[1], 2);
  CHECK_EQ_I64(hops(&t, 0, 1, p), 1);
  CHECK_EQ_I64(t.routes.table[t.routes.row[0] * 16 + 0], TOPO_NO_ROUTE);
  topo_free(&t);
}

/* Host 0 dual-homed to switches 3 and 4; host 1 on 3, host 2 on 4; spine 5 joins 3
 * and 4. Host 0 does not relay, so 3 reaches 4 only through 5. */
static void test_multi_homed(void) {
  static const int l[][2] = {{0, 3}, {0, 4}, {1, 3}, {2, 4}, {3, 5}, {4, 5}};
  topo_t t;
  uint16_t p[64];
  CHECK_EQ_I64(build(&t, 6, 3, l, 6), 0);
  CHECK_EQ_I64(t.n_hosts, 3);
  CHECK_EQ_I64(t.routes.n_groups, 3); /* anchors 0, 3, 4 in that order */
  CHECK_EQ_I64(t.routes.group_node[0], 0);
  CHECK_EQ_I64(t.routes.group_node[1], 3);
  CHECK_EQ_I64(t.routes.host_group[2], 2);
  CHECK_EQ_I64(t.routes.host_edge_port[0], -1);
  CHECK_EQ_I64(t.routes.host_edge_port[1], 1);
  CHECK_EQ_I64(t.routes.host_group[5], -1);
  CHECK_EQ_I64(t.routes.n_rows, 4); /* 0, 3, 4, 5 */
  CHECK_EQ_I64(t.routes.row[1], -1);
  CHECK_EQ_I64(t.routes.row[3], 1);
  CHECK_EQ_I64(topo_distance(&t, 1, 2), 4);
  CHECK_EQ_I64(hops(&t, 3, 2, p), 1); /* not through host 0 */
  CHECK_EQ_I64(p[0], 2);
  CHECK_EQ_I64(topo_distance(&t, 0, 2), 2);
  CHECK_EQ_I64(hops(&t, 0, 2, p), 1); /* host 0's own traffic: its port to switch 4 */
  CHECK_EQ_I64(p[0], 1);
  CHECK_EQ_I64(topo_distance(&t, 5, 0), 2);
  CHECK_EQ_I64(hops(&t, 5, 0, p), 2); /* both ways down to host 0 */
  CHECK_EQ_I64(hops(&t, 3, 0, p), 1);
  CHECK_EQ_I64(p[0], 0);
  CHECK_EQ_I64(topo_distance(&t, 1, 0), 2);
  topo_free(&t);
}

/* Hosts joined directly, and a host with no link: groups of their own. */
static void test_odd_hosts(void) {
  static const int l[][2] = {{0, 1}};
  topo_t t;
  uint16_t p[64];
  CHECK_EQ_I64(build(&t, 3, 3, l, 1), 0);
  CHECK_EQ_I64(t.routes.n_groups, 3);
  CHECK_EQ_I64(t.routes.n_rows, 0);
  CHECK_EQ_I64(topo_distance(&t, 0, 1), 1);
  CHECK_EQ_I64(hops(&t, 0, 1, p), 1);
  CHECK_EQ_I64(topo_distance(&t, 0, 2), -1);
  CHECK_EQ_I64(hops(&t, 0, 2, p), 0);
  topo_free(&t);

  CHECK_EQ_I64(topo_read_ns3(mvtest_data("island.txt"), &t, err, sizeof err), 0);
  CHECK_EQ_I64(t.routes.n_groups, 2); /* switch 2, host 3 */
  CHECK_EQ_I64(t.routes.host_group[3], 1);
  CHECK_EQ_I64(topo_distance(&t, 0, 3), -1);
  CHECK_EQ_I64(topo_distance(&t, 3, 0), -1);
  CHECK_EQ_I64(hops(&t, 2, 3, p), 0);
  topo_free(&t);

  /* A bad hand-built link is reported by topo_finish. */
  static const int self[][2] = {{0, 2}, {1, 1}};
  CHECK_EQ_I64(build(&t, 3, 2, self, 2), -1);
  CHECK_STR_CONTAINS(err, "link 1 joins node 1 to itself");
  topo_free(&t);
}

/* Random small networks (switches, hosts, relaying hosts, parallel links, islands)
 * against a plain search per destination host D: from D, relaying only through
 * forwarding nodes; x's next hops are its ports to D or to a forwarding neighbour one
 * hop closer. */
static uint64_t lcg(uint64_t *s) {
  *s = *s * 6364136223846793005ull + 1442695040888963407ull;
  return *s >> 33;
}

static int check_random(const topo_t *t) {
  int n = t->n_nodes, dist[16], queue[16], ok = 1;
  for (int d = 0; d < n; d++) {
    if (t->is_switch[d]) continue;
    int head = 0, tail = 0;
    for (int v = 0; v < n; v++)
      dist[v] = -1;
    dist[d] = 0;
    queue[tail++] = d;
    while (head < tail) {
      int u = queue[head++];
      if (u != d && !t->forwards[u]) continue;
      for (int p = t->port_off[u]; p < t->port_off[u + 1]; p++)
        if (dist[t->ports[p].peer] < 0) {
          dist[t->ports[p].peer] = dist[u] + 1;
          queue[tail++] = t->ports[p].peer;
        }
    }
    for (int x = 0; x < n; x++) {
      uint16_t want[64], got[64];
      int k = 0;
      for (int p = t->port_off[x]; x != d && dist[x] > 0 && p < t->port_off[x + 1]; p++) {
        int m = t->ports[p].peer;
        if (dist[m] == dist[x] - 1 && (m == d || t->forwards[m]))
          want[k++] = (uint16_t)(p - t->port_off[x]);
      }
      int got_k = x == d ? 0 : hops(t, x, d, got);
      ok &= topo_distance(t, x, d) == dist[x];
      ok &= got_k == k && memcmp(got, want, (size_t)k * sizeof *want) == 0;
    }
  }
  return ok;
}

static void test_random(void) {
  uint64_t seed = 12345;
  int bad = 0;
  for (int trial = 0; trial < 500; trial++) {
    int n = 3 + (int)(lcg(&seed) % 12), nl = (int)(lcg(&seed) % (2 * n));
    topo_t t;
    memset(&t, 0, sizeof t);
    t.n_nodes = n;
    t.is_switch = calloc((size_t)n, 1);
    t.forwards = calloc((size_t)n, 1);
    t.links = calloc((size_t)nl + 1, sizeof *t.links);
    for (int v = 0; v < n; v++) {
      t.is_switch[v] = lcg(&seed) % 5 < 2;
      t.forwards[v] = t.is_switch[v] || lcg(&seed) % 5 == 0;
    }
    for (int i = 0; i < nl; i++) {
      int a = (int)(lcg(&seed) % (uint64_t)n),
          b = (a + 1 + (int)(lcg(&seed) % (uint64_t)(n - 1))) % n;
      t.links[i] = (topo_link_t){a, b, 100000000000LL, 1000000, 0};
    }
    t.n_links = nl;
    if (topo_finish(&t, err, sizeof err) < 0 || !check_random(&t)) bad++;
    topo_free(&t);
  }
  CHECK_EQ_I64(bad, 0);
}

int main(void) {
  test_fat_tree();
  test_leaf_spine();
  test_k48();
  test_rail();
  test_torus();
  test_multi_homed();
  test_odd_hosts();
  test_random();
  return mvtest_end();
}
