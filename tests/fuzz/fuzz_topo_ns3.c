/* Fuzz target: the ns-3 topology reader (topo_parse_ns3) on arbitrary text. A
 * topology it accepts meets every limit of topo.h; one it rejects gets one line
 * naming the file. */
#include "fuzz.h"
#include "topo/topo.h"

/* Nodes above which an input is skipped: routing tables grow with hosts x switches,
 * so a 20-byte header could ask for gigabytes legitimately. */
#define FUZZ_MAX_NODES 4096

static void check_topo(const topo_t *t) {
  FUZZ_ASSERT(t->n_nodes >= 1 && t->n_hosts >= 0 && t->n_hosts <= t->n_nodes, "counts");
  FUZZ_ASSERT(t->port_off[0] == 0 && t->port_off[t->n_nodes] == 2 * t->n_links, "port_off");
  for (int32_t i = 0; i < t->n_links; i++) {
    const topo_link_t *l = &t->links[i];
    FUZZ_ASSERT(l->a >= 0 && l->a < t->n_nodes && l->b >= 0 && l->b < t->n_nodes && l->a != l->b,
                "link %d joins %d and %d", i, l->a, l->b);
    FUZZ_ASSERT(l->rate_bps >= TOPO_MIN_RATE_BPS && l->rate_bps <= TOPO_MAX_RATE_BPS,
                "link %d rate %lld", i, (long long)l->rate_bps);
    FUZZ_ASSERT(l->delay_ps >= 1 && l->delay_ps <= TOPO_MAX_DELAY_PS, "link %d delay %lld", i,
                (long long)l->delay_ps);
    FUZZ_ASSERT(l->error_rate >= 0 && l->error_rate < 1, "link %d error rate %g", i, l->error_rate);
  }
  /* Every host reaches every host it has a path to in at most TOPO_MAX_HOPS hops. */
  for (int32_t s = 0; s < t->n_nodes && s < 64; s++)
    for (int32_t d = 0; d < t->n_nodes && d < 64; d++)
      if (s != d && !t->is_switch[s] && !t->is_switch[d])
        FUZZ_ASSERT(topo_distance(t, s, d) <= TOPO_MAX_HOPS, "distance %d -> %d", s, d);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  char *text = fuzz_cstr(data, size);
  if (strtoll(text, NULL, 10) > FUZZ_MAX_NODES) {
    free(text);
    return 0;
  }
  topo_t t;
  char err[TOPO_ERR_LEN] = "";
  if (topo_parse_ns3("fuzz.txt", (const char *)data, size, &t, err, sizeof err) == 0) {
    check_topo(&t);
    topo_free(&t);
  } else {
    fuzz_check_error(err, "fuzz.txt");
    FUZZ_ASSERT(t.n_nodes == 0 && t.links == NULL, "a rejected topology keeps memory");
  }
  free(text);
  return 0;
}
