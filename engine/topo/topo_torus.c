/* topo: torus generator. Every node is a server that relays (a host that forwards);
 * id = x + a*(y + b*z); each node links to its +1 neighbour in every dimension. */
#include <stdio.h>

#include "topo/topo_int.h"

static const char *const torus_keys[] = {"kind", "dims", "link_gbps", "link_delay_ns", NULL};

/* dims: an array of 1 to 3 integers >= 1 (missing ones are 1). */
static int read_dims(const json_t *o, int64_t dim[3], const char *where, char *err, size_t errlen) {
  const json_t *d = json_object_get(o, "dims");
  if (!json_is_array(d) || json_array_size(d) < 1 || json_array_size(d) > 3) {
    topo_jerr(err, errlen, where, "dims", "must be an array of 1 to 3 sizes, e.g. [4, 4]");
    return -1;
  }
  dim[0] = dim[1] = dim[2] = 1;
  for (int i = 0; i < (int)json_array_size(d); i++) {
    const json_t *x = json_array_get(d, (size_t)i);
    if (!json_is_integer(x) || json_integer_value(x) < 1 ||
        json_integer_value(x) > TOPO_MAX_NODES) {
      char key[24];
      snprintf(key, sizeof key, "dims[%d]", i);
      topo_jerr(err, errlen, where, key, "must be an integer in 1..%d", TOPO_MAX_NODES);
      return -1;
    }
    dim[i] = json_integer_value(x);
  }
  return 0;
}

int topo_gen_torus(const json_t *o, const char *where, topo_t *t, char *err, size_t errlen) {
  topo_jlinks_t lk;
  int64_t dim[3], n_links = 0;
  if (topo_jkeys(o, torus_keys, where, err, errlen) < 0 ||
      read_dims(o, dim, where, err, errlen) < 0 || topo_jlinks(o, 0, &lk, where, err, errlen) < 0)
    return -1;
  int64_t n = dim[0] * dim[1] * dim[2];
  for (int i = 0; i < 3; i++) /* a ring of 2 has one link, of 1 none */
    n_links += dim[i] >= 3 ? n : dim[i] == 2 ? n / 2 : 0;
  if (topo_gen_alloc(t, n, n, n_links, "torus", where, err, errlen) < 0) return -1;
  for (int64_t v = 0; v < n; v++)
    t->forwards[v] = 1;
  for (int64_t v = 0; v < n; v++) {
    int64_t c[3] = {v % dim[0], v / dim[0] % dim[1], v / dim[0] / dim[1]};
    int64_t stride[3] = {1, dim[0], dim[0] * dim[1]};
    for (int i = 0; i < 3; i++) {
      if (dim[i] == 1 || (dim[i] == 2 && c[i] == 1)) continue; /* no link, or already made */
      int64_t w = v + ((c[i] + 1) % dim[i] - c[i]) * stride[i];
      if (topo_gen_link(t, v, w, lk.link_bps, lk.link_ps, where, err, errlen) < 0) return -1;
    }
  }
  return 0;
}
