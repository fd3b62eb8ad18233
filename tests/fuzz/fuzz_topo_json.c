/* Fuzz target: JSON topology files (topo_parse_json: fat_tree, rail_optimized,
 * torus, bare or in {"topology": ...}) from arbitrary bytes. A topology it builds
 * meets every limit of topo.h; one it rejects gets one line naming the file. */
#include <string.h>

#include "fuzz.h"
#include "topo/topo.h"

/* Sizes above this are skipped (but not those past the limits, which must be refused
 * at once): a fat-tree grows with the cube of its sizes, legitimately. */
#define FUZZ_MAX_SIZE 12

static int ends_with(const char *s, const char *suffix) {
  size_t n = strlen(s), k = strlen(suffix);
  return n >= k && strcmp(s + n - k, suffix) == 0;
}

/* 1 if v (the value of key, NULL inside arrays) could build a large topology or read a
 * file ("path"): the input is skipped. */
static int too_big(const char *key, const json_t *v) {
  if (key && strcmp(key, "path") == 0) return 1;
  if (json_is_number(v)) {
    double x = json_number_value(v);
    int is_size = !key || !(ends_with(key, "_gbps") || ends_with(key, "_delay_ns"));
    return is_size && x > FUZZ_MAX_SIZE && x <= (1 << 20);
  }
  const char *k;
  json_t *m;
  size_t i;
  if (json_is_object(v)) {
    json_object_foreach((json_t *)v, k, m) {
      if (too_big(k, m)) return 1;
    }
  }
  if (json_is_array(v)) {
    json_array_foreach(v, i, m) {
      if (too_big(NULL, m)) return 1;
    }
  }
  return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  json_error_t je;
  json_t *obj = json_loadb((const char *)data, size, 0, &je);
  int skip = obj && too_big(NULL, obj);
  json_decref(obj);
  if (skip) return 0;
  topo_t t;
  char err[TOPO_ERR_LEN] = "";
  if (topo_parse_json("fuzz.json", (const char *)data, size, NULL, &t, err, sizeof err) == 0) {
    FUZZ_ASSERT(t.n_nodes >= 1 && t.n_nodes <= (1 << 20), "%d nodes", t.n_nodes);
    for (int32_t i = 0; i < t.n_links; i++) {
      const topo_link_t *l = &t.links[i];
      FUZZ_ASSERT(l->rate_bps >= TOPO_MIN_RATE_BPS && l->rate_bps <= TOPO_MAX_RATE_BPS,
                  "link %d rate %lld", i, (long long)l->rate_bps);
      FUZZ_ASSERT(l->delay_ps >= 1 && l->delay_ps <= TOPO_MAX_DELAY_PS, "link %d delay %lld", i,
                  (long long)l->delay_ps);
    }
    topo_free(&t);
  } else {
    fuzz_check_error(err, "fuzz.json");
    FUZZ_ASSERT(t.n_nodes == 0 && t.links == NULL, "a rejected topology keeps memory");
  }
  return 0;
}
