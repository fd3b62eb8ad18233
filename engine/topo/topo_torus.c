/* topo: torus generator. Every node is a server that relays (a host that forwards);
 * id = x + a*(y + b*z); each node links to its +1 neighbour in every dimension. */
#include "topo/topo_int.h"

int topo_gen_torus(const topo_spec_t *s, const char *where, topo_t *t, char *err, size_t errlen) {
  const int64_t *dim = s->dims;
  int64_t n = dim[0] * dim[1] * dim[2], n_links = 0;
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
      if (topo_gen_link(t, v, w, s->link_bps, s->link_ps, where, err, errlen) < 0) return -1;
    }
  }
  return 0;
}
