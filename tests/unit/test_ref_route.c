/* The reference's own routing (computed from links alone) equals topo's tables
 * on every generated topology kind, the ns-3 file fixtures and hand-built odd
 * cases: the same next-hop port sets in the same order and the same distances,
 * for every node and every destination host. Its base RTT equals the closed
 * form (sum of ser + delay out and back) and the engine's eng_base_rtt. */
#include <jansson.h>

#include "mvsim.h"
#include "mvtest.h"
#include "ref/ref.h"
#include "sim/eng_hash.h"
#include "sim/eng_standalone.h"

static int64_t pairs_checked, sets_checked, multi_sets;

/* Every (node, destination host): next hops and distance, ref against topo. */
static void compare(const topo_t *t, const char *name) {
  ref_routing_t r;
  if (ref_routing_init(&r, t)) {
    CHECK(0);
    return;
  }
  uint16_t a[1024], b[1024];
  int before = mvtest_failures;
  for (int32_t dst = 0; dst < t->n_nodes; dst++) {
    if (t->is_switch[dst]) continue;
    for (int32_t x = 0; x < t->n_nodes && mvtest_failures == before; x++) {
      int na = ref_next_hops(&r, x, dst, a, 1024), nb = topo_next_hops(t, x, dst, b, 1024);
      CHECK_EQ_I64(na, nb);
      CHECK_EQ_I64(ref_distance(&r, x, dst), topo_distance(t, x, dst));
      for (int k = 0; k < na && k < nb; k++)
        CHECK_EQ_I64(a[k], b[k]);
      pairs_checked++;
      sets_checked += na > 0;
      multi_sets += na > 1;
      if (mvtest_failures != before)
        fprintf(stderr, "%s: node %d towards host %d differs\n", name, x, dst);
    }
  }
  ref_routing_free(&r);
}

static void compare_json(const char *text) {
  json_error_t je;
  json_t *o = json_loads(text, 0, &je);
  topo_t t;
  char err[TOPO_ERR_LEN];
  if (!o || topo_from_json(o, "test", &t, err, sizeof err)) {
    fprintf(stderr, "cannot build %s: %s\n", text, err);
    CHECK(0);
    json_decref(o);
    return;
  }
  json_decref(o);
  compare(&t, text);
  topo_free(&t);
}

static void compare_file(const char *name) {
  topo_t t;
  char err[TOPO_ERR_LEN];
  if (topo_load(mvtest_data(name), &t, err, sizeof err)) {
    fprintf(stderr, "%s\n", err);
    CHECK(0);
    return;
  }
  compare(&t, name);
  topo_free(&t);
}

/* Nodes 0..n-1 (sw: switches, relay: relaying hosts), links (a, b). */
static void compare_hand(int32_t n, const uint8_t *sw, const uint8_t *relay, const int (*l)[2],
                         int32_t nl, const char *name) {
  topo_t t;
  char err[TOPO_ERR_LEN];
  if (topo_alloc(&t, n, nl, "file", err, sizeof err)) exit(2);
  for (int32_t v = 0; v < n; v++) {
    t.is_switch[v] = sw[v];
    t.forwards[v] = sw[v] || relay[v];
  }
  for (int32_t k = 0; k < nl; k++)
    topo_add_link(&t, l[k][0], l[k][1], 100000000000LL, 1000000, 0);
  if (topo_finish(&t, err, sizeof err)) {
    fprintf(stderr, "%s: %s\n", name, err);
    exit(2);
  }
  compare(&t, name);
  topo_free(&t);
}

static void test_hand(void) {
  /* Host 0 on two switches (multi-homed), host 1 hanging from host 0 (not a
   * switch: its own anchor), host 2 on switch 4, parallel links 3-4, a relaying
   * host 5 between switches 3 and 6, host 7 on switch 6, isolated host 8. */
  uint8_t sw[9] = {0, 0, 0, 1, 1, 0, 1, 0, 0}, relay[9] = {0, 0, 0, 0, 0, 1, 0, 0, 0};
  const int l[][2] = {{0, 3}, {0, 4}, {1, 0}, {2, 4}, {3, 4},
                      {4, 3}, {3, 5}, {5, 6}, {7, 6}, {4, 6}};
  compare_hand(9, sw, relay, l, (int32_t)(sizeof l / sizeof l[0]), "hand-built");
  /* A line of relaying hosts with a switch in the middle and a plain host at
   * one end. */
  uint8_t sw2[5] = {0, 0, 1, 0, 0}, relay2[5] = {0, 1, 0, 1, 0};
  const int l2[][2] = {{0, 1}, {1, 2}, {2, 3}, {3, 4}};
  compare_hand(5, sw2, relay2, l2, 4, "relay line");
  /* Switch 0 reaches switch 2 through switch 1 or through multi-homed host 3,
   * equally short; a host does not relay, so only the port to 1 is a next hop
   * from 0 towards host 4 (on 2). Host 5 hangs from 0. */
  uint8_t sw3[6] = {1, 1, 1, 0, 0, 0}, relay3[6] = {0};
  const int l3[][2] = {{0, 1}, {1, 2}, {0, 3}, {3, 2}, {4, 2}, {5, 0}};
  compare_hand(6, sw3, relay3, l3, 6, "host beside a shortest path");
}

static int64_t ser(int64_t w, int64_t r) {
  return (w * 8 * 1000000000000LL + r - 1) / r;
}

