/* topo: allocation of nodes and links for the readers and generators, topo_free,
 * reading a whole file, and error formatting. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/base_err.h"
#include "base/base_file.h"
#include "topo/topo_int.h"

int topo_alloc(topo_t *t, int64_t n_nodes, int64_t links_cap, const char *kind, char *err,
               size_t errlen) {
  memset(t, 0, sizeof *t);
  if (n_nodes < 1 || n_nodes > TOPO_MAX_NODES) {
    base_errf(err, errlen, "%lld nodes: a topology has 1 to %d nodes", (long long)n_nodes,
              TOPO_MAX_NODES);
    return -1;
  }
  if (links_cap > TOPO_MAX_LINKS) {
    base_errf(err, errlen, "%lld links: more than the limit of %d", (long long)links_cap,
              TOPO_MAX_LINKS);
    return -1;
  }
  t->n_nodes = (int32_t)n_nodes;
  t->is_switch = calloc((size_t)n_nodes, 1);
  t->forwards = calloc((size_t)n_nodes, 1);
  t->links = malloc(sizeof *t->links); /* grown by topo_add_link */
  if (!t->is_switch || !t->forwards || !t->links) {
    topo_free(t);
    base_errf(err, errlen, "out of memory for %lld nodes", (long long)n_nodes);
    return -1;
  }
  t->n_hosts = t->n_nodes;
  snprintf(t->kind, sizeof t->kind, "%s", kind);
  return 0;
}

int32_t topo_add_link(topo_t *t, int32_t a, int32_t b, int64_t rate_bps, int64_t delay_ps,
                      double error_rate) {
  /* The capacity is implicit: a power of two, doubled when n_links reaches it. */
  int32_t i = t->n_links;
  if (i >= TOPO_MAX_LINKS) return -1;
  if (i > 0 && (i & (i - 1)) == 0) {
    topo_link_t *l = realloc(t->links, 2 * (size_t)i * sizeof *l);
    if (!l) return -1;
    t->links = l;
  }
  t->links[i] = (topo_link_t){a, b, rate_bps, delay_ps, error_rate};
  t->n_links = i + 1;
  return i;
}

int topo_gen_alloc(topo_t *t, int64_t n_hosts, int64_t n_nodes, int64_t n_links, const char *kind,
                   const char *where, char *err, size_t errlen) {
  char msg[TOPO_ERR_LEN];
  if (topo_alloc(t, n_nodes, n_links, kind, msg, sizeof msg) < 0) {
    topo_jerr(err, errlen, where, NULL, "%s", msg);
    return -1;
  }
  for (int64_t v = n_hosts; v < n_nodes; v++)
    t->is_switch[v] = t->forwards[v] = 1;
  return 0;
}

int topo_gen_link(topo_t *t, int64_t a, int64_t b, int64_t rate_bps, int64_t delay_ps,
                  const char *where, char *err, size_t errlen) {
  if (topo_add_link(t, (int32_t)a, (int32_t)b, rate_bps, delay_ps, 0) >= 0) return 0;
  topo_jerr(err, errlen, where, NULL, "out of memory for %d links", t->n_links);
  return -1;
}

void topo_free(topo_t *t) {
  topo_routes_t *r = &t->routes;
  free(r->host_group);
  free(r->group_node);
  free(r->host_edge_port);
  free(r->row);
  free(r->table);
  free(r->set_base);
  free(r->set_off);
  free(r->set_ports);
  free(t->is_switch);
  free(t->forwards);
  free(t->nvswitch);
  free(t->links);
  free(t->port_off);
  free(t->ports);
  memset(t, 0, sizeof *t);
}

int topo_read_file(const char *path, char **buf, size_t *len, char *err, size_t errlen) {
  char why[128];
  FILE *fp = base_fopen_input(path, "rb", why, sizeof why);
  if (!fp) {
    base_errf(err, errlen, "cannot open %s: %s", path, why);
    return -1;
  }
  size_t cap = (size_t)1 << 16, n = 0;
  char *b = malloc(cap);
  while (b) {
    n += fread(b + n, 1, cap - n, fp);
    if (n < cap) break; /* a short read: end of file or error */
    char *grown = realloc(b, 2 * cap);
    if (!grown) free(b);
    b = grown;
    cap *= 2;
  }
  int bad = !b || ferror(fp);
  fclose(fp);
  if (bad) {
    base_errf(err, errlen, "cannot read %s: %s", path, b ? "read error" : "out of memory");
    free(b);
    return -1;
  }
  *buf = b;
  *len = n;
  return 0;
}
