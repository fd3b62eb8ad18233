/* A switch's tournament tree over its ports' cached keys (eng_step.h) names
 * the port a scan for the first smallest key names: for every port count from
 * 1 to 300, keys drawn from a small range (many ties) and from the full one,
 * after building it and after each of many single-port updates. */
#include <stdlib.h>

#include "mvtest.h"
#include "sim/eng_step.h"

#define MAX_PORTS 300

static int32_t scan_first_min(const int64_t *key, int32_t np) {
  int32_t idx = 0;
  for (int32_t lp = 1; lp < np; lp++)
    if (key[lp] < key[idx]) idx = lp;
  return idx;
}

static int64_t draw(uint64_t *s, int64_t range) {
  *s = *s * 6364136223846793005ULL + 1442695040888963407ULL;
  int64_t v = (int64_t)(*s >> 33) % range;
  return v == range - 1 ? ENG_INF : v; /* some ports have no event */
}

int main(void) {
  static int64_t key[MAX_PORTS + 5];
  static int32_t twin[MAX_PORTS + 5];
  const int32_t p0 = 5; /* the node's ports are rows p0 .. p0 + np - 1, not from row 0 */
  eng_cols_t c = {0};
  c.port_key = key;
  c.port_twin = twin;
  uint64_t s = 1;
  for (int32_t np = 1; np <= MAX_PORTS; np++) {
    for (int r = 0; r < 2; r++) {
      int64_t range = r == 0 ? 4 : 1LL << 40;
      for (int32_t lp = 0; lp < np; lp++)
        key[p0 + lp] = draw(&s, range);
      eng_tree_build(&c, p0, np);
      CHECK_EQ_I64(np > 1 ? twin[p0 + 1] : 0, scan_first_min(key + p0, np));
      for (int u = 0; u < 200; u++) {
        int32_t lp = (int32_t)(draw(&s, 1 << 20) % np);
        key[p0 + lp] = draw(&s, range);
        eng_tree_update(&c, p0, np, lp);
        CHECK_EQ_I64(np > 1 ? twin[p0 + 1] : 0, scan_first_min(key + p0, np));
      }
    }
  }
  return mvtest_end();
}