/* Base RTT on the HPCC paper's fat tree (100 Gb/s host links, 400 Gb/s fabric,
 * 1 us): for 2, 4 and 6 hops, sum of ser(mtu + header) + 1 us out and
 * ser(ctrl) + 1 us back; and equal to eng_base_rtt for many source ports on a
 * tree with unequal delays (ECMP picks differ). */
static void test_base_rtt(void) {
  json_t *o = json_loads("{\"kind\":\"fat_tree\",\"tiers\":3,\"pods\":5,\"tors_per_pod\":4,"
                         "\"aggs_per_pod\":4,\"cores\":16,\"hosts_per_tor\":16,\"host_gbps\":"
                         "100,\"link_gbps\":400,\"link_delay_ns\":1000}",
                         0, NULL);
  topo_t t;
  char err[TOPO_ERR_LEN];
  if (!o || topo_from_json(o, "hpcc", &t, err, sizeof err)) exit(2);
  json_decref(o);
  eng_params_t p = mvsim_params();
  ref_routing_t r;
  if (ref_routing_init(&r, &t)) exit(2);
  const int32_t dst[3] = {1, 16, 64 + 16 * 4 + 3};
  const int hops[3] = {2, 4, 6};
  const int64_t G = 1000000000LL, US = 1000000LL;
  for (int i = 0; i < 3; i++) {
    tg_task_t f = tg_task_default(TG_FLOW);
    f.host = 0;
    f.dst = dst[i];
    f.bytes = 1;
    f.sport = 10000;
    f.dport = 100;
    int64_t rtt = 0;
    for (int h = 0; h < hops[i]; h++) {
      int64_t rate = (h == 0 || h == hops[i] - 1) ? 100 * G : 400 * G;
      rtt += ser(p.mtu + p.header, rate) + US + ser(p.ctrl_bytes, rate) + US;
    }
    CHECK_EQ_I64(ref_distance(&r, 0, dst[i]), hops[i]);
    CHECK_EQ_I64(ref_base_rtt(&r, &p, &f), rtt);
  }
  ref_routing_free(&r);
  topo_free(&t);

  /* Unequal host delays (700 vs 1300 ns) and rates: ECMP's choice matters only
   * through which path it takes; every (src, dst, sport) agrees with the engine. */
  o = json_loads("{\"kind\":\"fat_tree\",\"tiers\":3,\"k\":4,\"host_gbps\":25,\"link_gbps\":100,"
                 "\"link_delay_ns\":700,\"host_delay_ns\":1300}",
                 0, NULL);
  if (!o || topo_from_json(o, "k4", &t, err, sizeof err)) exit(2);
  json_decref(o);
  if (ref_routing_init(&r, &t)) exit(2);
  int64_t n = 0;
  for (int32_t s = 0; s < 16; s++)
    for (int32_t d = 0; d < 16; d++) {
      if (s == d) continue;
      tg_task_t f = tg_task_default(TG_FLOW);
      f.host = s;
      f.dst = d;
      f.bytes = 1;
      f.sport = 10000 + (uint32_t)(s * 16 + d);
      f.dport = 100;
      trf_flow_t e = mvsim_flow(s, d, 1, 0);
      e.sport = f.sport;
      CHECK_EQ_I64(ref_base_rtt(&r, &p, &f), eng_base_rtt(&t, &p, &e));
      n++;
    }
  CHECK_EQ_I64(n, 240);
  ref_routing_free(&r);
  topo_free(&t);
}

int main(void) {
  static const char *gens[] = {
      "{\"kind\":\"fat_tree\",\"tiers\":2,\"k\":4}",
      "{\"kind\":\"fat_tree\",\"tiers\":2,\"k\":6,\"oversubscription\":2}",
      "{\"kind\":\"fat_tree\",\"tiers\":2,\"leaves\":3,\"spines\":2,\"hosts_per_leaf\":4}",
      "{\"kind\":\"fat_tree\",\"tiers\":3,\"k\":4}",
      "{\"kind\":\"fat_tree\",\"tiers\":3,\"k\":6,\"oversubscription\":3}",
      "{\"kind\":\"fat_tree\",\"tiers\":3,\"pods\":5,\"tors_per_pod\":4,\"aggs_per_pod\":4,"
      "\"cores\":16,\"hosts_per_tor\":16}",
      "{\"kind\":\"rail_optimized\",\"servers\":4,\"nics_per_server\":4,\"spines\":2}",
      "{\"kind\":\"rail_optimized\",\"servers\":8,\"nics_per_server\":2,\"servers_per_group\":4}",
      "{\"kind\":\"rail_optimized\",\"servers\":4,\"nics_per_server\":2,\"servers_per_group\":2,"
      "\"spines\":0}",
      "{\"kind\":\"torus\",\"dims\":[3,3]}",
      "{\"kind\":\"torus\",\"dims\":[2,2,3]}",
      "{\"kind\":\"torus\",\"dims\":[5]}",
      "{\"kind\":\"torus\",\"dims\":[4,4]}",
  };
  for (size_t i = 0; i < sizeof gens / sizeof gens[0]; i++)
    compare_json(gens[i]);
  static const char *files[] = {"fat_k4.txt",       "line3.txt",         "island.txt",
                                "switch_first.txt", "leafspine_k4.json", "topo_file.json"};
  for (size_t i = 0; i < sizeof files / sizeof files[0]; i++)
    compare_file(files[i]);
  test_hand();
  printf("routing: %lld (node, host) pairs, %lld with a route, %lld with several next hops\n",
         (long long)pairs_checked, (long long)sets_checked, (long long)multi_sets);
  CHECK(multi_sets > 1000); /* equal-cost choices were really compared */
  test_base_rtt();
  return mvtest_end();
}
